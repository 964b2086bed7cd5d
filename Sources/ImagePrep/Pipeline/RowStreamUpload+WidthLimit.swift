extension RowStreamUpload {
    /// The widest picture a row-decoded format is decoded at. Its row buffers grow with the width
    /// (a decoded row, a row of each plane, the resamplers'), and TIFF and BMP declare widths up
    /// to 2^31 that the pixel limit alone lets through at a height of 1; no photo is this wide.
    static let maxWidth = 1 << 22

    /// Why `size` is refused, in words, or nil when it is not too wide.
    static func widthProblem(_ size: PixelSize) -> String? {
        size.width > maxWidth ? "it is \(size.width) pixels wide, more than the \(maxWidth) rows are decoded at" : nil
    }
}

/// A width and a height in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Pixels across.
    public var width: Int
    /// Pixels down.
    public var height: Int

    /// A size of `width` by `height` pixels.
    ///
    /// - Parameters:
    ///   - width: Pixels across.
    ///   - height: Pixels down.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The longer of the two sides.
    public var longEdge: Int { max(width, height) }

    /// The number of pixels, saturated at `Int.max`: sides come from files, and a HEIF `ispe` of
    /// 0xFFFFFFFF x 0xFFFFFFFF must read as too large, never trap.
    public var pixelCount: Int {
        let product = width.multipliedReportingOverflow(by: height)
        return product.overflow ? Int.max : product.partialValue
    }

    /// The same size turned a quarter: width and height swapped.
    public var transposed: PixelSize { PixelSize(width: height, height: width) }

    /// The size that fits inside a square of `edge` pixels, keeping the aspect ratio.
    ///
    /// Never larger than `self` (no upscaling); the short side is rounded to the nearest pixel
    /// and is at least 1.
    public func fitting(longEdge edge: Int) -> PixelSize {
        guard longEdge > edge else { return self }
        let scale = Double(edge) / Double(longEdge)
        if width >= height {
            return PixelSize(width: edge, height: max(1, Int((Double(height) * scale).rounded())))
        }
        return PixelSize(width: max(1, Int((Double(width) * scale).rounded())), height: edge)
    }

    /// "4032x3024", as errors and `prep-photo` write a size.
    public var description: String { "\(width)x\(height)" }
}

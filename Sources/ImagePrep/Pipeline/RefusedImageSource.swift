/// Images of formats ImagePrep knows by their bytes but does not prepare: refused with the format
/// named and why, so that a library's such files are reported, never taken for something else
/// nor left out as "not images".
struct RefusedImageSource: PhotoSource {
    let context: PreparationContext

    /// JPEG XR (HD Photo, Windows Media Photo: .jxr, .wdp, .hdp): a TIFF-like header whose
    /// version byte is 0xBC.
    static let jpegXRSignatures: [[UInt8]] = [[0x49, 0x49, 0xBC, 0x00], [0x49, 0x49, 0xBC, 0x01]]

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        jpegXRSignatures.contains { bytes.starts(with: $0) }
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        throw .unsupportedImageFormat(
            file: file, format: "a JPEG XR image",
            reason: "ImagePrep has no JPEG XR decoder (jxrlib is unmaintained); convert it to JPEG, PNG or TIFF first")
    }
}

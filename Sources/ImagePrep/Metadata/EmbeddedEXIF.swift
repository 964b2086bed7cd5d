#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// EXIF that a format other than JPEG carries as a TIFF block of its own (a PNG's `eXIf` chunk,
/// a WebP's `EXIF` chunk), read with exactly the JPEG rules and carried into the upload's APP1,
/// whose pixels stay as stored: its Orientation is kept and turns the stripped copies.
enum EmbeddedEXIF {
    /// What the block says, and the upload's APP1 segment with its dimensions set to `uploadSize`.
    ///
    /// - Parameters:
    ///   - block: the chunk's payload: a TIFF block, or one that starts `Exif\0\0` as some
    ///     writers make it (a JPEG APP1's signature), which is passed over.
    ///   - metadata: the photo's metadata so far (its `originalSize`), completed from the block.
    ///   - settingOrientationUp: for a format whose upload is turned upright (a JPEG XL file,
    ///     whose own orientation field overrides its EXIF's), the carried Orientation becomes 1.
    /// - Returns: no segment when the block is not a TIFF block or is too large to carry, with a
    ///   warning that says so.
    static func read(
        _ block: UnsafeRawBufferPointer, into metadata: inout PhotoMetadata, uploadSize: PixelSize,
        settingOrientationUp: Bool = false
    ) -> (segment: Data?, warnings: [PhotoWarning]) {
        var tiff = block
        if tiff.starts(with: JPEGLayout.exifSignature) {
            tiff = UnsafeRawBufferPointer(rebasing: tiff[JPEGLayout.exifSignature.count...])
        }
        guard TIFFBlock(tiff) != nil else {
            return (
                nil,
                [PhotoWarning(.metadata, "the EXIF block is not a TIFF structure, so it is neither read nor carried.")]
            )
        }
        var warnings: [PhotoWarning] = []
        EXIFReader.read(tiff: tiff, into: &metadata, warnings: &warnings)
        let (segment, warning) = EXIFPatcher.segment(
            carrying: tiff, settingPixelSize: uploadSize, settingOrientationUp: settingOrientationUp)
        warnings += warning.map { [$0] } ?? []
        return (segment, warnings)
    }
}

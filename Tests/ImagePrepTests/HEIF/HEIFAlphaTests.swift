import Foundation
import TestSupport
import Testing

@testable import ImagePrep

/// A HEIF photo with an alpha image is composited over the configured background, as a PNG with
/// transparency is (`HEIFAlphaUpload`): libheif, asked for YCbCr, left the alpha out, and the
/// transparent part came out as whatever the encoder left under it (black from heif-enc).
@Suite("HEIF: an alpha image composited over the background")
struct HEIFAlphaTests {
    static let files = ["heic/alpha/rgba-toucan.heic", "heic/alpha/rgba-toucan.avif"]

    @Test("the transparent part shows the background, white by default and black when asked", arguments: files)
    func background(path: String) throws {
        var black = PhotoPreparer.Configuration()
        black.background = .black
        let onWhite = try DecodedJPEG(Fixtures.prepared(path).upload.data).luma
        let onBlack = try DecodedJPEG(Fixtures.prepared(path, configuration: black).upload.data).luma
        // The bottom left corner is transparent in the PNG.
        let (x, y) = (3, onWhite.height - 4)
        #expect(onWhite[x, y] >= 245 && onBlack[x, y] <= 10, "\(path): \(onWhite[x, y]) \(onBlack[x, y])")
    }

    @Test("the photo is heif-convert's decode flattened over white", arguments: files)
    func sameAsHeifConvert(path: String) throws {
        let heif = try DecodedJPEG(Fixtures.prepared(path).upload.data, makingRGB: true)
        let kind = URL(fileURLWithPath: path).pathExtension
        let reference = try DecodedJPEG(
            Fixtures.data("heic/references/rgba-toucan-\(kind)-on-white.jpg"), makingRGB: true)
        let difference = HEIFMetadataTests.largestDifference(
            heif.rgbCellAverages(grid: 8), reference.rgbCellAverages(grid: 8))
        // Without the alpha, the transparent part is black: over 200 levels in the corners.
        #expect(difference < 6, "\(path): \(difference) levels from heif-convert's over white in an 8x8 grid of cells")
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// GIF and WebP prepared like a photo: each real fixture's upload looks like vipsthumbnail's copy
/// cell by cell, the first frame of an animation with a warning, transparency over the chosen
/// background, a GIF frame at its offset, an interlaced GIF read band by band, and a WebP larger
/// than the upload decoded straight at the upload's size.
@Suite("GIF and WebP: real files prepared as vipsthumbnail shows them")
struct GIFWebPSourceTests {
    @Test(
        "the upload matches vipsthumbnail's copy in size and in 64 cells of mean colour",
        arguments: Fixtures.GIFWebP.gifs + Fixtures.GIFWebP.webps)
    func looksLikeVips(name: String) throws {
        let photo = try Fixtures.preparedFormat(name)
        let vips = try #require(Fixtures.GIFWebP.vipsCells[name], "\(name) has no vips cells")
        #expect(photo.upload.size == vips.size, "\(name)")
        // The upload keeps the stored colour numbers (with the ICC profile), as vipsthumbnail does.
        let decoded = try DecodedJPEG(photo.upload.data, makingRGB: true)
        let ours = decoded.rgbCellAverages(grid: 8)
        let worst = zip(ours, vips.cells).map { zip($0, $1).map { abs($0 - $1) }.max() ?? 0 }.max() ?? 0
        #expect(worst < 8, "\(name): a cell differs from vipsthumbnail's by \(worst) levels")
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            #expect(try DecodedJPEG(copy.data).warnings.isEmpty, "\(name)")
        }
        let warned = photo.warnings.contains { $0.kind == .animation }
        #expect(warned == Fixtures.GIFWebP.animated.contains(name), "\(name): \(photo.warnings)")
        #expect(photo.warnings.allSatisfy { $0.kind == .animation }, "\(name): \(photo.warnings)")
    }

    @Test("transparent pixels take the configured background: white by default, black when asked")
    func transparencyOverBackground() throws {
        for name in ["gif-transparent-pillow.gif", "webp-lossless-vp8l-alpha-twelvemonkeys.webp"] {
            var configuration = PhotoPreparer.Configuration()
            let white = try DecodedJPEG(Fixtures.preparedFormat(name).upload.data, makingRGB: true)
            configuration.background = .black
            let black = try DecodedJPEG(
                Fixtures.preparedFormat(name, configuration: configuration).upload.data, makingRGB: true)
            // Both fixtures are transparent at their top left corner.
            #expect(white.meanRGB(x: 0, y: 0, width: 4, height: 4).allSatisfy { $0 > 250 }, "\(name)")
            #expect(black.meanRGB(x: 0, y: 0, width: 4, height: 4).allSatisfy { $0 < 5 }, "\(name)")
        }
    }

    @Test("a GIF frame smaller than its screen lies at its offset, the rest of the screen background")
    func gifFrameAtItsOffset() throws {
        // ImageMagick's 60x40 red-to-blue gradient at +25+30 on a 100x80 screen (README-gif-webp.md).
        let photo = try Fixtures.preparedFormat("gif-offset-frame-crafted.gif")
        #expect(photo.upload.size == PixelSize(width: 100, height: 80))
        let decoded = try DecodedJPEG(photo.upload.data, makingRGB: true)
        #expect(decoded.meanRGB(x: 2, y: 2, width: 16, height: 16).allSatisfy { $0 > 245 })
        #expect(decoded.meanRGB(x: 30, y: 74, width: 60, height: 6).allSatisfy { $0 > 245 })
        let top = decoded.meanRGB(x: 30, y: 32, width: 50, height: 4)
        let bottom = decoded.meanRGB(x: 30, y: 64, width: 50, height: 4)
        #expect(top[0] > 200 && top[2] < 60, "the frame's top is red: \(top)")
        #expect(bottom[2] > 200 && bottom[0] < 60, "the frame's bottom is blue: \(bottom)")
    }

    @Test("an interlaced GIF whose frame is more than one band is read again per band, in the right order")
    func interlacedBands() throws {
        // 4100 x 4100 = 16.8 M indices, more than the 16 MiB band: two bands.
        #expect(4100 * 4100 > GIFSource.interlacedBandBytes)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 4100
        let photo = try Fixtures.preparedFormat("gif-interlaced-bands-crafted.gif", configuration: configuration)
        let decoded = try DecodedJPEG(photo.upload.data, makingRGB: true)
        // Eight flat stripes from red to blue: the row just past the first band's end (4092) is
        // the bluest, the first row the reddest, and every row goes no redder than the one above.
        var previousRed = 256.0
        for y in stride(from: 0, to: 4100, by: 100) {
            let red = decoded.meanRGB(x: 0, y: y, width: 4100, height: 1)[0]
            #expect(red <= previousRed + 2, "row \(y): \(red) after \(previousRed)")
            previousRed = red
        }
        #expect(decoded.meanRGB(x: 0, y: 4095, width: 4100, height: 5)[2] > 200)
        #expect(GIFFrameRows.interlacedRow(0, height: 4100) == 0 && GIFFrameRows.interlacedRow(513, height: 4100) == 4)
        #expect(GIFFrameRows.interlacedRow(4099, height: 4100) == 4099)
    }

    @Test("a WebP larger than the upload is decoded at the upload's size, never whole")
    func webPDecodedAtUploadSize() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 480
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: true)
        let name = "webp-lossy-alpha-twelvemonkeys.webp"
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("formats/" + name), name: name, workspace: workspace)
        #expect(photo.upload.size == PixelSize(width: 480, height: 369))
        #expect(photo.metadata.originalSize == PixelSize(width: 1920, height: 1477))
        let decodedSize = workspace.lastDecode.size
        #expect(decodedSize == photo.upload.size, "libwebp decoded \(decodedSize)")
        // The same picture as the full-size decode resampled.
        let full = try DecodedJPEG(Fixtures.preparedFormat(name).upload.data)
        let small = try DecodedJPEG(photo.upload.data)
        #expect(psnr(full.lumaGrid(columns: 16, rows: 12), small.lumaGrid(columns: 16, rows: 12)) > 30)
    }
}

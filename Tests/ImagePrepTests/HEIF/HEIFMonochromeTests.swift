import Foundation
import Testing

@testable import ImagePrep

/// Gray HEIF sources give gray copies whatever their bit depth and range: libheif 1.15 leaves
/// 10-bit gray samples as they are, and a gray image sent through its RGB conversion came out
/// with three components (and a gray ICC profile then no longer fitted it).
@Suite("Monochrome HEIC gives gray copies")
struct HEIFMonochromeTests {
    @Test(
        "every copy of a 4:0:0 HEIC has one component: 8-bit, 10-bit, and 8-bit in video range",
        arguments: ["heic/gray.heic", "heic/monochrome/gray-10-bit.heic", "heic/monochrome/gray-video-range.heic"])
    func grayCopies(path: String) throws {
        let photo = try Fixtures.prepared(path)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            #expect(try DecodedJPEG(copy.data).componentCount == 1, "\(path)")
        }
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
    }

    @Test("the 10-bit gray picture is the 8-bit one's, scaled to 8 bits: at least 32 dB apart")
    func tenBitsScaled() throws {
        let eight = try DecodedJPEG(Fixtures.prepared("heic/gray.heic").upload.data).luma.values
        let ten = try DecodedJPEG(Fixtures.prepared("heic/monochrome/gray-10-bit.heic").upload.data).luma.values
        // Measured 34.5 dB; a 10-bit sample read as its low byte would score under 10.
        #expect(psnr(eight, ten) >= 32)
    }

    @Test(
        "a grid of gray tiles, which libheif 1.15 gives as YCbCr 4:2:0 but not as gray, prepares as gray.heic's picture"
    )
    func grayGrid() throws {
        let photo = try Fixtures.prepared("heic/monochrome/gray-grid.heic")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        let whole = try DecodedJPEG(Fixtures.prepared("heic/gray.heic").upload.data).luma.values
        let grid = try DecodedJPEG(photo.upload.data).luma.values
        #expect(psnr(whole, grid) >= 30, "\(psnr(whole, grid)) dB")
    }

    @Test("gray in video range is stretched: 16 becomes black and 235 white, as H.273 says")
    func videoRangeStretched() throws {
        let full = try DecodedJPEG(Fixtures.prepared("heic/gray.heic").upload.data).luma.values
        let video = try DecodedJPEG(Fixtures.prepared("heic/monochrome/gray-video-range.heic").upload.data).luma
            .values
        // The same samples, read as 16-235: each level moves away from mid grey by 255/219.
        let stretched = full.map { min(max(($0 - 16) * 255 / 219, 0), 255) }
        #expect(psnr(stretched, video) >= 35, "\(psnr(stretched, video)) dB")
        #expect(psnr(full, video) < psnr(stretched, video))
    }
}

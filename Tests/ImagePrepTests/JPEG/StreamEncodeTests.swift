import Foundation
import Testing

@testable import ImagePrep

/// The upload of a photo decoded on one thread while another resamples it is encoded as its rows
/// are made (`JPEGStreamEncoder`). Its file must be byte for byte what TurboJPEG makes of the
/// finished planes (`JPEGEncoder`), which the copies of a photo whose work is not split are.
@Suite("The upload encoded as its rows are made")
struct StreamEncodeTests {
    @Test(
        "rows handed over in any steps make TurboJPEG's bytes for the same planes",
        arguments: [
            (PixelSize(width: 2048, height: 1536), false),
            (PixelSize(width: 1024, height: 771), false),  // the last MCU row padded from an odd row
            (PixelSize(width: 16, height: 1), false),
            (PixelSize(width: 512, height: 333), true),
        ])
    func streamedIsWhole(size: PixelSize, isGray: Bool) throws {
        let image = Self.noisyImage(size: size, isGray: isGray)
        let whole = try JPEGEncoder.encode(
            image, quality: 85, carrying: [CarriedSegments()], compressor: Compressor(file: "whole"),
            buffer: EncodeBuffer(), file: "whole")[0]
        let buffer = EncodeBuffer()
        let stream = try #require(JPEGStreamEncoder(image: image, quality: 85, buffer: buffer))
        // Rows made in uneven steps, as a resampler's blocks of 8 meet MCU rows of 16.
        var random = SplitMix64(seed: UInt64(size.width))
        var made = 0
        while made < size.height {
            made = min(size.height, made + 1 + Int(random.next() % 40))
            stream.encodeRows(madeLuma: made, chroma: (made + 1) / 2)
        }
        let streamed = try #require(stream.finish())
        #expect(JPEGEncoder.assemble(streamed, carrying: CarriedSegments()) == whole)
    }

    @Test("an upload whose width is not a whole number of MCUs is not streamed: TurboJPEG pads such rows itself")
    func unevenWidthIsNotStreamed() {
        let image = Self.noisyImage(size: PixelSize(width: 1000, height: 64), isGray: false)
        #expect(JPEGStreamEncoder(image: image, quality: 85, buffer: EncodeBuffer()) == nil)
    }

    /// The prepared photo's copies with the work split (and the upload streamed where it can
    /// be) and not: the same bytes, and the stream used exactly where it should be.
    @Test(
        "a photo without restart markers gets its upload streamed when the work is split, with the same copies",
        arguments: [
            ("decode/ycc420-224x150.jpg", 224, true),  // the same size: rows copied, not resampled
            ("decode/ycc420-224x150.jpg", 112, true),
            ("decode/gray-224x150.jpg", 160, true),
            ("decode/ycc422-odd-223x149.jpg", 223, false),  // 223 px across is not whole MCUs
            ("decode/restart-every-row-224x300.jpg", 224, false),  // cut in two instead
            ("corpus/phone-orientation6-samsung-j3.jpg", 1024, true),
        ])
    func preparedPhotoStreamsItsUpload(path: String, maxEdge: Int, streams: Bool) throws {
        let data = try Fixtures.data(path)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = maxEdge
        let alone = try PhotoPreparer(configuration: configuration).prepareBlocking(data, name: path)
        configuration.splitsWorkAcrossCores = true
        let workspace = PreparationWorkspace()
        let split = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data, name: path, workspace: workspace)
        #expect(workspace.lastDecode.isUploadStreamed == streams)
        #expect(split.upload == alone.upload)
        #expect(split.display == alone.display)
        #expect(split.thumbnail == alone.thumbnail)
    }

    /// Gradients with noise on top, different in each plane: detail for the entropy coder.
    static func noisyImage(size: PixelSize, isGray: Bool) -> PlanarImage {
        let image = PlanarImage()
        try! image.reshape(size: size, isGray: isGray, subsampling: .quarter, file: "test")
        var random = SplitMix64(seed: UInt64(size.width * 31 + size.height))
        for (index, plane) in image.activePlanes.enumerated() {
            for y in 0..<plane.height {
                let row = plane.row(y)
                for x in 0..<plane.width {
                    row[x] = UInt8(truncatingIfNeeded: (x + 2 * y) / (index + 2) + Int(random.next() % 24))
                }
            }
        }
        // The luma's padding row of an odd height, as the pipeline fills it before encoding.
        image.replicateLumaEdges()
        return image
    }
}

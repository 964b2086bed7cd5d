import Foundation
import Testing

@testable import ImagePrep

/// Single coded images that libheif decodes whole (10-bit HEIC, AVIF, samples in BT.709 or
/// video range) are converted from libheif's own planes a row at a time (`HEIFBandUpload`), one
/// too large for its decoder to hold within the budget is refused from its header
/// (`HEIFPictureMemory`), and damage libheif decodes past follows the rule of a damaged JPEG.
@Suite("HEIF: single images a row at a time, held to the decode budget")
struct HEIFBandUploadTests {
    static let tenBit = [
        "heic/ten-bit/heic-10-bit.heic", "heic/ten-bit/heic-10-bit-bt709-limited.heic",
        "heic/ten-bit/avif-10-bit.avif", "heic/ten-bit/avif-10-bit-bt709-limited.avif",
    ]

    static func plan(_ path: String) throws -> (HEIFContainer.DecodePlan, isCodedImage: Bool, nclx: NCLXColor?) {
        try Fixtures.data(path).withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let plan = try container.decodePlan()
            let libheif = try Libheif.shared(for: path)
            let context = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: path)
            let nclx = try context.primaryImage(file: path).nclx
            return (plan, container.primaryIsCodedImage, nclx)
        }
    }

    @Test(
        "a 10-bit HEIC or AVIF, in BT.601 full range or BT.709 video range, goes a row at a time and comes out as heif-convert decodes it",
        arguments: tenBit)
    func tenBitAsHeifConvert(path: String) throws {
        let (plan, isCodedImage, nclx) = try Self.plan(path)
        #expect(plan.codedFormat?.bitDepth == 10)
        #expect(HEIFBandUpload.covers(plan, isCodedImage: isCodedImage, nclx: nclx))
        let photo = try Fixtures.prepared(path)
        #expect(photo.upload.size == PixelSize(width: 448, height: 300))
        let upload = try DecodedJPEG(photo.upload.data, makingRGB: true)
        let stem = Fixtures.HEIF.stem(path)
        let reference = try DecodedJPEG(Fixtures.data("heic/references/\(stem).jpg"), makingRGB: true)
        let difference = HEIFMetadataTests.largestDifference(
            upload.rgbCellAverages(grid: 16), reference.rgbCellAverages(grid: 16))
        // libaom's 4:2:2 file comes to 2.0, the HEIC ones under 2.
        #expect(difference < 3, "\(path): \(difference) levels from heif-convert in a 16x16 grid of cells")
        // Pixel by pixel, after both JPEG encodes: within their noise (the
        // whole-image path was 2.4 levels from heif-convert on the AVIF).
        let pixels = zip(try #require(upload.rgb), try #require(reference.rgb))
        let mean = Double(pixels.reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(upload.rgb!.count)
        #expect(mean < 3.5, "\(path): \(mean) levels a sample from heif-convert on average")
    }

    @Test("an 8-bit single image in JPEG's YCbCr and a grid are not taken a row at a time from libheif")
    func otherImagesStay() throws {
        for path in ["heic/no-exif.heic", "heic/iphone-like-grid-p3-rotated.heic", "heic/ten-bit/heic-10-bit.heic"] {
            let (plan, isCodedImage, nclx) = try Self.plan(path)
            let covered = HEIFBandUpload.covers(plan, isCodedImage: isCodedImage, nclx: nclx)
            #expect(covered == (path == "heic/ten-bit/heic-10-bit.heic"), "\(path)")
        }
    }

    @Test("a single coded image of 200 MP is refused from its header for what its decoder would hold, before decoding")
    func twoHundredMegapixelSingleImage() throws {
        let path = "heic/hostile/single-16320x12240-declared.heic"
        let data = try Fixtures.data(path)
        let refusal = Result { () throws(ImagePrepError) in
            try PhotoPreparer().prepareBlocking(data, name: "photo.heic")
        }
        guard case .failure(let error) = refusal, case .tooMuchMemory(_, let bytes, let budget) = error else {
            Issue.record("\(refusal)")
            return
        }
        #expect(bytes > budget && error.code == "too_much_memory", "\(error)")
    }

    @Test(
        "what a single image's decoder holds: a 50 MP HEIC of 8 or 10 bits fits the budget decoded directly, 200 MP or 10 bits through libheif do not"
    )
    func pictureMemory() {
        let eight = HEIFContainer.CodedFormat(chroma: .yuv420, bitDepth: 8)
        let ten = HEIFContainer.CodedFormat(chroma: .yuv420, bitDepth: 10)
        let fifty = PixelSize(width: 8640, height: 5760)
        let twoHundred = PixelSize(width: 16320, height: 12240)
        #expect(
            HEIFPictureMemory.bytes(of: fifty, format: eight, codec: .hevc, throughLibheif: false)
                <= DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: fifty, format: ten, codec: .hevc, throughLibheif: false)
                <= DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: fifty, format: ten, codec: .hevc, throughLibheif: true)
                > DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: twoHundred, format: eight, codec: .hevc, throughLibheif: false)
                > DecodeMemoryBudget.bytes)
        #expect(
            HEIFPictureMemory.bytes(of: twoHundred, format: ten, codec: .hevc, throughLibheif: true)
                > DecodeMemoryBudget.bytes)
        let huge = PixelSize(width: Int.max / 2, height: 3)
        #expect(HEIFPictureMemory.bytes(of: huge, format: ten, codec: .hevc, throughLibheif: true) == Int.max)
    }

    @Test("damage libheif decodes past is refused as damaged with incomplete data refused, else said in a warning")
    func libheifDamage() throws {
        let path = "heic/hostile/av1-two-decoding-warnings.avif"
        let photo = try Fixtures.prepared(path)
        #expect(photo.warnings.count == 2 && photo.warnings.allSatisfy { $0.kind == .incompleteImageData })
        var configuration = PhotoPreparer.Configuration()
        configuration.acceptsIncompleteData = false
        let data = try Fixtures.data(path)
        let refusal = Result { () throws(ImagePrepError) in
            try PhotoPreparer(configuration: configuration).prepareBlocking(data, name: Fixtures.HEIF.name(path))
        }
        guard case .failure(let error) = refusal, case .incompleteImageData = error else {
            Issue.record("\(refusal)")
            return
        }
        #expect(error.description.contains("libheif met a problem"), "\(error)")
    }
}

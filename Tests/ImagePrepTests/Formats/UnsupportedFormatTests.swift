import Foundation
import Testing

@testable import ImagePrep

/// What is still refused names its format and why, with a code of its own (issue 53, item 5):
/// "a TIFF image, which this version does not prepare yet", never "not a JPEG" or the hex of its
/// first bytes.
@Suite("A format this version does not prepare is refused by name, with its own code")
struct UnsupportedFormatTests {
    @Test(
        "real TIFF (BigTIFF), JPEG XL, JPEG 2000, BMP and PSD files are refused by name until a source takes them",
        arguments: [
            ("refused/tiff-bigtiff-tiles-twelvemonkeys.tif", UnsupportedFormat.tiff, "a TIFF image"),
            ("refused/jxl-codestream-naked-bicycles-conformance.jxl", .jpegXL, "a JPEG XL image"),
            ("refused/j2k-codestream-16bit-pillow.j2k", .jpeg2000, "a JPEG 2000 image"),
            ("refused/bmp-rle4-bmpsuite-pillow.bmp", .bmp, "a BMP image"),
            ("refused/psd-rgb-layers-composite-hopper-pillow.psd", .psd, "a Photoshop document (PSD)"),
        ])
    func refusedByName(path: String, format: UnsupportedFormat, name: String) throws {
        let data = try Fixtures.data(path)
        // A source for the format (the TIFF and BMP ones are being written) takes it instead.
        guard data.withUnsafeBytes({ PhotoSources.source(for: $0) }) == nil else { return }
        let error = try BadInputTests.refusal(path)
        #expect(error == .unsupportedFormat(file: URL(fileURLWithPath: path).lastPathComponent, format: format))
        #expect(error.description.hasSuffix("is \(name), which this version does not prepare yet."))
        #expect(error.code == format.code && format.code.hasPrefix("unsupported_"))
        #expect(!error.description.contains("JPEG or HEIF"))
    }

    @Test("a lossless JPEG is refused as one, saying that Debian's libjpeg-turbo cannot decode it")
    func losslessJPEG() throws {
        let error = try BadInputTests.refusal("decode/lossless-sof3-header-only.jpg")
        #expect(error == .unsupportedFormat(file: "lossless-sof3-header-only.jpg", format: .losslessJPEG))
        #expect(error.code == "unsupported_lossless_jpeg")
        #expect(error.description.contains("a lossless JPEG, which libjpeg-turbo 2.1 (Debian 12's) cannot decode"))
    }

    @Test(
        "camera raw headers are told from a plain TIFF, and BigTIFF in both byte orders is a TIFF",
        arguments: [
            (Array("II*\u{0}\u{10}\u{0}\u{0}\u{0}CR\u{2}\u{0}".utf8), UnsupportedFormat.cameraRaw),  // CR2
            (Array("FUJIFILMCCD-RAW 0201".utf8), .cameraRaw),
            ([0, 0, 0, 0x18] + Array("ftypcrx ".utf8), .cameraRaw),  // CR3
            (Array("IIRO\u{8}\u{0}\u{0}\u{0}".utf8), .cameraRaw),  // ORF
            ([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0], .tiff),
            ([0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0], .tiff),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
            // A DNG: IFD0 at 8 holds one entry, DNGVersion (50706 = C612).
            (
                [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0xC6, 1, 0, 4, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0],
                .cameraRaw
            ),
        ])
    func signatures(bytes: [UInt8], format: UnsupportedFormat) {
        #expect(bytes.withUnsafeBytes { FileSignature.unsupportedFormat(of: $0) } == format)
    }

    @Test("text that starts with BM is text, not a BMP image")
    func textStartingBM() throws {
        let bytes = Array("BMW drivers' handbook, chapter one\n".utf8)
        #expect(bytes.withUnsafeBytes { FileSignature.unsupportedFormat(of: $0) } == nil)
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(Data(bytes), name: "t")
        }
        #expect(error == .unrecognizedFormat(file: "t", detected: "text"))
    }
}

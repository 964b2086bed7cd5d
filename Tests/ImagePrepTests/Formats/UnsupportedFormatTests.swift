import Foundation
import Testing

@testable import ImagePrep

/// What is refused names its format and why, with a code of its own, through one error case
/// (`ImagePrepError.unsupportedFormat`) whose `UnsupportedFormat` is the one list of what is
/// refused: a lossless JPEG, JPEG XR, a PSD composite and a JPEG 2000 image in forms not read.
/// Every other image format is a source's: a camera raw or BigTIFF header goes to its source,
/// never to a refusal.
@Suite("A format or form this version does not prepare is refused by name, through one error case")
struct UnsupportedFormatTests {
    /// A CR2's first bytes: "CR" after the TIFF header, IFD0 at 16 (no entries).
    static let cr2Header: [UInt8] = [
        0x49, 0x49, 0x2A, 0, 16, 0, 0, 0, 0x43, 0x52, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ]

    @Test("a lossless JPEG is refused as one, saying that Debian's libjpeg-turbo cannot decode it")
    func losslessJPEG() throws {
        let error = try BadInputTests.refusal("decode/lossless-sof3-header-only.jpg")
        #expect(error == .unsupportedFormat(file: "lossless-sof3-header-only.jpg", format: .losslessJPEG))
        #expect(error.code == "unsupported_lossless_jpeg")
        #expect(
            error.description
                == "'lossless-sof3-header-only.jpg' is a lossless JPEG, which cannot be prepared: libjpeg-turbo 2.1 "
                + "(Debian 12's) cannot decode a lossless JPEG.")
    }

    @Test("a JPEG XR file is refused by its first bytes, through the same case")
    func jpegXR() throws {
        let bytes = Data([0x49, 0x49, 0xBC, 0x01, 0x20, 0, 0, 0] + [UInt8](repeating: 0, count: 64))
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(bytes, name: "scan.jxr")
        }
        #expect(error == .unsupportedFormat(file: "scan.jxr", format: .jpegXR))
        #expect(error.code == "unsupported_format")
        #expect(error.description.hasPrefix("'scan.jxr' is a JPEG XR image, which cannot be prepared: "))
    }

    @Test(
        "every refused format and form has a name, a reason and a code that start the way a script expects",
        arguments: [
            UnsupportedFormat.losslessJPEG, .jpegXR,
            .photoshopComposite(reason: "its composite is Lab, which is not read here"),
            .jpeg2000Components(count: 5),
        ])
    func described(format: UnsupportedFormat) {
        let error = ImagePrepError.unsupportedFormat(file: "f", format: format)
        #expect(error.description.hasPrefix("'f' is a"))
        #expect(error.description.contains(", which cannot be prepared: "))
        #expect(format.code.hasPrefix("unsupported_"))
    }

    @Test(
        "camera raw and TIFF headers go to their sources, not to a refusal",
        arguments: [
            (cr2Header, "RawSource"),
            (Array("FUJIFILMCCD-RAW 0201".utf8), "RawSource"),
            ([0, 0, 0, 0x18] + Array("ftypcrx ".utf8), "RawSource"),  // CR3
            (Array("IIRO\u{8}\u{0}\u{0}\u{0}".utf8), "RawSource"),  // ORF
            (Array("IIU\u{0}\u{8}\u{0}\u{0}\u{0}".utf8), "RawSource"),  // RW2
            ([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0], "TIFFSource"),
            ([0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16], "TIFFSource"),
            ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], "TIFFSource"),
            // A DNG: IFD0 at 8 holds one entry, DNGVersion (50706 = C612).
            (
                [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0xC6, 1, 0, 4, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0],
                "RawSource"
            ),
        ])
    func sourcesTakeThem(bytes: [UInt8], source: String) {
        let found = bytes.withUnsafeBytes { PhotoSources.source(for: $0) }
        #expect(found.map { String(describing: $0) } == source)
    }

    @Test("text that starts with BM is text, not a BMP image")
    func textStartingBM() throws {
        let bytes = Array("BMW drivers' handbook, chapter one\n".utf8)
        #expect(bytes.withUnsafeBytes { PhotoSources.source(for: $0) } == nil)
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(Data(bytes), name: "t")
        }
        #expect(error == .unrecognizedFormat(file: "t", detected: "text"))
    }
}

import CJPEG
import Foundation
import Testing

@testable import ImagePrep

/// What libjpeg-turbo and libexif say reaches users only in our own words, with no number read
/// from the file: never a GPS value, never pixel data.
@Suite("Library messages in our own words")
struct LibraryMessageTests {
    /// A big-endian EXIF block whose GPS IFD claims 9 entries and holds 7. libexif reads the two
    /// it was promised from the bytes after the IFD: the first is zeros, the second takes the
    /// GPSAltitude rational (1/100) as tag 0, type BYTE, count 100, and the latitude's numerator
    /// as the offset of its value. libexif 0.6.24 then logs "Tag starts past end of buffer
    /// (603456789 > 174)": the latitude, 60.3456789°, in a log line.
    static func exifWithOverstatedGPSCount() -> [UInt8] {
        func short(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func long(_ value: Int) -> [UInt8] { short(value >> 16) + short(value & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            short(tag) + short(type) + long(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        let (byte, ascii, longType, rational) = (1, 2, 4, 5)
        // IFD0 at 8: one entry, the GPS IFD pointer; the GPS IFD follows at 26.
        var tiff: [UInt8] = Array("MM".utf8) + short(42) + long(8)
        tiff += short(1) + entry(0x8825, longType, 1, long(26)) + long(0)
        let (altitude, latitude, longitude) = (124, 132, 156)
        tiff += short(9)  // seven entries follow
        tiff += entry(0x0000, byte, 4, [2, 3, 0, 0])
        tiff += entry(0x0001, ascii, 2, Array("N".utf8) + [0])
        tiff += entry(0x0002, rational, 3, long(latitude))
        tiff += entry(0x0003, ascii, 2, Array("E".utf8) + [0])
        tiff += entry(0x0004, rational, 3, long(longitude))
        tiff += entry(0x0005, byte, 1, [0])
        tiff += entry(0x0006, rational, 1, long(altitude))
        tiff += long(0) + [UInt8](repeating: 0, count: 8)
        precondition(tiff.count == altitude)
        tiff += long(1) + long(100)
        tiff += long(603_456_789) + long(10_000_000) + long(0) + long(1) + long(0) + long(1)
        tiff += long(249_067_722) + long(10_000_000) + long(0) + long(1) + long(0) + long(1)
        return Array("Exif\0\0".utf8) + tiff
    }

    /// Every run of digits by which the coordinates could show: the rationals as stored and the
    /// decimal degrees (60.3456789 N, 24.9067722 E).
    static let coordinateDigits = ["603456789", "249067722", "10000000", "60", "3456789", "24", "9067722"]

    /// SOI, an APP1 with `exif`, then the rest of a small real JPEG (cut to `imageBytes` when given).
    static func jpeg(exif: [UInt8], imageBytes: Int? = nil) throws -> Data {
        let image = [UInt8](try Fixtures.data("decode/ycc420-224x150.jpg")).dropFirst(2)
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
        return Data([0xFF, 0xD8] + app1 + image.prefix(imageBytes ?? image.count))
    }

    static func expectNoCoordinates(in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for digits in coordinateDigits {
            #expect(!text.contains(digits), "'\(digits)' in: \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("a GPS IFD that overstates its entry count leaves no digit of the coordinates in any warning or error")
    func overstatedGPSCount() throws {
        let exif = Self.exifWithOverstatedGPSCount()
        let photo = try PhotoPreparer().prepareBlocking(try Self.jpeg(exif: exif), name: "gps.jpg")
        // libexif did complain, so the warning is there, in our words.
        #expect(
            photo.warnings.contains {
                $0.message
                    == "libexif could not read all of the EXIF block: a tag's value lies outside the block, so the tag is left out."
            }, "\(photo.warnings)")
        for warning in photo.warnings { Self.expectNoCoordinates(in: warning.message) }
        // The position itself is read, and only the metadata holds it.
        #expect(photo.metadata.location?.latitude == 60.3456789)

        let (_, readWarnings) = PhotoMetadata.read(fromJPEG: try Self.jpeg(exif: exif))
        #expect(!readWarnings.isEmpty)
        for warning in readWarnings { Self.expectNoCoordinates(in: warning.message) }

        // The same block in a photo cut short: prepared, its warnings hold no coordinate; refused,
        // its error holds none either.
        let cut = try Self.jpeg(exif: exif, imageBytes: 900)
        for warning in try PhotoPreparer().prepareBlocking(cut, name: "gps-cut.jpg").warnings {
            Self.expectNoCoordinates(in: warning.message)
        }
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: BadInputTests.refusingIncompleteData).prepareBlocking(
                cut, name: "gps-cut.jpg")
        }
        Self.expectNoCoordinates(in: error.description)
    }

    @Test(
        "libjpeg-turbo's warnings are recognised by their text and sorted by what they lose",
        arguments: [
            ("Corrupt JPEG data: 3 extraneous bytes before marker 0xdb", LibjpegMessage.Effect.harmless),
            ("Corrupt JPEG data: 2 extraneous bytes before marker 0xd9", .harmless),
            ("Corrupt JPEG data: 47 extraneous bytes before marker 0xd9", .losesPixels),
            ("Corrupt JPEG data: 200 extraneous bytes before marker 0xd3", .losesPixels),
            ("Premature end of JPEG file", .losesPixels),
            ("Corrupt JPEG data: premature end of data segment", .losesPixels),
            ("Corrupt JPEG data: bad Huffman code", .losesPixels),
            ("Corrupt JPEG data: found marker 0xc4 instead of RST3", .losesPixels),
            ("Inconsistent progression sequence for component 0 coefficient 1", .losesPixels),
            ("Warning: unknown JFIF revision number 3.01", .harmless),
            ("Unknown Adobe color transform code 7", .harmless),
            ("Corrupt JPEG data: bad ICC marker", .harmless),
            ("Bogus marker length", .fatal),
            ("Quantization table 0x00 was not defined", .fatal),
            ("Bogus Huffman table definition", .fatal),
            ("Progressive JPEG image has more than 500 scans", .tooManyScans),
            ("Invalid JPEG file structure: two SOF markers", .fatal),
            ("Unsupported marker type 0x9c", .fatal),
        ])
    func libjpegMessages(text: String, effect: LibjpegMessage.Effect) {
        let message = LibjpegMessage(text)
        #expect(message.effect == effect)
        // The number a user could act on is our own limit; nothing else with a digit shows.
        let hasDigit = message.clause.replacingOccurrences(of: "500", with: "").contains { $0.isNumber }
        #expect(!hasDigit, "\(message.clause)")
        #expect(!message.clause.contains("0x") && !message.warning.message.contains(text))
    }

    static func code(_ message: J_MESSAGE_CODE) -> Int32 { Int32(message.rawValue) }

    @Test("libjpeg's codes give the same messages as TurboJPEG's text for them")
    func codesAndTextAgree() {
        let pairs: [(LibjpegMessage, String)] = [
            (LibjpegMessage(code: Self.code(JWRN_JPEG_EOF)), "Premature end of JPEG file"),
            (
                LibjpegMessage(code: Self.code(JWRN_EXTRANEOUS_DATA), parameters: (3, 0xDB)),
                "Corrupt JPEG data: 3 extraneous bytes before marker 0xdb"
            ),
            (
                LibjpegMessage(code: Self.code(JWRN_EXTRANEOUS_DATA), parameters: (47, 0xD9)),
                "Corrupt JPEG data: 47 extraneous bytes before marker 0xd9"
            ),
            (LibjpegMessage(code: Self.code(JERR_BAD_LENGTH)), "Bogus marker length"),
        ]
        for (fromCode, text) in pairs {
            #expect(fromCode == LibjpegMessage(text), "\(text)")
        }
    }

    @Test("a fatal message we do not know keeps its words but none that holds a digit")
    func unknownFatalMessage() {
        let message = LibjpegMessage("Bogus virtual array access 603456789 at 0x4f")
        #expect(message.effect == .fatal)
        #expect(message.clause == "libjpeg-turbo says \"Bogus virtual array access at\"")
        #expect(
            message.error(file: "a.jpg").description
                == "'a.jpg' is a damaged JPEG: libjpeg-turbo says \"Bogus virtual array access at\".")
    }

    @Test("printf formats match what they print and nothing else")
    func formatMatching() {
        let format = "Corrupt JPEG data: %u extraneous bytes before marker 0x%02x"
        #expect(LibraryText.matches("Corrupt JPEG data: 5 extraneous bytes before marker 0xda", format: format))
        #expect(!LibraryText.matches("Corrupt JPEG data: extraneous bytes before marker 0x", format: format))
        #expect(!LibraryText.matches("Corrupt JPEG data: bad Huffman code", format: format))
        #expect(LibraryText.matches("Bogus marker length", format: "Bogus marker length"))
        #expect(!LibraryText.matches("Bogus marker length!", format: "Bogus marker length"))
        #expect(
            LibraryText.matches("Too many color components: 7, max 4", format: "Too many color components: %d, max %d"))
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// A TIFF block laid out by hand: IFDs and values at the offsets the test chooses, zeros between.
struct HandMadeTIFF {
    let isBigEndian: Bool
    private(set) var bytes: [UInt8]

    init(bigEndian: Bool, size: Int = 256, ifd0: Int = 8) {
        isBigEndian = bigEndian
        bytes = [UInt8](repeating: 0, count: size)
        bytes[0...1] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        put(16, 42, at: 2)
        put(32, UInt32(ifd0), at: 4)
    }

    mutating func put(_ bits: Int, _ value: UInt32, at offset: Int) {
        let width = bits / 8
        for index in 0..<width {
            let shift = isBigEndian ? (width - 1 - index) * 8 : index * 8
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }

    /// An IFD at `offset`: (tag, type, count, the value field as a SHORT or LONG) each.
    mutating func ifd(at offset: Int, _ entries: [(UInt16, UInt16, UInt32, field: (bits: Int, value: UInt32))]) {
        put(16, UInt32(entries.count), at: offset)
        for (index, (tag, type, count, field)) in entries.enumerated() {
            let entry = offset + 2 + index * 12
            put(16, UInt32(tag), at: entry)
            put(16, UInt32(type), at: entry + 2)
            put(32, count, at: entry + 4)
            put(field.bits, field.value, at: entry + 8)
        }
        put(32, 0, at: offset + 2 + entries.count * 12)
    }

    mutating func text(_ text: String, at offset: Int) {
        bytes.replaceSubrange(offset..<(offset + text.utf8.count), with: Array(text.utf8))
    }

    func read() -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        var metadata = PhotoMetadata(originalSize: PixelSize(width: 1, height: 1))
        var warnings: [PhotoWarning] = []
        bytes.withUnsafeBytes { EXIFReader.read(tiff: $0, into: &metadata, warnings: &warnings) }
        return (metadata, warnings)
    }
}

@Suite("The copy of an EXIF block that libexif loads")
struct EXIFSanitizerTests {
    static let (ascii, short, long): (UInt16, UInt16, UInt16) = (2, 3, 4)

    /// IFD0 at 8 with `before` and then an Exif IFD pointer to 100, where DateTimeOriginal's 20
    /// bytes are at 200.
    static func block(bigEndian: Bool, before: [(UInt16, UInt16, UInt32, field: (bits: Int, value: UInt32))])
        -> HandMadeTIFF
    {
        var tiff = HandMadeTIFF(bigEndian: bigEndian)
        tiff.ifd(at: 8, before + [(0x8769, long, 1, (32, 100))])
        tiff.ifd(at: 100, [(0x9003, ascii, 20, (32, 200))])
        tiff.text("2021:03:04 05:06:07", at: 200)
        return tiff
    }

    @Test("a JPEGInterchangeFormat or Length past the end costs only itself", arguments: [false, true])
    func thumbnailTagsPastTheEnd(bigEndian: Bool) {
        let tiff = Self.block(
            bigEndian: bigEndian,
            before: [(0x0201, Self.long, 1, (32, 0xFFFF_FF00)), (0x0202, Self.long, 1, (32, 4000))])
        let (metadata, warnings) = tiff.read()
        #expect(metadata.captureTime?.iso8601 == "2021-03-04T05:06:07")
        #expect(
            warnings.map(\.message) == [
                "IFD0 had a damaged entry (JPEGInterchangeFormat points past the end of the EXIF block), skipped so "
                    + "that the rest of IFD0 could be read.",
                "IFD0 had a damaged entry (JPEGInterchangeFormatLength points past the end of the EXIF block), skipped "
                    + "so that the rest of IFD0 could be read.",
            ])
    }

    @Test("many damaged entries of one kind give one warning with their count")
    func repeatedDamage() {
        let bad: (UInt16, UInt16, UInt32, field: (bits: Int, value: UInt32)) = (0x0202, Self.long, 1, (32, 999_999))
        let (metadata, warnings) = Self.block(bigEndian: false, before: [bad, bad, bad]).read()
        #expect(metadata.captureTime != nil)
        #expect(
            warnings.map(\.message) == [
                "IFD0 had 3 damaged entries (JPEGInterchangeFormatLength points past the end of the EXIF block), "
                    + "skipped so that the rest of IFD0 could be read."
            ])
    }

    @Test("a pointer stored as a SHORT is followed in either byte order, as exiftool follows it")
    func shortPointer() {
        // libexif reads the field as a LONG: in a big-endian block that is 100 << 16.
        for bigEndian in [false, true] {
            var tiff = HandMadeTIFF(bigEndian: bigEndian)
            tiff.ifd(at: 8, [(0x8769, Self.short, 1, (16, 100))])
            tiff.ifd(at: 100, [(0x9003, Self.ascii, 20, (32, 200))])
            tiff.text("2021:03:04 05:06:07", at: 200)
            let (metadata, warnings) = tiff.read()
            #expect(metadata.captureTime?.iso8601 == "2021-03-04T05:06:07", "big-endian: \(bigEndian)")
            #expect(warnings.isEmpty)
        }
    }

    @Test("a pointer past the end, or of no integer type, is dropped, with our own sentence")
    func badPointers() {
        var tiff = HandMadeTIFF(bigEndian: true)
        // A GPS pointer past the end, then a Make that must still be read.
        tiff.ifd(at: 8, [(0x010F, Self.ascii, 4, (32, 0x4142_4300)), (0x8825, Self.long, 1, (32, 70_000))])
        var (metadata, warnings) = tiff.read()
        #expect(metadata.cameraMake == "ABC")
        #expect(
            warnings.map(\.message) == [
                "IFD0's pointer to the GPS IFD points past the end of the EXIF block, so the GPS IFD is not read; the "
                    + "rest of IFD0 is."
            ])
        // An Interoperability pointer stored as RATIONAL in the Exif IFD, before DateTimeOriginal.
        tiff = HandMadeTIFF(bigEndian: false)
        tiff.ifd(at: 8, [(0x8769, Self.long, 1, (32, 100))])
        tiff.ifd(at: 100, [(0xA005, 5, 1, (32, 150)), (0x9003, Self.ascii, 20, (32, 200))])
        tiff.text("2021:03:04 05:06:07", at: 200)
        (metadata, warnings) = tiff.read()
        #expect(metadata.captureTime?.iso8601 == "2021-03-04T05:06:07")
        #expect(
            warnings.map(\.message) == [
                "the Exif IFD's pointer to the Interoperability IFD does not hold an integer offset, so the "
                    + "Interoperability IFD is not read; the rest of the Exif IFD is."
            ])
    }

    @Test("a pointer into the TIFF header is not followed")
    func pointerIntoHeader() {
        var tiff = HandMadeTIFF(bigEndian: false)
        tiff.ifd(at: 8, [(0x010F, Self.ascii, 4, (32, 0x0043_4241)), (0x8769, Self.long, 1, (32, 0))])
        let (metadata, warnings) = tiff.read()
        #expect(metadata.cameraMake == "ABC")
        #expect(
            warnings.map(\.message) == [
                "IFD0's pointer to the Exif IFD points into the TIFF header, so the Exif IFD is not read; the rest of "
                    + "IFD0 is."
            ])
    }

    @Test("a healthy block is loaded as it is, and the original is never changed", arguments: ["corpus", "crafted"])
    func healthyBlocksUntouched(folder: String) throws {
        let repaired: Set = ["ifd0-bad-thumbnail-length.jpg", "exif-pointer-ascii.jpg"]
        for path in ExiftoolAgreementTests.jpegs where path.hasPrefix(folder + "/") {
            let data = try Fixtures.data(path)
            try data.withUnsafeBytes { bytes in
                guard let segment = SegmentWalker.walk(bytes).exifSegment(in: bytes) else { return }
                let tiff = UnsafeRawBufferPointer(rebasing: bytes[segment.payload.dropFirst(6)])
                let before = Array(tiff)
                let result = EXIFSanitizer.sanitize(tiff: tiff)
                #expect(Array(tiff) == before)
                let name = try #require(path.split(separator: "/").last.map(String.init))
                #expect(result.repairs.isEmpty != repaired.contains(name), "\(path): \(result.repairs)")
                #expect((result.loadable == Array(bytes[segment.payload])) == result.repairs.isEmpty, "\(path)")
            }
        }
    }
}

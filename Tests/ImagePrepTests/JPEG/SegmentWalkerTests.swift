import Foundation
import Testing

@testable import ImagePrep

@Suite("Marker walk")
struct SegmentWalkerTests {
    /// `segments_before_first_sos` in expected.json was written by a separate Python marker walk,
    /// which lists a run of segments with the same marker and identifier once (the first one's
    /// length), and lists a segment that runs past the end of the file before giving up.
    @Test("segments before the first scan agree with the corpus's own marker walk", arguments: Fixtures.corpusNames)
    func segmentsMatchCorpus(name: String) throws {
        let expected = try #require(ExpectedValues.file(name))
        guard let segmentsExpected = expected["segments_before_first_sos"]?.array else { return }
        var wanted = segmentsExpected.map {
            Walked(
                name: $0.array?[0].string ?? "?", length: $0.array?[1].int ?? -1, identifier: $0.array?[2].string ?? "")
        }
        // The corpus walk also reads the entropy-coded data ("no EOI"); ours stops at the first scan.
        let headerError = expected["marker_walk_error"]?.string.flatMap { $0.contains("entropy") ? nil : $0 }
        let walkFailed = headerError != nil
        if headerError?.contains("runs past end") == true { wanted.removeLast() }

        let data = try Fixtures.data("corpus/" + name)
        let layout = data.withUnsafeBytes { SegmentWalker.walk($0) }
        let all = data.withUnsafeBytes { bytes in
            layout.segments.map {
                Walked(
                    name: Self.name(of: $0.marker), length: $0.payload.count + 2,
                    identifier: Self.identifier($0, in: bytes))
            }
        }
        let walked = all.enumerated().filter { index, segment in
            index == 0 || (all[index - 1].name, all[index - 1].identifier) != (segment.name, segment.identifier)
        }.map(\.element)
        #expect(walked == wanted)
        #expect((layout.problem != nil) == walkFailed)
    }

    struct Walked: Equatable {
        let name: String
        let length: Int
        let identifier: String
    }

    /// The NUL-terminated ASCII name at the start of an APPn payload, cut at 32 bytes as the corpus walk cuts it.
    static func identifier(_ segment: JPEGSegment, in bytes: UnsafeRawBufferPointer) -> String {
        guard (0xE0...0xEF).contains(segment.marker) else { return "" }
        let head = bytes[segment.payload].prefix(32).prefix { $0 != 0 }
        return String(decoding: head, as: UTF8.self)
    }

    @Test("a segment length that runs past the end stops the walk with a reason")
    func truncatedSegment() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x10, 0x00, 0x45, 0x78]
        let layout = bytes.withUnsafeBytes { SegmentWalker.walk($0) }
        #expect(layout.segments.isEmpty)
        #expect(layout.problem?.contains("runs past the end") == true)
    }

    @Test("fill bytes before a marker are skipped")
    func fillBytes() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFF, 0xFF, 0xFE, 0x00, 0x04, 0x68, 0x69, 0xFF, 0xDA, 0x00, 0x02]
        let layout = bytes.withUnsafeBytes { SegmentWalker.walk($0) }
        #expect(layout.segments.map(\.marker) == [0xFE, 0xDA])
        #expect(layout.commentSegments.first?.payload == 8..<10)
        #expect(layout.problem == nil)
    }

    static func name(of marker: UInt8) -> String {
        switch marker {
        case 0xE0...0xEF: return "APP\(marker - 0xE0)"
        case 0xC4: return "DHT"
        case 0xCC: return "DAC"
        case 0xC0...0xCF: return "SOF\(marker - 0xC0)"
        case 0xDB: return "DQT"
        case 0xDD: return "DRI"
        case 0xDA: return "SOS"
        case 0xFE: return "COM"
        default: return String(marker, radix: 16, uppercase: true)
        }
    }
}

extension SegmentWalkerTests {
    @Test("garbage between segments is skipped and counted, as libjpeg does")
    func extraneousBytes() {
        let bytes: [UInt8] = [0xFF, 0xD8, 0x00, 0x11, 0x22, 0xFF, 0xFE, 0x00, 0x03, 0x41, 0xFF, 0xDA, 0x00, 0x02]
        let layout = bytes.withUnsafeBytes { SegmentWalker.walk($0) }
        #expect(layout.segments.map(\.marker) == [0xFE, 0xDA])
        #expect(layout.extraneousByteCount == 3)
        #expect(layout.problem == nil)
    }
}

extension SegmentWalkerTests {
    @Test("FF 00 between segments is skipped as libjpeg's next_marker skips it, and what follows is read")
    func ffZeroIsNotAMarker() throws {
        let bytes: [UInt8] = [
            0xFF, 0xD8, 0xFF, 0x00, 0xFF, 0xFF, 0x00, 0xFF, 0xFE, 0x00, 0x03, 0x41, 0xFF, 0xDA, 0x00, 0x02,
        ]
        let layout = bytes.withUnsafeBytes { SegmentWalker.walk($0) }
        #expect(layout.segments.map(\.marker) == [0xFE, 0xDA])
        #expect(layout.extraneousByteCount == 4)
        #expect(layout.stop == nil)

        // A real photo with FF 00 before its APP1: exiftool reads its EXIF and comment (and libjpeg
        // warns of 2 extraneous bytes).
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/marker-ff00-before-exif.jpg")
        #expect(metadata.comment == "after")
        #expect(metadata.captureTime?.iso8601 == "2019-04-05T06:07:08")
        #expect(metadata.originalSize == PixelSize(width: 250, height: 188))
        #expect(warnings.isEmpty)
    }

    @Test("a length below 2 stops the walk as it stops exiftool's, with a warning that says so")
    func lengthBelowTwo() throws {
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x01, 0xFF, 0xDA, 0x00, 0x02]
        let layout = bytes.withUnsafeBytes { SegmentWalker.walk($0) }
        #expect(layout.stop == WalkStop(reason: .segmentTooShort(length: 1), offset: 2))
        #expect(layout.problem == "a segment length of 1 at offset 2, less than the two bytes of the length itself")

        let path = "crafted/marker-walk-stops-at-bad-length.jpg"
        let stopped = PhotoWarning(
            .metadata,
            "the JPEG marker walk stopped early, at byte 20, because a segment's length is less than 2, so no "
                + "metadata after that point is read.")
        let (metadata, warnings) = try EXIFReaderTests.read(path)
        #expect(warnings == [stopped])
        // exiftool reads nothing from it either, not even the size.
        #expect(metadata == PhotoMetadata(originalSize: PixelSize(width: 0, height: 0)))
        // libjpeg reads on and decodes it; the prepared photo says why its metadata is missing.
        let photo = try PhotoPreparer().prepareBlocking(try Fixtures.data(path), name: path)
        #expect(photo.warnings.contains(stopped))
        #expect(photo.metadata.originalSize == PixelSize(width: 250, height: 188))
        #expect(photo.metadata.captureTime == nil)
    }

    @Test(
        "every way the walk can stop has a warning without values from the file",
        arguments: [
            ([0xFF, 0xD9, 0x00, 0x00], "there is no start-of-image marker"),
            ([0xFF, 0xD8, 0xFF, 0xFE, 0x41, 0x41, 0x41], "a segment's length runs past the end of the file"),
            ([0xFF, 0xD8, 0xFF, 0xD9, 0xFF, 0xDA], "an EOI marker comes before the image data"),
            ([0xFF, 0xD8, 0xFF, 0xFE], "the file ends inside a segment header"),
            ([0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x02, 0xFF], "the file ends before the image data"),
        ] as [([UInt8], String)])
    func stopWarnings(bytes: [UInt8], why: String) {
        let (_, warnings) = PhotoMetadata.read(fromJPEG: Data(bytes))
        #expect(warnings.first?.message.contains("because \(why), so no metadata after that point is read.") == true)
        #expect(warnings.first.map { !$0.message.contains("16705") } == true)  // 0x4141
    }
}

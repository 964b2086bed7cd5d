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

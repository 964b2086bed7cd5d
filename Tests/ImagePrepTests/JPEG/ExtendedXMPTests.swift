import Foundation
import Testing

@testable import ImagePrep

/// Ultra HDR JPEGs whose `hdrgm:Version` and container directory are in their Extended XMP, as
/// photo editors write them (`phones/ultrahdr-extended-xmp-lamps.jpg`): the chunks reassembled by
/// their GUID in any order, and every way they can be missing, odd or hostile gives the SDR upload
/// with one warning naming the Extended XMP.
@Suite("Extended XMP: an Ultra HDR photo's XMP in parts, reassembled bounded")
struct ExtendedXMPTests {
    static let lamps = "phones/ultrahdr-extended-xmp-lamps.jpg"

    /// The lamps photo's parts: its bytes before and after its one Extended XMP APP1, that
    /// segment's GUID and the whole packet.
    struct Lamps {
        let before: [UInt8]
        let after: [UInt8]
        let guid: [UInt8]
        let packet: [UInt8]

        init() throws {
            let bytes = try [UInt8](Fixtures.data(ExtendedXMPTests.lamps))
            let signature = ExtendedXMP.signature
            let found = try #require(bytes.firstRange(of: signature))
            let start = found.lowerBound - 4
            let length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
            let payload = (start + 4)..<(start + 2 + length)
            guid = Array(bytes[(payload.lowerBound + signature.count)..<(payload.lowerBound + signature.count + 32)])
            packet = Array(bytes[(payload.lowerBound + ExtendedXMP.headerLength)..<payload.upperBound])
            before = Array(bytes[..<start])
            after = Array(bytes[payload.upperBound...])
        }

        /// One Extended XMP APP1: `chunk` at `offset` of a packet of `length` bytes, under `guid`.
        static func segment(guid: [UInt8], length: Int, offset: Int, chunk: ArraySlice<UInt8>) -> [UInt8] {
            func big(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
            let payload = ExtendedXMP.signature + guid + big(length) + big(offset) + chunk
            return [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }

        /// The photo with its Extended XMP as `segments` instead: the MPF offsets count from the
        /// MPF segment, which comes after them, so they still hold.
        func with(_ segments: [[UInt8]]) -> Data { Data(before + segments.joined() + after) }

        /// The packet in `count` chunks, each with its offset, in the file's order.
        func chunks(_ count: Int) -> [(offset: Int, bytes: ArraySlice<UInt8>)] {
            let size = (packet.count + count - 1) / count
            return stride(from: 0, to: packet.count, by: size).map { ($0, packet[$0..<min(packet.count, $0 + size)]) }
        }
    }

    static func prepared(_ file: Data) throws -> (photo: PreparedPhoto, sdr: PreparedPhoto) {
        var sdr = PhotoPreparer()
        sdr.configuration.carriesGainMap = false
        return (
            try PhotoPreparer().prepareBlocking(file, name: "lamps.jpg"),
            try sdr.prepareBlocking(file, name: "lamps.jpg")
        )
    }

    @Test(
        "In three chunks in reverse order, with a stray chunk of another GUID among them: the same gain map and values")
    func chunksInAnyOrder() throws {
        let lamps = try Lamps()
        let original = try PhotoPreparer().prepareBlocking(Fixtures.data(Self.lamps), name: "lamps.jpg")
        let other = Array("0123456789ABCDEF0123456789ABCDEF".utf8)
        let segments =
            lamps.chunks(3).reversed().map {
                Lamps.segment(guid: lamps.guid, length: lamps.packet.count, offset: $0.offset, chunk: $0.bytes)
            } + [Lamps.segment(guid: other, length: 5, offset: 0, chunk: [1, 2, 3, 4, 5][...])]
        let photo = try PhotoPreparer().prepareBlocking(lamps.with(segments), name: "lamps.jpg")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        #expect(photo.uploadGainMap == original.uploadGainMap && photo.uploadGainMap != nil)
    }

    /// A way the Extended XMP is broken, and the words its warning says.
    static let breakages: [(String, String, @Sendable (Lamps) -> [[UInt8]])] = [
        (
            "a chunk missing", "a part of it is missing",
            { lamps in
                lamps.chunks(3).dropFirst().map {
                    Lamps.segment(guid: lamps.guid, length: lamps.packet.count, offset: $0.offset, chunk: $0.bytes)
                }
            }
        ),
        (
            "its one chunk under another GUID", "no part of it is in the file",
            { lamps in
                [
                    Lamps.segment(
                        guid: Array("F".utf8) + lamps.guid.dropFirst(), length: lamps.packet.count, offset: 0,
                        chunk: lamps.packet[...])
                ]
            }
        ),
        (
            "one of three chunks under another GUID", "a part of it is missing",
            { lamps in
                lamps.chunks(3).enumerated().map { index, chunk in
                    let guid = index == 1 ? Array("0".utf8) + lamps.guid.dropFirst() : lamps.guid
                    return Lamps.segment(
                        guid: guid, length: lamps.packet.count, offset: chunk.offset, chunk: chunk.bytes)
                }
            }
        ),
        (
            "two chunks that overlap", "overlap",
            { lamps in
                lamps.chunks(2).map {
                    Lamps.segment(
                        guid: lamps.guid, length: lamps.packet.count, offset: max(0, $0.offset - 10), chunk: $0.bytes)
                }
            }
        ),
        (
            "chunks that disagree on the packet's length", "disagree",
            { lamps in
                lamps.chunks(2).enumerated().map { index, chunk in
                    Lamps.segment(
                        guid: lamps.guid, length: lamps.packet.count + index, offset: chunk.offset, chunk: chunk.bytes)
                }
            }
        ),
        (
            "a packet of 4 GB declared", "more than",
            { lamps in
                [Lamps.segment(guid: lamps.guid, length: 0xFFFF_FFFF, offset: 0, chunk: lamps.packet[...])]
            }
        ),
        (
            "a chunk past the length declared", "runs past",
            { lamps in
                [Lamps.segment(guid: lamps.guid, length: 100, offset: 0, chunk: lamps.packet[...])]
            }
        ),
    ]

    @Test("Broken Extended XMP gives the SDR upload, byte for byte, with one warning naming it", arguments: 0..<7)
    func broken(index: Int) throws {
        let (description, cause, segments) = Self.breakages[index]
        let (photo, sdr) = try Self.prepared(try Lamps().with(segments(try Lamps())))
        #expect(photo.upload == sdr.upload && photo.uploadGainMap == nil, "\(description)")
        let warnings = photo.warnings.filter { $0.kind == .gainMap }.map(\.message)
        #expect(
            warnings.count == 1 && warnings[0].contains("Extended XMP") && warnings[0].contains(cause),
            "\(description): \(warnings)")
    }

    @Test("A primary XMP whose HasExtendedXMP is no GUID: the gain map, which says hdrgm itself, is left out naming it")
    func notAGUID() throws {
        var bytes = try [UInt8](Fixtures.data(Self.lamps))
        try HEIFGainMapTests.replace("HasExtendedXMP=\"B621", with: "HasExtendedXMP=\"X621", in: &bytes)
        let (photo, sdr) = try Self.prepared(Data(bytes))
        #expect(photo.upload == sdr.upload)
        let warnings = photo.warnings.filter { $0.kind == .gainMap }.map(\.message)
        #expect(warnings.count == 1 && warnings[0].contains("no GUID"), "\(warnings)")
    }
}

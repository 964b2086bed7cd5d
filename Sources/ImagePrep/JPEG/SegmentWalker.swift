#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A marker segment of a JPEG file, as offsets into the file's bytes.
struct JPEGSegment: Equatable, Sendable {
    /// The second byte of the marker: 0xE1 for APP1, 0xFE for COM, 0xC0 for SOF0 and so on.
    let marker: UInt8
    /// Where the whole segment starts (its 0xFF byte) and ends (after its payload).
    let bytes: Range<Int>
    /// The payload: what follows the two length bytes.
    let payload: Range<Int>

    static let startOfImage: UInt8 = 0xD8
    static let endOfImage: UInt8 = 0xD9
    static let startOfScan: UInt8 = 0xDA
    static let comment: UInt8 = 0xFE
    static let app0: UInt8 = 0xE0
    static let app1: UInt8 = 0xE1
    static let app2: UInt8 = 0xE2
    static let app14: UInt8 = 0xEE

    /// Whether this is a start-of-frame marker (SOF0–SOF15 less DHT, JPG and DAC).
    var isStartOfFrame: Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }
}

/// The frame header (SOFn): how the image is coded and how big it is.
struct FrameHeader: Equatable, Sendable {
    let marker: UInt8
    let precision: Int
    let size: PixelSize
    let componentCount: Int

    /// Whether the frame is lossless (SOF3, SOF7, SOF11, SOF15), which libjpeg-turbo 2.1 does not
    /// decode at all: a format of its own to the user (`UnsupportedFormat.losslessJPEG`).
    var isLossless: Bool { [0xC3, 0xC7, 0xCB, 0xCF].contains(marker) }

    /// Why libjpeg-turbo 2.x cannot decode this lossy frame into 8-bit pixels, or nil when it can.
    var unsupportedReason: String? {
        switch marker {
        case 0xC5, 0xC6, 0xCD, 0xCE:
            return "it is hierarchical (SOF\(marker - 0xC0))"
        default:
            break
        }
        if precision != 8 { return "it has \(precision)-bit samples, and only 8-bit JPEGs are supported" }
        return nil
    }
}

/// The layout of a JPEG file up to its first scan, found by our own walk over the markers
/// (TurboJPEG 2.x does not expose them).
struct JPEGLayout: Sendable {
    /// Every segment between SOI and the first SOS, in file order. The SOS itself is last when
    /// the walk reached it.
    var segments: [JPEGSegment] = []
    /// The frame header, when the walk found one.
    var frame: FrameHeader?
    /// Where and why the walk stopped before reaching a scan, or nil when it reached one.
    var stop: WalkStop?
    /// Why the walk stopped before reaching a scan, for an error message; nil when it reached one.
    var problem: String? { stop?.detail }
    /// Bytes between segments that were not part of any marker and were skipped.
    var extraneousByteCount = 0

    /// The first APP1 segment that holds EXIF (`Exif\0\0` then a TIFF header).
    func exifSegment(in bytes: UnsafeRawBufferPointer) -> JPEGSegment? {
        segments.first { $0.marker == JPEGSegment.app1 && bytes.hasPrefix(Self.exifSignature, at: $0.payload) }
    }

    /// The APP2 `ICC_PROFILE` chunks in file order.
    func iccSegments(in bytes: UnsafeRawBufferPointer) -> [JPEGSegment] {
        segments.filter { $0.marker == JPEGSegment.app2 && bytes.hasPrefix(Self.iccSignature, at: $0.payload) }
    }

    /// The COM segments in file order.
    var commentSegments: [JPEGSegment] { segments.filter { $0.marker == JPEGSegment.comment } }

    static let exifSignature: [UInt8] = Array("Exif\0\0".utf8)
    static let iccSignature: [UInt8] = Array("ICC_PROFILE\0".utf8)
}

/// Where the marker walk stopped before the first scan, and why.
struct WalkStop: Equatable, Sendable {
    enum Reason: Equatable, Sendable {
        case noStartOfImage
        case endsBeforeImageData
        /// EOI or SOI.
        case unexpectedMarker(UInt8)
        case endsInSegmentHeader
        /// A length (the file's own number) that runs past the end of the file.
        case segmentPastEnd(length: Int)
        /// A length below 2, which cannot even cover itself; exiftool stops here too.
        case segmentTooShort(length: Int)
    }

    var reason: Reason
    /// Where the marker (or the byte) the walk stopped at is in the file.
    var offset: Int

    /// For an error message, which may quote the file.
    var detail: String {
        switch reason {
        case .noStartOfImage: "no start-of-image marker"
        case .endsBeforeImageData: "the file ends before the image data"
        case .unexpectedMarker(let marker):
            "an unexpected \(marker == JPEGSegment.endOfImage ? "EOI" : "SOI") marker before the image data"
        case .endsInSegmentHeader: "the file ends inside a segment header"
        case .segmentPastEnd(let length):
            "a segment length of \(length) at offset \(offset) that runs past the end of the file"
        case .segmentTooShort(let length):
            "a segment length of \(length) at offset \(offset), less than the two bytes of the length itself"
        }
    }

    /// Our own sentence, with no value from the file: metadata missing because the walk stopped
    /// is never silent.
    var warning: PhotoWarning {
        let why =
            switch reason {
            case .noStartOfImage: "there is no start-of-image marker"
            case .endsBeforeImageData: "the file ends before the image data"
            case .unexpectedMarker(let marker):
                "an \(marker == JPEGSegment.endOfImage ? "EOI" : "SOI") marker comes before the image data"
            case .endsInSegmentHeader: "the file ends inside a segment header"
            case .segmentPastEnd: "a segment's length runs past the end of the file"
            case .segmentTooShort: "a segment's length is less than 2"
            }
        return PhotoWarning(
            .metadata,
            "the JPEG marker walk stopped early, at byte \(offset), because \(why), so no metadata after that point is read."
        )
    }
}

/// Walks the markers of a JPEG file from SOI to the first SOS.
///
/// The walk is defensive: every length is checked against the bytes that are there, and a
/// malformed header ends the walk with `stop` set instead of trapping. The entropy-coded data
/// is left to libjpeg-turbo.
enum SegmentWalker {
    static func walk(_ bytes: UnsafeRawBufferPointer) -> JPEGLayout {
        var layout = JPEGLayout()
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == JPEGSegment.startOfImage else {
            layout.stop = WalkStop(reason: .noStartOfImage, offset: 0)
            return layout
        }
        var offset = 2
        while true {
            // Like libjpeg, skip bytes that are not a marker (it warns "extraneous bytes before
            // marker" and goes on), so that a little garbage does not hide the metadata.
            while offset < bytes.count, bytes[offset] != 0xFF {
                layout.extraneousByteCount += 1
                offset += 1
            }
            // Markers may be preceded by any number of 0xFF fill bytes.
            guard offset < bytes.count else {
                layout.stop = WalkStop(reason: .endsBeforeImageData, offset: offset)
                return layout
            }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else {
                layout.stop = WalkStop(reason: .endsBeforeImageData, offset: offset)
                return layout
            }
            let marker = bytes[offset]
            let start = offset - 1
            offset += 1
            // FF 00 is no marker: libjpeg's next_marker discards both bytes and looks on (and so
            // does exiftool), so a COM or APP1 after them is still found.
            if marker == 0x00 {
                layout.extraneousByteCount += 2
                continue
            }
            // Standalone markers carry no length.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            if marker == JPEGSegment.endOfImage || marker == JPEGSegment.startOfImage {
                layout.stop = WalkStop(reason: .unexpectedMarker(marker), offset: start)
                return layout
            }
            guard let length = ByteReader(bytes).uint16(at: offset).map(Int.init) else {
                layout.stop = WalkStop(reason: .endsInSegmentHeader, offset: start)
                return layout
            }
            // libjpeg skips a length below 2 in an APPn or COM and reads on; exiftool stops, and
            // with it what it reads after that point. We stop as exiftool does, and say so.
            guard length >= 2 else {
                layout.stop = WalkStop(reason: .segmentTooShort(length: length), offset: start)
                return layout
            }
            guard offset + length <= bytes.count else {
                layout.stop = WalkStop(reason: .segmentPastEnd(length: length), offset: start)
                return layout
            }
            let segment = JPEGSegment(
                marker: marker, bytes: start..<(offset + length), payload: (offset + 2)..<(offset + length))
            layout.segments.append(segment)
            offset += length
            if segment.isStartOfFrame, layout.frame == nil {
                layout.frame = frameHeader(segment, in: bytes)
            }
            if marker == JPEGSegment.startOfScan { return layout }
        }
    }

    private static func frameHeader(_ segment: JPEGSegment, in bytes: UnsafeRawBufferPointer) -> FrameHeader? {
        let p = segment.payload
        let fields = ByteReader(bytes, range: p)
        guard p.count >= 6, let height = fields.uint16(at: p.lowerBound + 1),
            let width = fields.uint16(at: p.lowerBound + 3)
        else { return nil }
        return FrameHeader(
            marker: segment.marker,
            precision: Int(bytes[p.lowerBound]),
            size: PixelSize(width: Int(width), height: Int(height)),
            componentCount: Int(bytes[p.lowerBound + 5]))
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes in `range`, copied.
    ///
    /// Through the pointer, never `Data(self[range])`: that reaches Foundation's `ContiguousBytes`
    /// conformance of `Slice` at run time, and Swift 6.3's runtime on Linux can hand one thread
    /// the generic metadata of `Slice<UnsafeRawBufferPointer>` while another is still completing
    /// it (two photos at once then crashed with "Index out of bounds", about once in 5,000 runs).
    func data(in range: Range<Int>) -> Data {
        guard let baseAddress, !range.isEmpty else { return Data() }
        return Data(bytes: baseAddress + range.lowerBound, count: range.count)
    }

    /// Whether the bytes in `range` start with `prefix`.
    func hasPrefix(_ prefix: [UInt8], at range: Range<Int>) -> Bool {
        guard range.count >= prefix.count else { return false }
        for (index, byte) in prefix.enumerated() where self[range.lowerBound + index] != byte { return false }
        return true
    }
}

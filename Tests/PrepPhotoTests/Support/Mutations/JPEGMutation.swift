import Foundation

/// One structure-aware way to damage a JPEG, chosen by a seeded generator, so that every
/// mutation of a fuzz run can be made again from its seed and number alone.
///
/// The kinds aim where decoders and metadata readers go wrong: the headers more than the image
/// data, segment lengths and order, the frame header's size and component count, the EXIF
/// block's offsets, counts and loops, ICC chunk numbering, and very large comments; in an Ultra
/// HDR file, the MPF index's image count, lengths and offsets (past the end, into the primary,
/// onto the index itself) and the gain map's frame size; the XMP values a gain map is read by
/// (hdrgm's, Apple's HDRGainMap and apdi:AuxiliaryImageType in an iPhone JPEG's gain map, the
/// container directory, HasExtendedXMP) and the Extended XMP chunks' GUIDs, lengths and offsets.
enum JPEGMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    case segmentLength(segment: Int, length: Int)
    case duplicateSegment(Int)
    case removeSegment(Int)
    case swapSegments(Int, Int)
    case frameSize(width: Int, height: Int)
    case componentCount(Int)
    case exifField(offset: Int, bytes: [UInt8])
    case iccChunk(offset: Int, sequence: UInt8, count: UInt8)
    case hugeComment(at: Int, copies: Int)
    case insertMarker(offset: Int, marker: UInt8)
    case mpfField(offset: Int, value: UInt32, isBigEndian: Bool)
    case gainMapFrameSize(width: Int, height: Int)
    /// An XMP value, or a field of an Extended XMP chunk, overwritten in place.
    case overwrite(what: String, offset: Int, bytes: [UInt8])

    static let insertedMarkers: [UInt8] = [0xD8, 0xD9, 0xDA, 0xC0, 0xC2, 0xC4, 0xDB, 0xDD, 0xE1, 0xE2, 0xFE, 0xD3]
    /// Sizes that sit on the edges of what decoders handle: tiny, odd, block-sized, huge.
    static let frameSides = [0, 1, 2, 7, 8, 9, 15, 16, 17, 255, 256, 4097, 16384, 65535]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> JPEGMutation {
        let layout = JPEGStructure(bytes)
        func offset(in range: Range<Int>) -> Int {
            range.isEmpty ? 0 : Int.random(in: range, using: &random)
        }
        func anyOffset() -> Int {
            Bool.random(using: &random) ? offset(in: 0..<layout.headerEnd) : offset(in: 0..<bytes.count)
        }
        func segment() -> Int { layout.segments.randomElement(using: &random)?.start ?? 2 }
        // Files without an MPF index or gain map XMP draw from the first 16 kinds only, so that
        // their mutations stay what they were before those kinds were added.
        let kinds = layout.mpfFields.isEmpty && layout.xmpValues.isEmpty && layout.extendedXMP.isEmpty ? 16 : 22
        while true {
            switch Int.random(in: 0..<kinds, using: &random) {
            case 0:
                return .truncate(length: anyOffset())
            case 1, 2:
                let count = Int.random(in: 1...4, using: &random)
                return .flip(
                    (0..<count).map { _ in (offset(in: 0..<layout.headerEnd), UInt8.random(in: 1...255, using: &random))
                    })
            case 3:
                guard layout.headerEnd < bytes.count else { continue }
                let count = Int.random(in: 1...4, using: &random)
                return .flip(
                    (0..<count).map { _ in
                        (
                            offset(in: layout.headerEnd..<bytes.count),
                            UInt8(1) << UInt8.random(in: 0...7, using: &random)
                        )
                    })
            case 4, 5:
                let start = segment()
                let current = start + 3 < bytes.count ? Int(bytes[start + 2]) << 8 | Int(bytes[start + 3]) : 0
                let lengths = [0, 1, 2, 3, 0xFFFF, Int.random(in: 0...0xFFFF, using: &random)]
                let length =
                    Bool.random(using: &random)
                    ? lengths.randomElement(using: &random)! : max(0, current + Int.random(in: -2...2, using: &random))
                return .segmentLength(segment: start, length: length)
            case 6:
                return .duplicateSegment(segment())
            case 7:
                return .removeSegment(segment())
            case 8:
                guard layout.segments.count >= 2 else { continue }
                let first = Int.random(in: 0..<(layout.segments.count - 1), using: &random)
                let second =
                    Bool.random(using: &random)
                    ? first + 1 : Int.random(in: (first + 1)..<layout.segments.count, using: &random)
                return .swapSegments(layout.segments[first].start, layout.segments[second].start)
            case 9:
                guard layout.frame != nil else { continue }
                func side() -> Int {
                    Bool.random(using: &random)
                        ? frameSides.randomElement(using: &random)! : Int.random(in: 0...0xFFFF, using: &random)
                }
                return .frameSize(width: side(), height: side())
            case 10:
                guard layout.frame != nil else { continue }
                return .componentCount([0, 1, 2, 3, 4, 5, 255].randomElement(using: &random)!)
            case 11, 12:
                guard let field = layout.exifFields.randomElement(using: &random) else { continue }
                return .exifField(offset: field.offset, bytes: field.mutatedValue(using: &random))
            case 13:
                guard let chunk = layout.iccChunks.randomElement(using: &random) else { continue }
                let values: [UInt8] = [0, 1, 2, 3, 255, UInt8.random(in: 0...255, using: &random)]
                return .iccChunk(
                    offset: chunk, sequence: values.randomElement(using: &random)!,
                    count: values.randomElement(using: &random)!)
            case 14:
                let places = [2, layout.firstScan ?? 2, segment()]
                return .hugeComment(
                    at: places.randomElement(using: &random)!, copies: Int.random(in: 1...3, using: &random))
            case 15:
                return .insertMarker(offset: anyOffset(), marker: insertedMarkers.randomElement(using: &random)!)
            case 16, 17:
                guard let field = layout.mpfFields.randomElement(using: &random) else { continue }
                let values: [Int] = [
                    0, 1, field.current - 1, field.current + 1, field.current * 2, 0xFFFF_FFFF, bytes.count, 5000,
                    layout.mpfOrigin.map { bytes.count - $0 } ?? 0, Int.random(in: 0...0xFFFF_FFFF, using: &random),
                ]
                let value = values.randomElement(using: &random)!
                return .mpfField(
                    offset: field.offset, value: UInt32(truncatingIfNeeded: value), isBigEndian: layout.mpfIsBigEndian)
            case 18:
                guard layout.gainMapFrame != nil else { continue }
                let sides = frameSides + [60000]
                return .gainMapFrameSize(
                    width: sides.randomElement(using: &random)!, height: sides.randomElement(using: &random)!)
            case 21:
                // The gain map made progressive (SOF2) and as large as the photo: libjpeg would
                // hold every coefficient of it.
                guard let gainMap = layout.gainMapFrame, let frame = layout.frame, gainMap + 9 <= bytes.count,
                    frame + 9 <= bytes.count
                else { continue }
                return .overwrite(
                    what: "gain map frame made progressive at the photo's size", offset: gainMap + 1,
                    bytes: [0xC2] + bytes[(gainMap + 2)..<(gainMap + 5)] + bytes[(frame + 5)..<(frame + 9)])
            case 19:
                guard let value = layout.xmpValues.randomElement(using: &random) else { continue }
                return .overwrite(
                    what: "XMP value", offset: value.lowerBound,
                    bytes: XMPValues.replacement(length: value.count, using: &random))
            default:
                // An Extended XMP chunk's GUID (one digit), the packet's length or the chunk's offset.
                guard let chunk = layout.extendedXMP.randomElement(using: &random) else { continue }
                let guid = chunk + ExtendedXMPLayout.signatureLength
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    return .overwrite(
                        what: "Extended XMP GUID", offset: guid + Int.random(in: 0..<32, using: &random),
                        bytes: [Array("0F7a-".utf8).randomElement(using: &random)!])
                default:
                    let values: [UInt32] = [0, 1, 100, 0xFFFF, 16 << 20, (16 << 20) + 1, 0xFFFF_FFFF]
                    let value = values.randomElement(using: &random)!
                    return .overwrite(
                        what: "Extended XMP length or offset",
                        offset: guid + 32 + 4 * Int.random(in: 0...1, using: &random),
                        bytes: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) })
                }
            }
        }
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        let layout = JPEGStructure(original)
        switch self {
        case .truncate(let length):
            bytes.removeSubrange(min(length, bytes.count)...)
        case .flip(let flips):
            for flip in flips where flip.offset < bytes.count { bytes[flip.offset] ^= flip.mask }
        case .segmentLength(let start, let length):
            guard start + 3 < bytes.count else { break }
            bytes[start + 2] = UInt8(length >> 8 & 0xFF)
            bytes[start + 3] = UInt8(length & 0xFF)
        case .duplicateSegment(let start):
            let range = layout.extent(ofSegmentAt: start)
            bytes.insert(contentsOf: original[range], at: range.upperBound)
        case .removeSegment(let start):
            bytes.removeSubrange(layout.extent(ofSegmentAt: start))
        case .swapSegments(let first, let second):
            let a = layout.extent(ofSegmentAt: first)
            let b = layout.extent(ofSegmentAt: second)
            guard a.upperBound <= b.lowerBound else { break }
            bytes =
                Array(original[..<a.lowerBound]) + original[b] + original[a.upperBound..<b.lowerBound] + original[a]
                + original[b.upperBound...]
        case .frameSize(let width, let height):
            guard let frame = layout.frame, frame + 8 < bytes.count else { break }
            bytes.replaceSubrange(
                (frame + 5)..<(frame + 9),
                with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        case .componentCount(let count):
            guard let frame = layout.frame, frame + 9 < bytes.count else { break }
            bytes[frame + 9] = UInt8(count)
        case .exifField(let offset, let value):
            for (index, byte) in value.enumerated() where offset + index < bytes.count { bytes[offset + index] = byte }
        case .iccChunk(let offset, let sequence, let count):
            guard offset + 1 < bytes.count else { break }
            bytes[offset] = sequence
            bytes[offset + 1] = count
        case .hugeComment(let offset, let copies):
            // The largest COM a JPEG can hold: 65533 bytes of text.
            let text = [UInt8](String(repeating: "huge comment ", count: 5041).utf8.prefix(65533))
            let segment: [UInt8] = [0xFF, 0xFE, 0xFF, 0xFF] + text
            for _ in 0..<copies { bytes.insert(contentsOf: segment, at: min(offset, bytes.count)) }
        case .insertMarker(let offset, let marker):
            bytes.insert(contentsOf: [0xFF, marker, 0x00, 0x04, 0x00, 0x00], at: min(offset, bytes.count))
        case .mpfField(let offset, let value, let isBigEndian):
            guard offset + 3 < bytes.count else { break }
            for index in 0..<4 {
                let shift = 8 * (isBigEndian ? 3 - index : index)
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
            }
        case .gainMapFrameSize(let width, let height):
            guard let frame = layout.gainMapFrame, frame + 8 < bytes.count else { break }
            bytes.replaceSubrange(
                (frame + 5)..<(frame + 9),
                with: [UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
        case .overwrite(_, let offset, let values):
            for (index, value) in values.enumerated() where offset + index < bytes.count {
                bytes[offset + index] = value
            }
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "cut to \(length) bytes"
        case .flip(let flips): "bytes flipped " + flips.map { "at \($0.offset) by \($0.mask)" }.joined(separator: ", ")
        case .segmentLength(let start, let length): "length of the segment at \(start) set to \(length)"
        case .duplicateSegment(let start): "segment at \(start) repeated"
        case .removeSegment(let start): "segment at \(start) removed"
        case .swapSegments(let first, let second): "segments at \(first) and \(second) swapped"
        case .frameSize(let width, let height): "frame size set to \(width)x\(height)"
        case .componentCount(let count): "frame component count set to \(count)"
        case .exifField(let offset, let bytes): "EXIF field at \(offset) set to \(bytes)"
        case .iccChunk(let offset, let sequence, let count): "ICC chunk at \(offset) numbered \(sequence) of \(count)"
        case .hugeComment(let offset, let copies): "\(copies) COM of 65533 bytes inserted at \(offset)"
        case .insertMarker(let offset, let marker): "FF \(String(marker, radix: 16)) 00 04 00 00 inserted at \(offset)"
        case .mpfField(let offset, let value, _): "MPF field at \(offset) set to \(value)"
        case .gainMapFrameSize(let width, let height): "gain map frame size set to \(width)x\(height)"
        case .overwrite(let what, let offset, let values):
            "\(what) at \(offset) set to " + values.map { String($0, radix: 16) }.joined(separator: " ")
        }
    }
}

/// Where the parts of a JPEG are, found by a walk of its own (apart from the code under test).
struct JPEGStructure {
    struct Segment {
        let start: Int
        let marker: UInt8
    }

    /// One field of the EXIF block worth damaging: an IFD's entry count, an entry's type, count
    /// or value offset, or a pointer to an IFD.
    struct EXIFField {
        enum Kind { case entryCount, type, componentCount, valueOffset, ifdPointer }
        let kind: Kind
        let offset: Int
        let isBigEndian: Bool
        /// Offsets that make loops: IFD0's and this field's own IFD's, relative to the TIFF header.
        let loopTargets: [Int]
        let current: Int

        func mutatedValue(using random: inout SplitMix64) -> [UInt8] {
            let width = kind == .entryCount || kind == .type ? 2 : 4
            let limit = width == 2 ? 0xFFFF : 0xFFFF_FFFF
            let candidates =
                [
                    0, 1, current + 1, current + 10, current * 2, limit, Int.random(in: 0...limit, using: &random),
                ] + loopTargets
            let value = min(candidates.randomElement(using: &random)!, limit)
            let bytes = (0..<width).map { UInt8(value >> (8 * $0) & 0xFF) }
            return isBigEndian ? bytes.reversed() : bytes
        }
    }

    private(set) var segments: [Segment] = []
    /// Where the first scan's entropy-coded data starts (the end of the file without one).
    private(set) var headerEnd: Int
    private(set) var firstScan: Int?
    /// The first SOF segment's start.
    private(set) var frame: Int?
    private(set) var exifFields: [EXIFField] = []
    /// The sequence-number byte of each ICC_PROFILE chunk.
    private(set) var iccChunks: [Int] = []
    /// The MPF index's 4-byte numbers worth damaging: the image count, and each entry's length
    /// and offset.
    private(set) var mpfFields: [(offset: Int, current: Int)] = []
    private(set) var mpfIsBigEndian = true
    /// The MPF payload's TIFF header, where its offsets count from.
    private(set) var mpfOrigin: Int?
    /// The gain map's SOF segment (the second MPF image's first frame header).
    private(set) var gainMapFrame: Int?
    /// The payloads of the XMP APP1 segments, the primary's (Extended XMP too) and the gain map's.
    private(set) var xmpRanges: [Range<Int>] = []
    /// Each Extended XMP chunk's payload start (its signature).
    private(set) var extendedXMP: [Int] = []
    /// The values of the XMP properties a gain map is read by (`XMPValues`).
    var xmpValues: [Range<Int>] { XMPValues.ranges(in: bytes, within: xmpRanges) }
    private let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        headerEnd = bytes.count
        var offset = 2
        while offset + 3 < bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD9 || marker == 0xD8 || (0xD0...0xD7).contains(marker) { break }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { break }
            segments.append(Segment(start: offset, marker: marker))
            let payload = (offset + 4)..<(offset + 2 + length)
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), frame == nil { frame = offset }
            if marker == 0xE1, bytes[payload].starts(with: Array("Exif\0\0".utf8)) {
                exifFields += Self.exifFields(in: bytes, tiffStart: payload.lowerBound + 6, end: payload.upperBound)
            }
            if marker == 0xE2, bytes[payload].starts(with: Array("ICC_PROFILE\0".utf8)), payload.count >= 14 {
                iccChunks.append(payload.lowerBound + 12)
            }
            if marker == 0xE1, bytes[payload].starts(with: Array("http://ns.adobe.com/".utf8)) {
                xmpRanges.append(payload)
                if bytes[payload].starts(with: ExtendedXMPLayout.signature), payload.count >= 75 {
                    extendedXMP.append(payload.lowerBound)
                }
            }
            if marker == 0xE2, mpfOrigin == nil, bytes[payload].starts(with: Array("MPF\0".utf8)) {
                findMPFFields(origin: payload.lowerBound + 4, end: payload.upperBound)
            }
            if marker == 0xDA {
                firstScan = firstScan ?? offset
                headerEnd = min(headerEnd, offset + 2 + length)
                // Later segments of a progressive file follow its entropy-coded data.
                offset = Self.nextMarker(in: bytes, after: offset + 2 + length)
                continue
            }
            offset += 2 + length
        }
    }

    /// Finds the image count and MP entries of the index whose TIFF header is at `origin`, and
    /// the second image's frame header.
    private mutating func findMPFFields(origin: Int, end: Int) {
        guard origin + 8 <= end else { return }
        let isBigEndian = bytes[origin] == 0x4D
        func read(_ offset: Int, _ width: Int) -> Int? {
            guard offset >= origin, offset + width <= end else { return nil }
            let slice = bytes[offset..<(offset + width)]
            return (isBigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let ifd = read(origin + 4, 4), let count = read(origin + ifd, 2) else { return }
        mpfOrigin = origin
        mpfIsBigEndian = isBigEndian
        var entries: (at: Int, count: Int)?
        for index in 0..<min(count, 16) {
            let field = origin + ifd + 2 + 12 * index
            guard let tag = read(field, 2), let value = read(field + 8, 4) else { break }
            if tag == 0xB001 { mpfFields.append((field + 8, value)) }
            if tag == 0xB002, let length = read(field + 4, 4) { entries = (origin + value, length / 16) }
        }
        guard let entries else { return }
        for image in 0..<min(entries.count, 16) {
            let entry = entries.at + 16 * image
            guard let size = read(entry + 4, 4), let offset = read(entry + 8, 4) else { break }
            mpfFields += [(entry + 4, size), (entry + 8, offset)]
            // The gain map: the second image, when it starts with SOI inside the file.
            let start = origin + offset
            if image == 1, start + 4 < bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 {
                var at = start + 2
                while at + 4 < bytes.count, bytes[at] == 0xFF, bytes[at + 1] != 0xDA {
                    let end = min(bytes.count, at + 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])))
                    if bytes[at + 1] == 0xE1, at + 4 <= end { xmpRanges.append((at + 4)..<end) }
                    if bytes[at + 1] == 0xC0 || bytes[at + 1] == 0xC2 {
                        gainMapFrame = at
                        break
                    }
                    at = end
                }
            }
        }
    }

    /// The bytes of the segment that starts at `start`: a scan's header and its entropy-coded
    /// data, else its declared length, cut to the file.
    func extent(ofSegmentAt start: Int) -> Range<Int> {
        guard start + 3 < bytes.count else { return start..<bytes.count }
        let length = Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        let end = min(bytes.count, start + 2 + length)
        guard bytes[start + 1] == 0xDA else { return start..<max(end, start) }
        return start..<Self.nextMarker(in: bytes, after: end)
    }

    private static func nextMarker(in bytes: [UInt8], after offset: Int) -> Int {
        var index = offset
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF, bytes[index + 1] != 0, !(0xD0...0xD7).contains(bytes[index + 1]) { return index }
            index += 1
        }
        return bytes.count
    }

    /// The fields of every IFD the block links (IFD0, IFD1, EXIF, GPS, interoperability),
    /// each visited once.
    private static func exifFields(in bytes: [UInt8], tiffStart: Int, end: Int) -> [EXIFField] {
        guard tiffStart + 8 <= end else { return [] }
        let isBigEndian = bytes[tiffStart] == 0x4D
        func read(_ offset: Int, _ width: Int) -> Int? {
            guard offset >= tiffStart, offset + width <= end else { return nil }
            let slice = bytes[offset..<(offset + width)]
            return (isBigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }
        guard let ifd0 = read(tiffStart + 4, 4) else { return [] }
        var fields = [
            EXIFField(
                kind: .ifdPointer, offset: tiffStart + 4, isBigEndian: isBigEndian, loopTargets: [], current: ifd0)
        ]
        var pending = [ifd0]
        var visited = Set<Int>()
        while let ifd = pending.popLast(), visited.count < 16 {
            guard visited.insert(ifd).inserted else { continue }
            let start = tiffStart + ifd
            guard let count = read(start, 2) else { continue }
            let loops = [ifd0, ifd]
            fields.append(
                EXIFField(kind: .entryCount, offset: start, isBigEndian: isBigEndian, loopTargets: [], current: count))
            for index in 0..<min(count, 64) {
                let entry = start + 2 + 12 * index
                guard let tag = read(entry, 2), let type = read(entry + 2, 2), let components = read(entry + 4, 4),
                    let value = read(entry + 8, 4)
                else { break }
                fields.append(
                    EXIFField(kind: .type, offset: entry + 2, isBigEndian: isBigEndian, loopTargets: [], current: type))
                fields.append(
                    EXIFField(
                        kind: .componentCount, offset: entry + 4, isBigEndian: isBigEndian, loopTargets: [],
                        current: components))
                if [0x8769, 0x8825, 0xA005].contains(tag) {
                    pending.append(value)
                    fields.append(
                        EXIFField(
                            kind: .ifdPointer, offset: entry + 8, isBigEndian: isBigEndian, loopTargets: loops,
                            current: value))
                } else if components * [0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8][min(type, 12)] > 4 {
                    fields.append(
                        EXIFField(
                            kind: .valueOffset, offset: entry + 8, isBigEndian: isBigEndian, loopTargets: loops,
                            current: value))
                }
            }
            let next = start + 2 + 12 * count
            if let nextIFD = read(next, 4) {
                fields.append(
                    EXIFField(
                        kind: .ifdPointer, offset: next, isBigEndian: isBigEndian, loopTargets: loops, current: nextIFD)
                )
                if nextIFD != 0 { pending.append(nextIFD) }
            }
        }
        return fields
    }
}

/// Where an Extended XMP chunk's fields are (Adobe's XMP Specification Part 3, 1.1.3.1): the
/// signature, then the GUID (32 digits), the packet's length and the chunk's offset.
enum ExtendedXMPLayout {
    static let signature = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    static let signatureLength = signature.count
}

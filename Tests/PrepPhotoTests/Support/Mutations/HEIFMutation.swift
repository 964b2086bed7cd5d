import Foundation

// Structure-aware mutations of a HEIF file for the fuzz test: the boxes are found by a walk of
// their own (not ImagePrep's), and a mutation damages a box header or a field of the meta box,
// or cuts, flips, duplicates or removes, as `JPEGMutation` does for JPEG; or aims at what an HDR
// gain map is read by: the ISO 21496-1 `tmap` item's metadata, an auxiliary image's type (Apple's,
// Samsung's, alpha, iOS 26's mattes), the XMP values on the gain map and the photo.

/// Where the boxes of a HEIF file are: the top level, and inside the boxes that hold boxes; and
/// where the structures are that a mutation aims at (each box's payload by type, the reference
/// entries of `iref`, the items' data as `iloc` places it).
struct HEIFBoxes {
    /// Offsets of box headers, and where the `meta` box lies.
    var headers: [Int] = []
    var meta: Range<Int> = 0..<0
    /// Every box found, by type: its header's offset and its payload.
    var byType: [String: [(header: Int, payload: Range<Int>)]] = [:]
    /// The entries of `iref` (`dimg`, `auxl`, `thmb`, `cdsc`, ...): header and payload.
    var references: [(header: Int, payload: Range<Int>)] = []
    /// The items' types (`infe` version 2) and their first extent (`iloc` versions 0 and 1, in
    /// the file or in `idat`).
    var itemTypes: [Int: String] = [:]
    var itemData: [Int: Range<Int>] = [:]

    /// Boxes that hold boxes, and how many bytes come before their first child.
    static let containers: [String: Int] = ["meta": 4, "iprp": 0, "ipco": 0, "iinf": 6, "iref": 4, "dinf": 0]

    init(_ bytes: [UInt8]) {
        walk(bytes, 0..<bytes.count, parent: "")
        readItems(bytes)
    }

    private mutating func walk(_ bytes: [UInt8], _ range: Range<Int>, parent: String) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Self.number(bytes, offset, 4)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { return }
            headers.append(offset)
            let payload = (offset + 8)..<(offset + size)
            byType[type, default: []].append((offset, payload))
            if parent == "iref" { references.append((offset, payload)) }
            if type == "meta" { meta = offset..<(offset + size) }
            if let skip = Self.containers[type], payload.count >= skip {
                walk(bytes, (payload.lowerBound + skip)..<payload.upperBound, parent: type)
            }
            offset += size
        }
    }

    /// Item types from `infe` and first extents from `iloc`, as far as they read.
    private mutating func readItems(_ bytes: [UInt8]) {
        for entry in byType["infe"] ?? [] where entry.payload.count >= 12 && bytes[entry.payload.lowerBound] == 2 {
            let start = entry.payload.lowerBound
            itemTypes[Self.number(bytes, start + 4, 2)] = String(
                decoding: bytes[(start + 8)..<(start + 12)], as: UTF8.self)
        }
        guard let iloc = byType["iloc"]?.first?.payload, iloc.count >= 8 else { return }
        let version = Int(bytes[iloc.lowerBound])
        guard version <= 1 else { return }
        let sizes = Self.number(bytes, iloc.lowerBound + 4, 2)
        let (offsetSize, lengthSize, baseSize) = (sizes >> 12 & 15, sizes >> 8 & 15, sizes >> 4 & 15)
        let indexSize = version == 1 ? sizes & 15 : 0
        var position = iloc.lowerBound + 8
        func read(_ size: Int) -> Int? {
            guard position + size <= iloc.upperBound else { return nil }
            defer { position += size }
            return Self.number(bytes, position, size)
        }
        let idat = byType["idat"]?.first?.payload.lowerBound ?? 0
        for _ in 0..<Self.number(bytes, iloc.lowerBound + 6, 2) {
            guard let id = read(2), let method = version == 0 ? 0 : read(2), read(2) != nil, let base = read(baseSize),
                let extents = read(2)
            else { return }
            for extent in 0..<extents {
                guard read(indexSize) != nil, let offset = read(offsetSize), let length = read(lengthSize) else {
                    return
                }
                let start = (method & 15 == 1 ? idat : 0) + base + offset
                if extent == 0, start < bytes.count { itemData[id] = start..<min(bytes.count, start + length) }
            }
        }
    }

    static func number(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> Int {
        bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | Int($1) }
    }
}

/// One way to damage a HEIF file, chosen by the seeded generator and described in failures.
enum HEIFMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    case boxSize(header: Int, size: UInt32)
    case field(offset: Int, value: UInt32)
    case duplicateBox(header: Int)
    case removeBox(header: Int)
    /// A value written over a field of a named structure: `what` says which.
    case structure(what: String, offset: Int, bytes: [UInt8])
    /// The targets of the reference entry at `entry` in the `iref` box at `iref` split in two,
    /// the second half in a second `iref` box (which libheif 1.15 does not read).
    case splitReferences(iref: Int, entry: Int)

    /// Widths, heights, offsets and lengths at their edges.
    static let interesting32: [UInt32] = [0, 1, 2, 0xFF, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0xFFFF_FFF0, 0xFFFF_FFFF]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> HEIFMutation {
        let boxes = HEIFBoxes(bytes)
        // Half the offsets fall in the meta box, where a byte means more than in the image data.
        func offset() -> Int {
            Bool.random(using: &random) && !boxes.meta.isEmpty
                ? Int.random(in: boxes.meta, using: &random) : Int.random(in: 0..<bytes.count, using: &random)
        }
        let header = boxes.headers.randomElement(using: &random) ?? 0
        let size = header + 4 <= bytes.count ? bytes[header..<(header + 4)].reduce(0) { $0 << 8 | UInt32($1) } : 0
        let choice = Int.random(in: 0..<27, using: &random)
        if choice >= 10, let aimed = structured(bytes, boxes, choice - 10, using: &random) { return aimed }
        switch choice % 10 {
        case 0, 1:
            return .truncate(length: offset())
        case 2, 3:
            let count = Int.random(in: 1...4, using: &random)
            return .flip((0..<count).map { _ in (offset(), UInt8.random(in: 1...255, using: &random)) })
        case 4, 5:
            let sizes: [UInt32] = [0, 1, 7, 8, 0xFFFF_FFFF, UInt32.random(in: 0...0xFFFF, using: &random)]
            let changed =
                Bool.random(using: &random)
                ? sizes.randomElement(using: &random)!
                : UInt32(max(0, Int(size) + Int.random(in: -9...9, using: &random)))
            return .boxSize(header: header, size: changed)
        case 6, 7:
            // A 32-bit field in the meta box: a width, an offset, a length, an item number.
            let values: [UInt32] = [
                0, 1, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32.random(in: 0...UInt32.max, using: &random),
            ]
            let start = boxes.meta.isEmpty ? 0 : Int.random(in: boxes.meta, using: &random)
            return .field(offset: start, value: values.randomElement(using: &random)!)
        case 8:
            return .duplicateBox(header: header)
        default:
            return .removeBox(header: header)
        }
    }

    /// A mutation aimed at one structure the decode plan depends on; nil when the file has none.
    private static func structured(
        _ bytes: [UInt8], _ boxes: HEIFBoxes, _ kind: Int, using random: inout SplitMix64
    ) -> HEIFMutation? {
        func big(_ value: UInt32, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
        }
        func anyItem() -> UInt32 {
            // The items there are, the primary among them, and numbers that name none.
            let ids = Array(boxes.itemTypes.keys) + [0, 0xFFFF, (boxes.itemTypes.keys.max() ?? 0) + 1]
            return UInt32(ids.randomElement(using: &random)!)
        }
        func payload(_ type: String) -> Range<Int>? { boxes.byType[type]?.randomElement(using: &random)?.payload }
        switch kind {
        case 0:  // ispe: its width or its height (after the full box's 4 bytes)
            guard let ispe = payload("ispe"), ispe.count >= 12 else { return nil }
            return .structure(
                what: "ispe", offset: ispe.lowerBound + 4 + 4 * Int.random(in: 0...1, using: &random),
                bytes: big(interesting32.randomElement(using: &random)!, 4))
        case 1:  // iloc: an item number, a count, an offset or a length, on a 16-bit boundary
            guard let iloc = payload("iloc"), iloc.count > 10 else { return nil }
            let at = iloc.lowerBound + 8 + 2 * Int.random(in: 0..<((iloc.count - 10) / 2), using: &random)
            let wide = Bool.random(using: &random) && at + 4 <= iloc.upperBound
            let value = wide ? interesting32.randomElement(using: &random)! : anyItem()
            return .structure(what: "iloc", offset: at, bytes: big(value, wide ? 4 : 2))
        case 2:  // iref: an entry's kind
            guard let entry = boxes.references.randomElement(using: &random) else { return nil }
            let kind = ["dimg", "auxl", "thmb", "cdsc", "prem", "base", "skip"].randomElement(using: &random)!
            return .structure(what: "iref kind", offset: entry.header + 4, bytes: Array(kind.utf8))
        case 3:  // iref: an entry's source or one of its targets
            guard let entry = boxes.references.randomElement(using: &random), entry.payload.count >= 6 else {
                return nil
            }
            let slots = [0] + (4..<entry.payload.count).filter { $0 % 2 == 0 }
            return .structure(
                what: "iref item", offset: entry.payload.lowerBound + slots.randomElement(using: &random)!,
                bytes: big(anyItem(), 2))
        case 4:  // a grid's description: flags (its 32-bit form), rows, columns, sizes
            guard let id = boxes.itemTypes.first(where: { $0.value == "grid" })?.key, let data = boxes.itemData[id],
                data.count >= 8
            else { return nil }
            let at = data.lowerBound + Int.random(in: 1..<data.count, using: &random)
            let value = [0, 1, 0xFF, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
            return .structure(what: "grid description", offset: at, bytes: [UInt8(value)])
        case 5:  // pitm: the primary item
            guard let pitm = payload("pitm"), pitm.count >= 6 else { return nil }
            return .structure(what: "pitm", offset: pitm.lowerBound + 4, bytes: big(anyItem(), 2))
        case 6:  // ipma: an item number, a count or a property index (with its essential bit)
            guard let ipma = payload("ipma"), ipma.count > 8 else { return nil }
            let at = Int.random(in: (ipma.lowerBound + 4)..<ipma.upperBound, using: &random)
            return .structure(what: "ipma", offset: at, bytes: [UInt8.random(in: 0...255, using: &random)])
        case 7:  // hvcC or av1C: the decoder configuration
            guard let configuration = payload("hvcC") ?? payload("av1C"), !configuration.isEmpty else { return nil }
            let at = Int.random(in: configuration, using: &random)
            return .structure(
                what: "decoder configuration", offset: at, bytes: [UInt8.random(in: 0...255, using: &random)])
        case 8:  // auxC: the auxiliary image's kind, or a reference turned into auxl toward the primary
            // Or, half the time, the Apple maker note an HDR gain map's headroom is read from: its
            // header, its IFD, HDRHeadroom's and HDRGain's values.
            if let note = bytes.firstRange(of: Array("Apple iOS\0".utf8)), Bool.random(using: &random) {
                let at = Int.random(in: note.lowerBound..<min(bytes.count, note.lowerBound + 1024), using: &random)
                return .structure(
                    what: "Apple maker note", offset: at, bytes: [UInt8.random(in: 0...255, using: &random)])
            }
            if let auxC = payload("auxC"), auxC.count > 4 {
                let at = Int.random(in: (auxC.lowerBound + 4)..<auxC.upperBound, using: &random)
                return .structure(what: "auxC", offset: at, bytes: [UInt8.random(in: 0...255, using: &random)])
            }
            guard let entry = boxes.references.randomElement(using: &random) else { return nil }
            return .structure(what: "iref kind", offset: entry.header + 4, bytes: Array("auxl".utf8))
        case 9:  // the tmap item's metadata: its version, flags, a numerator or a denominator
            guard let id = boxes.itemTypes.first(where: { $0.value == "tmap" })?.key, let data = boxes.itemData[id],
                !data.isEmpty
            else { return nil }
            let at = data.lowerBound + Int.random(in: 0..<min(data.count, 64), using: &random)
            let value = [0, 1, 0x04, 0x08, 0x40, 0x80, 0xFF, UInt8.random(in: 0...255, using: &random)]
            return .structure(what: "tmap metadata", offset: at, bytes: [value.randomElement(using: &random)!])
        case 10:  // an auxiliary image's type, as long as the box allows, NUL-terminated when shorter
            guard let auxC = payload("auxC"), auxC.count > 5 else { return nil }
            let type = [
                "urn:com:apple:photo:2020:aux:hdrgainmap", "urn:com:samsung:photo:2024:aux:hdrgainmap",
                "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:2",
                "urn:com:apple:photo:2020:aux:semanticskymatte",
                "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "",
            ].randomElement(using: &random)!
            let room = auxC.count - 4
            return .structure(
                what: "auxC type", offset: auxC.lowerBound + 4, bytes: Array((Array(type.utf8) + [0]).prefix(room)))
        case 11:  // a value of the XMP a gain map is read by, on the gain map or the photo
            let xmp = boxes.itemTypes.filter { $0.value == "mime" }.compactMap { boxes.itemData[$0.key] }
            guard let value = XMPValues.ranges(in: bytes, within: xmp).randomElement(using: &random) else {
                return nil
            }
            return .structure(
                what: "XMP value", offset: value.lowerBound,
                bytes: XMPValues.replacement(length: value.count, using: &random))
        case 12:  // an item's type
            guard let infe = payload("infe"), infe.count >= 12 else { return nil }
            let type = ["hvc1", "av01", "grid", "iovl", "iden", "Exif", "mime", "tmap"].randomElement(using: &random)!
            return .structure(what: "item type", offset: infe.lowerBound + 8, bytes: Array(type.utf8))
        case 13:  // a gain map (or any image) as large as the photo: the largest ispe's size on another
            let sizes = (boxes.byType["ispe"] ?? []).filter { $0.payload.count >= 12 }
            guard sizes.count >= 2,
                let largest = sizes.max(by: {
                    number(bytes, $0.payload.lowerBound + 4, 4) * number(bytes, $0.payload.lowerBound + 8, 4)
                        < number(bytes, $1.payload.lowerBound + 4, 4) * number(bytes, $1.payload.lowerBound + 8, 4)
                }),
                let other = sizes.filter({ $0.header != largest.header }).randomElement(using: &random)
            else { return nil }
            return .structure(
                what: "ispe as large as the photo's", offset: other.payload.lowerBound + 4,
                bytes: Array(bytes[(largest.payload.lowerBound + 4)..<(largest.payload.lowerBound + 12)]))
        case 14:  // a grid naming one tile over and over: every target of a dimg entry its first
            guard
                let entry = boxes.references.filter({ isDimg(bytes, $0) && $0.payload.count >= 8 })
                    .randomElement(using: &random)
            else { return nil }
            let first = Array(bytes[(entry.payload.lowerBound + 4)..<(entry.payload.lowerBound + 6)])
            let count = (entry.payload.count - 4) / 2
            return .structure(
                what: "dimg targets all its first", offset: entry.payload.lowerBound + 4,
                bytes: Array((0..<count).map { _ in first }.joined()))
        case 15:  // a damaged slice: part of a coded image's data zeroed, its NAL lengths kept
            let coded = boxes.itemTypes.filter { ["hvc1", "av01"].contains($0.value) }.compactMap {
                boxes.itemData[$0.key]
            }
            guard let data = coded.randomElement(using: &random), data.count > 16 else { return nil }
            // An AV1 image's headers: a byte of its first OBUs (temporal delimiter, sequence
            // header, frame header) changed, so that dav1d refuses the data or decodes another
            // picture (size, depth, layout, colour) than the item declares, half the time.
            let isAV1 = boxes.itemTypes.contains { $0.value == "av01" && boxes.itemData[$0.key] == data }
            if isAV1, Bool.random(using: &random) {
                let offset = data.lowerBound + Int.random(in: 0..<min(32, data.count), using: &random)
                return .structure(
                    what: "AV1 header byte changed", offset: offset, bytes: [UInt8.random(in: 0...255, using: &random)])
            }
            let start = data.lowerBound + 8 + Int.random(in: 0..<(data.count - 8) / 2, using: &random)
            let length = Int.random(in: 1...(data.upperBound - start), using: &random)
            return .structure(what: "slice data zeroed", offset: start, bytes: [UInt8](repeating: 0, count: length))
        default:  // references split over two iref boxes
            guard let iref = boxes.byType["iref"]?.first,
                let entry = boxes.references.filter({
                    iref.payload.contains($0.header) && $0.payload.count >= 8
                }).randomElement(using: &random)
            else { return nil }
            return .splitReferences(iref: iref.header, entry: entry.header)
        }
    }

    private static func isDimg(_ bytes: [UInt8], _ entry: (header: Int, payload: Range<Int>)) -> Bool {
        bytes[(entry.header + 4)..<(entry.header + 8)].elementsEqual("dimg".utf8)
    }

    private static func number(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> Int {
        HEIFBoxes.number(bytes, offset, size)
    }

    /// `original` with the targets of the entry at `entry` (16-bit item numbers, `iref` version
    /// 0) split in two, the second half in a new `iref` box after the first; the `meta` box and
    /// every `iloc` offset past it moved by the bytes added. Unchanged when it cannot be done.
    static func splittingReferences(_ original: [UInt8], iref: Int, entry: Int) -> [UInt8] {
        let boxes = HEIFBoxes(original)
        let irefSize = number(original, iref, 4)
        let entrySize = number(original, entry, 4)
        guard original[iref + 8] == 0, irefSize >= 12, entrySize >= 14, !boxes.meta.isEmpty,
            number(original, boxes.meta.lowerBound, 4) >= 8
        else { return original }
        let count = number(original, entry + 10, 2)
        guard count >= 2, 12 + 2 * count <= entrySize else { return original }
        let kept = count / 2
        let moved = original[(entry + 12 + 2 * kept)..<(entry + 12 + 2 * count)]
        func big(_ value: Int, _ size: Int) -> [UInt8] {
            (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
        }
        var first = Array(original[iref..<(iref + irefSize)])
        let at = entry - iref
        first.removeSubrange((at + 12 + 2 * kept)..<(at + 12 + 2 * count))
        first.replaceSubrange(at..<(at + 4), with: big(entrySize - moved.count, 4))
        first.replaceSubrange((at + 10)..<(at + 12), with: big(kept, 2))
        first.replaceSubrange(0..<4, with: big(first.count, 4))
        let secondEntry =
            big(12 + moved.count, 4) + original[(entry + 4)..<(entry + 10)] + big(count - kept, 2) + moved
        let second = big(12 + secondEntry.count, 4) + Array("iref".utf8) + [0, 0, 0, 0] + secondEntry
        let end = iref + irefSize
        let delta = first.count + second.count - irefSize
        var bytes = Array(original[..<iref]) + first + second + original[end...]
        func shifted(_ offset: Int) -> Int { offset >= end ? offset + delta : offset }
        let meta = boxes.meta.lowerBound
        bytes.replaceSubrange(meta..<(meta + 4), with: big(number(original, meta, 4) + delta, 4))
        // iloc's file offsets (construction method 0) past the insertion move with the data.
        guard let iloc = boxes.byType["iloc"]?.first?.payload, iloc.count >= 8, original[iloc.lowerBound] <= 1 else {
            return bytes
        }
        let version = Int(original[iloc.lowerBound])
        let sizes = number(original, iloc.lowerBound + 4, 2)
        let (offsetSize, lengthSize, baseSize) = (sizes >> 12 & 15, sizes >> 8 & 15, sizes >> 4 & 15)
        let indexSize = version == 1 ? sizes & 15 : 0
        var position = iloc.lowerBound + 8
        func field(_ size: Int) -> (at: Int, value: Int)? {
            guard position + size <= iloc.upperBound else { return nil }
            defer { position += size }
            return (position, number(original, position, size))
        }
        func shift(_ field: (at: Int, value: Int), size: Int) {
            guard size > 0, field.value + delta < 1 << (8 * size) else { return }
            bytes.replaceSubrange(shifted(field.at)..<(shifted(field.at) + size), with: big(field.value + delta, size))
        }
        for _ in 0..<number(original, iloc.lowerBound + 6, 2) {
            guard field(2) != nil, let method = version == 0 ? (0, 0) : field(2), field(2) != nil,
                let base = field(baseSize), let extents = field(2)
            else { return bytes }
            let inFile = method.value & 15 == 0
            if inFile, baseSize > 0, base.value >= end { shift(base, size: baseSize) }
            for _ in 0..<extents.value {
                guard field(indexSize) != nil, let offset = field(offsetSize), field(lengthSize) != nil else {
                    return bytes
                }
                if inFile, base.value < end, base.value + offset.value >= end { shift(offset, size: offsetSize) }
            }
        }
        return bytes
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        func boxRange(_ header: Int) -> Range<Int> {
            let size = bytes[header..<(header + 4)].reduce(0) { $0 << 8 | Int($1) }
            return header..<min(bytes.count, header + max(8, size))
        }
        func put(_ value: UInt32, at offset: Int) {
            for index in 0..<4 where offset + index < bytes.count {
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index))
            }
        }
        switch self {
        case .truncate(let length): bytes = Array(bytes.prefix(length))
        case .flip(let flips): for flip in flips where flip.offset < bytes.count { bytes[flip.offset] ^= flip.mask }
        case .boxSize(let header, let size): put(size, at: header)
        case .field(let offset, let value): put(value, at: offset)
        case .duplicateBox(let header):
            bytes.insert(contentsOf: bytes[boxRange(header)], at: boxRange(header).upperBound)
        case .removeBox(let header): bytes.removeSubrange(boxRange(header))
        case .structure(_, let offset, let values):
            for (index, value) in values.enumerated() where offset + index < bytes.count {
                bytes[offset + index] = value
            }
        case .splitReferences(let iref, let entry): bytes = Self.splittingReferences(original, iref: iref, entry: entry)
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "truncated to \(length) bytes"
        case .flip(let flips): "flipped " + flips.map { "\($0.offset)^\($0.mask)" }.joined(separator: ",")
        case .boxSize(let header, let size): "box at \(header) sized \(size)"
        case .field(let offset, let value): "\(value) written at \(offset)"
        case .duplicateBox(let header): "box at \(header) duplicated"
        case .removeBox(let header): "box at \(header) removed"
        case .structure(let what, let offset, let values):
            values.count > 16
                ? "\(what) at \(offset), \(values.count) bytes"
                : "\(what) at \(offset) set to \(values.map { String($0, radix: 16) }.joined(separator: " "))"
        case .splitReferences(let iref, let entry): "iref entry at \(entry) split into a second iref after \(iref)"
        }
    }
}

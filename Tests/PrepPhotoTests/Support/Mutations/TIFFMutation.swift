import Foundation

/// Where a TIFF's or BigTIFF's IFD0 is and what is in it, by a walk of its own (not ImagePrep's):
/// each entry's offset, tag, type, count and where its value lies.
struct TIFFLayout {
    struct Entry {
        let offset: Int
        let tag: Int
        let type: Int
        let count: Int
        /// Where the value is (inside the entry or at its offset), clamped to the file.
        let value: Int
    }

    var isBigEndian = false
    var isBigTIFF = false
    var ifd0 = 0
    /// Where IFD0's link to the next IFD is.
    var nextLink = 0
    var entries: [Entry] = []

    static let typeSizes = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8,
    ]

    init(_ bytes: [UInt8]) {
        guard bytes.count >= 16 else { return }
        isBigEndian = bytes[0] == 0x4D
        isBigTIFF = number(bytes, 2, 2) == 43
        ifd0 = number(bytes, isBigTIFF ? 8 : 4, isBigTIFF ? 8 : 4)
        let countSize = isBigTIFF ? 8 : 2
        let entrySize = isBigTIFF ? 20 : 12
        let count = number(bytes, ifd0, countSize)
        guard ifd0 > 0, count <= 4096, ifd0 + countSize + count * entrySize + (isBigTIFF ? 8 : 4) <= bytes.count else {
            return
        }
        nextLink = ifd0 + countSize + count * entrySize
        for index in 0..<count {
            let at = ifd0 + countSize + index * entrySize
            let type = number(bytes, at + 2, 2)
            let valueCount = number(bytes, at + 4, isBigTIFF ? 8 : 4)
            let field = at + (isBigTIFF ? 12 : 8)
            let size = (Self.typeSizes[type] ?? 1) * valueCount
            let value = size <= (isBigTIFF ? 8 : 4) ? field : number(bytes, field, isBigTIFF ? 8 : 4)
            entries.append(
                Entry(
                    offset: at, tag: number(bytes, at, 2), type: type, count: valueCount, value: min(value, bytes.count)
                ))
        }
    }

    func number(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> Int {
        guard offset >= 0, offset + size <= bytes.count else { return 0 }
        var value = 0
        for index in 0..<size { value = value << 8 | Int(bytes[offset + (isBigEndian ? index : size - 1 - index)]) }
        return value
    }

    /// `value` as `size` bytes in the file's order.
    func encode(_ value: Int, size: Int) -> [UInt8] {
        let little = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
        return isBigEndian ? little.reversed() : little
    }

    func entry(_ tag: Int) -> Entry? { entries.first { $0.tag == tag } }

    /// The writes that set every value of `entry` (an integer array) to `value`.
    func fill(_ entry: Entry, with value: Int) -> [(offset: Int, bytes: [UInt8])] {
        let size = Self.typeSizes[entry.type] ?? 4
        guard [1, 2, 4, 8].contains(size) else { return [] }
        return (0..<min(entry.count, 4096)).map { (entry.value + $0 * size, encode(value, size: size)) }
    }
}

/// One structure-aware way to damage a TIFF for the fuzz test: what libtiff's CVEs were made of.
/// IFD loops (IFD0 linking to itself, the Exif IFD pointing at IFD0), strip and tile offsets and
/// byte counts past the end or huge, a chain of up to 1,000,000 pages, a Deflate strip that
/// inflates without end, huge declared sizes (width, height, rows per strip, tile sides, samples,
/// bits), an entry's type, count or offset changed, an entry count of 65535, cuts and flips.
enum TIFFMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    /// Bytes written over the file and appended to it, named by what they do.
    case edit(what: String, writes: [(offset: Int, bytes: [UInt8])], appended: [UInt8])

    static let sizeTags = [256, 257, 278, 322, 323, 258, 277, 338, 284, 317]
    static let hugeValues = [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 255, 65_535, 65_536, 0x7FFF_FFFF, 0xFFFF_FFFF, 1 << 20]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> TIFFMutation {
        let layout = TIFFLayout(bytes)
        let linkSize = layout.isBigTIFF ? 8 : 4
        func pick(_ tags: [Int]) -> TIFFLayout.Entry? {
            layout.entries.filter { tags.contains($0.tag) }.randomElement(using: &random)
        }
        while true {
            switch Int.random(in: 0..<12, using: &random) {
            case 0:
                return .truncate(length: Int.random(in: 0..<bytes.count, using: &random))
            case 1:
                let count = Int.random(in: 1...6, using: &random)
                let end = max(1, min(bytes.count, layout.nextLink + 64))
                return .flip(
                    (0..<count).map { _ in
                        (Int.random(in: 0..<end, using: &random), UInt8.random(in: 1...255, using: &random))
                    })
            case 2:  // IFD0 links to itself, or to the IFD before it, or the Exif IFD points at IFD0.
                guard layout.nextLink > 0 else { continue }
                if let exif = layout.entry(0x8769), Bool.random(using: &random) {
                    return .edit(
                        what: "Exif IFD pointer to IFD0", writes: layout.fill(exif, with: layout.ifd0), appended: [])
                }
                return .edit(
                    what: "IFD0 linking to itself",
                    writes: [(layout.nextLink, layout.encode(layout.ifd0, size: linkSize))], appended: [])
            case 3:  // Strip or tile offsets past the end, or into the header.
                guard let entry = pick([273, 324]) else { continue }
                let value = [bytes.count, bytes.count + 1, 0xFFFF_FFFF, 0, 8].randomElement(using: &random)!
                return .edit(
                    what: "strip/tile offsets = \(value)", writes: layout.fill(entry, with: value), appended: [])
            case 4:  // Byte counts huge, zero or past the end.
                guard let entry = pick([279, 325]) else { continue }
                let value = [0, 1, bytes.count, 0x7FFF_FFFF, 0xFFFF_FFFF].randomElement(using: &random)!
                return .edit(what: "byte counts = \(value)", writes: layout.fill(entry, with: value), appended: [])
            case 5:  // A chain of pages: IFDs of no entries, each linking to the next.
                guard layout.nextLink > 0 else { continue }
                let pages = [2, 1000, 65_536, 1_000_000].randomElement(using: &random)!
                let ifdSize = (layout.isBigTIFF ? 8 : 2) + linkSize
                var chain = [UInt8]()
                chain.reserveCapacity(pages * ifdSize)
                for page in 0..<pages {
                    chain += layout.encode(0, size: layout.isBigTIFF ? 8 : 2)
                    chain += layout.encode(page == pages - 1 ? 0 : bytes.count + (page + 1) * ifdSize, size: linkSize)
                }
                return .edit(
                    what: "\(pages) pages", writes: [(layout.nextLink, layout.encode(bytes.count, size: linkSize))],
                    appended: chain)
            case 6:  // Every strip or tile a Deflate stream that never ends.
                guard let offsets = pick([273, 324]), let compression = layout.entry(259) else { continue }
                let counts = layout.entry(offsets.tag == 273 ? 279 : 325)
                let bomb = endlessDeflate(kilobytes: Int.random(in: 1...64, using: &random))
                let writes =
                    layout.fill(compression, with: 8) + layout.fill(offsets, with: bytes.count)
                    + (counts.map { layout.fill($0, with: bomb.count) } ?? [])
                return .edit(what: "an endless Deflate strip of \(bomb.count) bytes", writes: writes, appended: bomb)
            case 7, 8:  // A huge or odd declared size, rows per strip, tile side, samples or bits.
                guard let entry = pick(sizeTags) else { continue }
                let value = hugeValues.randomElement(using: &random)!
                return .edit(what: "tag \(entry.tag) = \(value)", writes: layout.fill(entry, with: value), appended: [])
            case 9:  // An entry's type, count or value offset.
                guard let entry = layout.entries.randomElement(using: &random) else { continue }
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let type = [0, 1, 2, 3, 4, 5, 7, 12, 13, 16, 17, 18, 19, 255].randomElement(using: &random)!
                    return .edit(
                        what: "tag \(entry.tag) type \(type)",
                        writes: [(entry.offset + 2, layout.encode(type, size: 2))],
                        appended: [])
                case 1:
                    let count = hugeValues.randomElement(using: &random)!
                    return .edit(
                        what: "tag \(entry.tag) count \(count)",
                        writes: [(entry.offset + 4, layout.encode(count, size: linkSize))], appended: [])
                default:
                    let value = [bytes.count, bytes.count - 1, 0xFFFF_FFF0, layout.ifd0].randomElement(using: &random)!
                    return .edit(
                        what: "tag \(entry.tag) value offset \(value)",
                        writes: [(entry.offset + 4 + linkSize, layout.encode(value, size: linkSize))], appended: [])
                }
            case 10:  // IFD0's entry count at its largest, or one more than there are.
                guard layout.ifd0 > 0 else { continue }
                let count = Bool.random(using: &random) ? 0xFFFF : layout.entries.count + 1
                return .edit(
                    what: "IFD0 entry count \(count)",
                    writes: [(layout.ifd0, layout.encode(count, size: layout.isBigTIFF ? 8 : 2))], appended: [])
            default:  // A photometric, compression, planar or orientation value out of the ordinary.
                guard let entry = pick([262, 259, 284, 274, 338, 317]) else { continue }
                let value = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 32773, 32803, 32845, 34892, 50000, 65535]
                    .randomElement(using: &random)!
                return .edit(what: "tag \(entry.tag) = \(value)", writes: layout.fill(entry, with: value), appended: [])
            }
        }
    }

    /// A zlib stream that never ends: a literal, then copies of 258 bytes at distance 1 in one
    /// fixed-Huffman block without its end code, `kilobytes` long (each kilobyte inflates to 160 KB).
    static func endlessDeflate(kilobytes: Int) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]
        var bits: UInt64 = 0
        var count = 0
        func put(_ value: Int, _ length: Int, reversed: Bool) {
            for index in 0..<length {
                let bit = reversed ? (value >> (length - 1 - index)) & 1 : (value >> index) & 1
                bits |= UInt64(bit) << UInt64(count)
                count += 1
                if count == 8 {
                    output.append(UInt8(bits & 0xFF))
                    bits = 0
                    count = 0
                }
            }
        }
        put(0, 1, reversed: false)  // BFINAL 0: more blocks follow, and never do.
        put(1, 2, reversed: false)  // Fixed Huffman codes.
        put(0x30, 8, reversed: true)  // Literal 0.
        while output.count < kilobytes * 1024 {
            put(0b1100_0101, 8, reversed: true)  // Length 258 (code 285).
            put(0, 5, reversed: true)  // Distance 1.
        }
        return output
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        switch self {
        case .truncate(let length):
            bytes.removeLast(bytes.count - length)
        case .flip(let flips):
            for (offset, mask) in flips where offset < bytes.count { bytes[offset] ^= mask }
        case .edit(_, let writes, let appended):
            for (offset, value) in writes where offset >= 0 && offset + value.count <= bytes.count {
                bytes.replaceSubrange(offset..<(offset + value.count), with: value)
            }
            bytes += appended
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "TIFF cut to \(length) bytes"
        case .flip(let flips): "TIFF bytes flipped at \(flips.map(\.offset))"
        case .edit(let what, let writes, _): "TIFF \(what) (\(writes.count) writes)"
        }
    }
}

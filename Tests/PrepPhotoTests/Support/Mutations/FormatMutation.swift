import Foundation

/// One structure-aware way to damage a JPEG XL, JPEG 2000, Photoshop, DNG or TIFF file, chosen by a
/// seeded generator: a named field of the format's structure set to a value at an edge (a size
/// of 0 or 2^32-1, an offset past the end or back onto its own directory, a count of a million),
/// or the file cut short or a few bytes flipped. The fields are found by walking the seed's own
/// structure (`FormatFields`), so every run aims at what the decoders read first.
enum FormatMutation: SeedMutation {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    /// `bytes` written over the field `what` at `offset`.
    case field(what: String, offset: Int, bytes: [UInt8])

    static let interesting: [UInt64] = [
        0, 1, 2, 3, 7, 8, 0xFF, 0x100, 0xFFFF, 0x1_0000, 1_000_000, 0x7FFF_FFFF, 0xFFFF_FFF0, 0xFFFF_FFFF,
    ]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> FormatMutation {
        let fields = FormatFields(bytes).fields
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            return .truncate(length: Int.random(in: 0..<bytes.count, using: &random))
        case 1:
            let count = Int.random(in: 1...4, using: &random)
            return .flip(
                (0..<count).map { _ in
                    (Int.random(in: 0..<bytes.count, using: &random), UInt8.random(in: 1...255, using: &random))
                })
        default:
            guard let field = fields.randomElement(using: &random) else {
                return .truncate(length: bytes.count / 2)
            }
            var value = interesting.randomElement(using: &random)!
            if Bool.random(using: &random) {
                // Near what it was, or one of the file's own offsets (a loop back into itself).
                let current = field.read(bytes)
                value =
                    Bool.random(using: &random)
                    ? UInt64(max(0, Int64(current) + Int64.random(in: -9...9, using: &random)))
                    : UInt64(fields.randomElement(using: &random)!.offset)
            }
            return .field(what: field.name, offset: field.offset, bytes: field.encoded(value))
        }
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        switch self {
        case .truncate(let length):
            bytes.removeSubrange(min(length, bytes.count)...)
        case .flip(let flips):
            for (offset, mask) in flips where offset < bytes.count { bytes[offset] ^= mask }
        case .field(_, let offset, let values):
            for (index, value) in values.enumerated() where offset + index < bytes.count {
                bytes[offset + index] = value
            }
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "truncated to \(length) bytes"
        case .flip(let flips): "bytes flipped at \(flips.map(\.offset))"
        case .field(let what, let offset, let bytes): "\(what) at \(offset) set to \(bytes)"
        }
    }
}

/// The fields of a file's structure a mutation aims at, by format.
struct FormatFields {
    struct Field {
        let name: String
        let offset: Int
        let size: Int
        let isBigEndian: Bool

        func read(_ bytes: [UInt8]) -> UInt64 {
            guard offset + size <= bytes.count else { return 0 }
            let slice = bytes[offset..<(offset + size)]
            return (isBigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | UInt64($1) }
        }

        func encoded(_ value: UInt64) -> [UInt8] {
            let big = (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
            return isBigEndian ? big : big.reversed()
        }
    }

    private(set) var fields: [Field] = []

    init(_ bytes: [UInt8]) {
        if bytes.starts(with: [0xFF, 0x0A]) {
            fields.append(Field(name: "JPEG XL size header", offset: 2, size: 4, isBigEndian: true))
            fields.append(Field(name: "JPEG XL image header", offset: 6, size: 4, isBigEndian: true))
        } else if bytes.starts(with: Array("8BPS".utf8)) {
            walkPSD(bytes)
        } else if [[0x49, 0x49, 0x2A, 0], [0x4D, 0x4D, 0, 0x2A], Array("IIRO".utf8), Array("IIU\u{0}".utf8)].contains(
            where: { bytes.starts(with: $0) })
        {
            walkTIFF(bytes, isBigEndian: bytes[0] == 0x4D)
        } else if bytes.starts(with: Array("FUJIFILMCCD-RAW".utf8)) {
            walkRAF(bytes)
        } else if bytes.starts(with: [0xFF, 0x4F]) {
            walkCodestream(bytes, from: 0, end: bytes.count)
        } else {
            walkBoxes(bytes, from: 0, end: bytes.count, depth: 0)
        }
    }

    private func number(_ bytes: [UInt8], _ offset: Int, _ size: Int, bigEndian: Bool = true) -> Int {
        Int(Field(name: "", offset: offset, size: size, isBigEndian: bigEndian).read(bytes))
    }

    /// ISO boxes (a JPEG XL container, a JP2 file): their sizes, the Exif box's offset, the
    /// codestream inside, and the JP2 header's image size and colour box.
    private mutating func walkBoxes(_ bytes: [UInt8], from start: Int, end: Int, depth: Int) {
        var offset = start
        while offset + 8 <= end, depth < 4 {
            let size = number(bytes, offset, 4)
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            fields.append(Field(name: "'\(type)' box size", offset: offset, size: 4, isBigEndian: true))
            let payload = offset + 8
            let boxEnd = size == 0 ? end : min(end, offset + max(size, 8))
            switch type {
            case "jp2h", "res ", "moov": walkBoxes(bytes, from: payload, end: boxEnd, depth: depth + 1)
            case "uuid": walkBoxes(bytes, from: payload + 16, end: boxEnd, depth: depth + 1)
            case "CMT1", "CMT2", "CMT4":
                guard payload + 8 <= boxEnd else { break }
                walkTIFF(bytes, isBigEndian: bytes[payload] == 0x4D, base: payload)
            case "ihdr":
                fields.append(Field(name: "ihdr height", offset: payload, size: 4, isBigEndian: true))
                fields.append(Field(name: "ihdr width", offset: payload + 4, size: 4, isBigEndian: true))
                fields.append(Field(name: "ihdr components", offset: payload + 8, size: 2, isBigEndian: true))
            case "colr": fields.append(Field(name: "colr method", offset: payload, size: 1, isBigEndian: true))
            case "Exif": fields.append(Field(name: "Exif box offset", offset: payload, size: 4, isBigEndian: true))
            case "jp2c": walkCodestream(bytes, from: payload, end: boxEnd)
            case "jxlc":
                fields.append(Field(name: "JPEG XL size header", offset: payload + 2, size: 4, isBigEndian: true))
            default: break
            }
            guard size >= 8 else { break }
            offset += size
        }
    }

    /// A JPEG 2000 codestream's main header: SIZ's sizes, tile sizes and component count and
    /// precisions, COD's levels and code-block size, SOT's tile-part lengths.
    private mutating func walkCodestream(_ bytes: [UInt8], from start: Int, end: Int) {
        var offset = start + 2
        var markers = 0
        while offset + 4 <= end, bytes[offset] == 0xFF, markers < 64 {
            let marker = bytes[offset + 1]
            let length = number(bytes, offset + 2, 2)
            fields.append(Field(name: "marker FF\(marker) length", offset: offset + 2, size: 2, isBigEndian: true))
            switch marker {
            case 0x51:
                for (name, at, size) in [
                    ("Xsiz", 6, 4), ("Ysiz", 10, 4), ("XOsiz", 14, 4), ("XTsiz", 22, 4), ("YTsiz", 26, 4),
                    ("Csiz", 38, 2), ("Ssiz", 40, 1), ("XRsiz", 41, 1),
                ] {
                    fields.append(Field(name: "SIZ \(name)", offset: offset + at, size: size, isBigEndian: true))
                }
            case 0x52:
                fields.append(Field(name: "COD levels", offset: offset + 9, size: 1, isBigEndian: true))
                fields.append(Field(name: "COD code-block", offset: offset + 10, size: 2, isBigEndian: true))
                fields.append(Field(name: "COD layers", offset: offset + 6, size: 2, isBigEndian: true))
            case 0x90:
                fields.append(Field(name: "SOT tile", offset: offset + 4, size: 2, isBigEndian: true))
                fields.append(Field(name: "SOT Psot", offset: offset + 6, size: 4, isBigEndian: true))
                return
            default: break
            }
            offset += 2 + length
            markers += 1
        }
    }

    /// A Photoshop file's header fields, section lengths, resource lengths and the composite's
    /// compression and first row lengths.
    private mutating func walkPSD(_ bytes: [UInt8]) {
        for (name, at, size) in [
            ("version", 4, 2), ("channels", 12, 2), ("height", 14, 4), ("width", 18, 4), ("depth", 22, 2),
            ("mode", 24, 2),
        ] {
            fields.append(Field(name: "PSD \(name)", offset: at, size: size, isBigEndian: true))
        }
        var offset = 26
        for section in ["colour mode data", "image resources", "layer and mask"] {
            guard offset + 4 <= bytes.count else { return }
            fields.append(Field(name: "\(section) length", offset: offset, size: 4, isBigEndian: true))
            let length = number(bytes, offset, 4)
            if section == "image resources" {
                var resource = offset + 4
                while resource + 12 <= min(bytes.count, offset + 4 + length), bytes[resource] == 0x38 {
                    let nameLength = (Int(bytes[resource + 6]) + 2) & ~1
                    let lengthAt = resource + 6 + nameLength
                    guard lengthAt + 4 <= bytes.count else { break }
                    fields.append(Field(name: "resource length", offset: lengthAt, size: 4, isBigEndian: true))
                    resource = lengthAt + 4 + ((number(bytes, lengthAt, 4) + 1) & ~1)
                }
            }
            if section == "layer and mask", offset + 10 <= bytes.count {
                fields.append(Field(name: "layer count", offset: offset + 8, size: 2, isBigEndian: true))
            }
            offset += 4 + length
        }
        fields.append(Field(name: "composite compression", offset: offset, size: 2, isBigEndian: true))
        for row in 0..<4 {
            fields.append(Field(name: "row length", offset: offset + 2 + 2 * row, size: 2, isBigEndian: true))
        }
    }

    /// A RAF's header: its preview's, CFA header's and CFA data's offsets and lengths; and the
    /// TIFF block in its preview's APP1, right after SOI, as a camera writes it.
    private mutating func walkRAF(_ bytes: [UInt8]) {
        for (index, name) in [
            "preview offset", "preview length", "CFA header offset", "CFA header length",
            "CFA offset", "CFA length",
        ].enumerated() {
            fields.append(Field(name: "RAF \(name)", offset: 84 + 4 * index, size: 4, isBigEndian: true))
        }
        let preview = number(bytes, 84, 4)
        fields.append(Field(name: "RAF preview APP1 length", offset: preview + 4, size: 2, isBigEndian: true))
        if preview + 20 <= bytes.count, bytes[(preview + 6)..<(preview + 12)].elementsEqual(Array("Exif\0\0".utf8)) {
            walkTIFF(bytes, isBigEndian: bytes[preview + 12] == 0x4D, base: preview + 12)
        }
    }

    /// A TIFF's or TIFF-based raw's directories: each entry's count and value or offset (strip
    /// offsets and counts, sizes, tile sides, SubIFD and Exif pointers), each directory's link to
    /// the next, and the first 16 strip or tile offsets and byte counts themselves where they lie
    /// outside the entry (a tile that points into another, or past the end, or says it is longer);
    /// `base` is where the TIFF header is (a CR3's CMT box, a RAF preview's APP1), which offsets
    /// count from.
    private mutating func walkTIFF(_ bytes: [UInt8], isBigEndian: Bool, base: Int = 0) {
        var queue = [number(bytes, base + 4, 4, bigEndian: isBigEndian)]
        var visited: Set<Int> = []
        while let relative = queue.popLast(), visited.count < 16 {
            let ifd = base + relative
            guard relative >= 8, ifd + 2 <= bytes.count, visited.insert(ifd).inserted else { continue }
            let count = min(number(bytes, ifd, 2, bigEndian: isBigEndian), 512)
            fields.append(Field(name: "IFD entry count", offset: ifd, size: 2, isBigEndian: isBigEndian))
            for index in 0..<count {
                let entry = ifd + 2 + index * 12
                guard entry + 12 <= bytes.count else { break }
                let tag = number(bytes, entry, 2, bigEndian: isBigEndian)
                fields.append(Field(name: "tag \(tag) count", offset: entry + 4, size: 4, isBigEndian: isBigEndian))
                fields.append(Field(name: "tag \(tag) value", offset: entry + 8, size: 4, isBigEndian: isBigEndian))
                let type = number(bytes, entry + 2, 2, bigEndian: isBigEndian)
                let values = number(bytes, entry + 4, 4, bigEndian: isBigEndian)
                if [273, 279, 324, 325].contains(tag), [3, 4].contains(type), values * (type == 3 ? 2 : 4) > 4 {
                    let array = base + number(bytes, entry + 8, 4, bigEndian: isBigEndian)
                    for element in 0..<min(values, 16) {
                        fields.append(
                            Field(
                                name: "tag \(tag) [\(element)]", offset: array + element * (type == 3 ? 2 : 4),
                                size: type == 3 ? 2 : 4, isBigEndian: isBigEndian))
                    }
                }
                if [330, 0x8769, 0x8825].contains(tag) {  // offsets from `base`
                    queue.append(number(bytes, entry + 8, 4, bigEndian: isBigEndian))
                }
            }
            let link = ifd + 2 + count * 12
            if link + 4 <= bytes.count {
                fields.append(Field(name: "next IFD", offset: link, size: 4, isBigEndian: isBigEndian))
            }
        }
    }
}

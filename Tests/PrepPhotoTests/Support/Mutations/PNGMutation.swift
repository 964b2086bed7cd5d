import Foundation

// Structure-aware mutations of a PNG for the fuzz test: the chunks are found by a walk of their
// own (not ImagePrep's), and a mutation damages a chunk's length, type or CRC, a field of IHDR
// (dimensions, depth, colour type, interlace), a palette or its transparency, the zlib stream
// of the image data, or adds what an APNG, an EXIF or a zlib bomb adds. Most fix the chunk's
// CRC afterwards, so that libspng reads on past it rather than stopping at the checksum.

/// Where the chunks of a PNG are: each one's offset (its length field) and data, by type.
struct PNGChunks {
    var all: [(offset: Int, type: String, data: Range<Int>)] = []

    init(_ bytes: [UInt8]) {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(PNGMutation.word(bytes, offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { return }
            all.append((offset, type, (offset + 8)..<(offset + 8 + length)))
            offset += 12 + length
        }
    }

    func first(_ type: String) -> (offset: Int, type: String, data: Range<Int>)? { all.first { $0.type == type } }
}

/// One way to damage a PNG, chosen by the seeded generator and described in failures.
enum PNGMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    /// Bytes written over a field of the chunk at `chunk`, whose CRC is then made right again
    /// when `fixesCRC`: `what` says which field.
    case field(what: String, chunk: Int, offset: Int, bytes: [UInt8], fixesCRC: Bool)
    case duplicateChunk(offset: Int)
    case removeChunk(offset: Int)
    /// A whole chunk put in before the chunk at `before`.
    case insert(what: String, before: Int, chunk: [UInt8])

    static let interesting32: [UInt32] = [
        0, 1, 2, 0xFF, 0xFFFF, 0x1_0000, 100_000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
    ]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> PNGMutation {
        let chunks = PNGChunks(bytes)
        guard let chunk = chunks.all.randomElement(using: &random) else { return .truncate(length: bytes.count / 2) }
        let nonImage = chunks.all.filter { $0.type != "IDAT" }
        func anyOffset() -> Int { Int.random(in: 0..<bytes.count, using: &random) }
        func big(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) } }
        let fix = Int.random(in: 0..<4, using: &random) != 0
        switch Int.random(in: 0..<16, using: &random) {
        case 0:
            return .truncate(length: anyOffset())
        case 1:
            // Half the flips in the chunks other than the image data, where a byte means more.
            let count = Int.random(in: 1...4, using: &random)
            return .flip(
                (0..<count).map { _ in
                    let target = nonImage.randomElement(using: &random)
                    let offset =
                        Bool.random(using: &random) || target == nil
                        ? anyOffset() : Int.random(in: target!.offset..<(target!.data.upperBound + 4), using: &random)
                    return (offset, UInt8.random(in: 1...255, using: &random))
                })
        case 2:
            let length =
                Bool.random(using: &random)
                ? interesting32.randomElement(using: &random)!
                : UInt32(max(0, chunk.data.count + Int.random(in: -9...9, using: &random)))
            return .field(
                what: "\(chunk.type) length", chunk: chunk.offset, offset: chunk.offset, bytes: big(length),
                fixesCRC: false)
        case 3:
            let types = [
                "IHDR", "IDAT", "IEND", "PLTE", "tRNS", "acTL", "fcTL", "fdAT", "eXIf", "iCCP", "zTXt", "cICP", "abCd",
            ]
            return .field(
                what: "\(chunk.type) type", chunk: chunk.offset, offset: chunk.offset + 4,
                bytes: Array(types.randomElement(using: &random)!.utf8), fixesCRC: fix)
        case 4, 5:
            // IHDR: width, height (4 bytes each), then depth, colour type, compression, filter, interlace.
            guard let ihdr = chunks.first("IHDR"), ihdr.data.count >= 13 else { return .truncate(length: anyOffset()) }
            let field = Int.random(in: 0..<7, using: &random)
            if field < 2 {
                return .field(
                    what: field == 0 ? "IHDR width" : "IHDR height", chunk: ihdr.offset,
                    offset: ihdr.data.lowerBound + 4 * field, bytes: big(interesting32.randomElement(using: &random)!),
                    fixesCRC: fix)
            }
            let values: [UInt8] = [0, 1, 2, 3, 4, 6, 7, 8, 16, 255]
            return .field(
                what: ["IHDR depth", "IHDR colour type", "IHDR compression", "IHDR filter", "IHDR interlace"][
                    field - 2],
                chunk: ihdr.offset, offset: ihdr.data.lowerBound + 6 + field,
                bytes: [values.randomElement(using: &random)!],
                fixesCRC: fix)
        case 6, 7:
            // The zlib stream: its header, a byte in its first block, or its Adler-32 at the end.
            guard let idat = chunks.all.filter({ $0.type == "IDAT" }).randomElement(using: &random), !idat.data.isEmpty
            else { return .truncate(length: anyOffset()) }
            let at: Int
            switch Int.random(in: 0..<3, using: &random) {
            case 0: at = idat.data.lowerBound + Int.random(in: 0..<min(2, idat.data.count), using: &random)
            case 1: at = Int.random(in: idat.data, using: &random)
            default: at = max(idat.data.lowerBound, idat.data.upperBound - 4)
            }
            return .field(
                what: "zlib stream", chunk: idat.offset, offset: at, bytes: [UInt8.random(in: 0...255, using: &random)],
                fixesCRC: fix)
        case 8:
            // A palette entry or its length, or a transparency entry.
            guard let target = chunks.first("PLTE") ?? chunks.first("tRNS") ?? chunks.first("iCCP"),
                !target.data.isEmpty
            else { return .removeChunk(offset: chunk.offset) }
            return .field(
                what: "\(target.type) entry", chunk: target.offset, offset: Int.random(in: target.data, using: &random),
                bytes: [UInt8.random(in: 0...255, using: &random)], fixesCRC: fix)
        case 9:
            return .duplicateChunk(offset: chunk.offset)
        case 10:
            return .removeChunk(offset: chunk.offset)
        case 11:
            // An APNG's control chunks where a still PNG has none, with odd counts and sizes.
            let frames = big(interesting32.randomElement(using: &random)!)
            let control: [UInt8] =
                Bool.random(using: &random)
                ? frames + big(0)
                : big(0) + big(interesting32.randomElement(using: &random)!) + big(1) + big(0) + big(0) + [
                    0, 1, 0, 1, 0, 0,
                ]
            let type = control.count == 8 ? "acTL" : "fcTL"
            return .insert(what: type, before: insertionPoint(chunks, using: &random), chunk: Self.chunk(type, control))
        case 12:
            // An eXIf of random bytes after a TIFF header, or ImageMagick's raw EXIF text of odd hex.
            var tiff: [UInt8] =
                Bool.random(using: &random) ? Array("MM\0*\0\0\0\u{8}".utf8) : Array("II*\0\u{8}\0\0\0".utf8)
            tiff += (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if Bool.random(using: &random) {
                return .insert(
                    what: "eXIf", before: insertionPoint(chunks, using: &random), chunk: Self.chunk("eXIf", tiff))
            }
            let hex = tiff.map { String(format: "%02x", $0) }.joined()
            let declared = [tiff.count, tiff.count * 4, 0, 99_999_999].randomElement(using: &random)!
            let text = Array("Raw profile type exif\0\nexif\n\(declared)\n\(hex)\n".utf8)
            return .insert(
                what: "tEXt raw profile", before: insertionPoint(chunks, using: &random),
                chunk: Self.chunk("tEXt", text))
        case 13:
            // A zTXt or iCCP whose zlib stream inflates to 40 MB of zeros: libspng's chunk limits bound it.
            let type = Bool.random(using: &random) ? "zTXt" : "iCCP"
            let keyword = Array((type == "zTXt" ? "Raw profile type exif" : "icc").utf8) + [0, 0]
            return .insert(
                what: "\(type) zlib bomb", before: insertionPoint(chunks, using: &random),
                chunk: Self.chunk(type, keyword + zerosBomb))
        default:
            return .field(
                what: "\(chunk.type) CRC", chunk: chunk.offset, offset: chunk.data.upperBound,
                bytes: big(UInt32.random(in: 0...UInt32.max, using: &random)), fixesCRC: false)
        }
    }

    /// Where a new chunk goes: after IHDR at the earliest.
    private static func insertionPoint(_ chunks: PNGChunks, using random: inout SplitMix64) -> Int {
        chunks.all.dropFirst().randomElement(using: &random)?.offset ?? 8
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        switch self {
        case .truncate(let length):
            bytes.removeLast(bytes.count - min(length, bytes.count))
        case .flip(let flips):
            for flip in flips where flip.offset < bytes.count { bytes[flip.offset] ^= flip.mask }
        case .field(_, let chunk, let offset, let value, let fixesCRC):
            for (index, byte) in value.enumerated() where offset + index < bytes.count { bytes[offset + index] = byte }
            if fixesCRC, chunk + 8 <= bytes.count {
                let length = Int(Self.word(bytes, chunk))
                let end = chunk + 8 + length
                if end + 4 <= bytes.count {
                    let crc = Self.crc32(bytes[(chunk + 4)..<end])
                    for index in 0..<4 { bytes[end + index] = UInt8(truncatingIfNeeded: crc >> (8 * (3 - index))) }
                }
            }
        case .duplicateChunk(let offset):
            let length = Int(Self.word(bytes, offset))
            bytes.insert(contentsOf: original[offset..<min(original.count, offset + 12 + length)], at: offset)
        case .removeChunk(let offset):
            let length = Int(Self.word(bytes, offset))
            bytes.removeSubrange(offset..<min(bytes.count, offset + 12 + length))
        case .insert(_, let before, let chunk):
            bytes.insert(contentsOf: chunk, at: min(before, bytes.count))
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "cut to \(length) bytes"
        case .flip(let flips): "flipped \(flips.map { "\($0.offset)^\($0.mask)" }.joined(separator: ","))"
        case .field(let what, _, let offset, let bytes, let fixesCRC):
            "\(what) at \(offset) = \(bytes)\(fixesCRC ? ", CRC fixed" : "")"
        case .duplicateChunk(let offset): "chunk at \(offset) duplicated"
        case .removeChunk(let offset): "chunk at \(offset) removed"
        case .insert(let what, let before, let chunk): "\(what) of \(chunk.count) bytes put in at \(before)"
        }
    }

    static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// A chunk: length, type, data, CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        let crc = crc32(body[...])
        return (0..<4).map { UInt8(truncatingIfNeeded: UInt32(data.count) >> (8 * (3 - $0))) } + body
            + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * (3 - $0))) }
    }

    /// PNG's CRC-32 (ISO 3309).
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }

    /// A zlib stream of 40 MB of zeros (250 KB), made once: stored blocks would be as large as
    /// what they hold, so it is Deflate's fixed Huffman code, a run of zeros repeated by length
    /// 258 at distance 1, then the Adler-32.
    static let zerosBomb: [UInt8] = {
        var bits = BitWriter()
        bits.write(1, count: 1)  // Last block.
        bits.write(1, count: 2)  // Fixed Huffman codes.
        bits.writeReversed(0b0011_0000, count: 8)  // Literal 0.
        let total = 40 << 20
        for _ in 0..<((total - 1) / 258) {
            bits.writeReversed(0b1100_0101, count: 8)  // Length 258: code 285.
            bits.write(0, count: 5)  // Distance 1: code 0.
        }
        bits.writeReversed(0, count: 7)  // End of block: code 256.
        let produced = 1 + (total - 1) / 258 * 258
        // Adler-32 of `produced` zeros: A = 1, B = produced mod 65521.
        let adler = UInt32(produced % 65521) << 16 | 1
        return [0x78, 0x01] + bits.bytes + (0..<4).map { UInt8(truncatingIfNeeded: adler >> (8 * (3 - $0))) }
    }()
}

/// Bits written as Deflate packs them: least significant first.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var used = 8

    mutating func write(_ value: UInt32, count: Int) {
        for index in 0..<count { put(value >> index & 1) }
    }

    /// A Huffman code, which Deflate writes from its most significant bit.
    mutating func writeReversed(_ code: UInt32, count: Int) {
        for index in (0..<count).reversed() { put(code >> index & 1) }
    }

    private mutating func put(_ bit: UInt32) {
        if used == 8 {
            bytes.append(0)
            used = 0
        }
        bytes[bytes.count - 1] |= UInt8(bit) << used
        used += 1
    }
}

import Foundation

// Structure-aware mutations of a HEIF file for the fuzz test: the boxes are found by a walk of
// their own (not ImagePrep's), and a mutation damages a box header or a field of the meta box,
// or cuts, flips, duplicates or removes, as `JPEGMutation` does for JPEG.

/// Where the boxes of a HEIF file are: the top level, and inside the boxes that hold boxes.
struct HEIFBoxes {
    /// Offsets of box headers, and where the `meta` box lies.
    var headers: [Int] = []
    var meta: Range<Int> = 0..<0

    /// Boxes that hold boxes, and how many bytes come before their first child.
    static let containers: [String: Int] = ["meta": 4, "iprp": 0, "ipco": 0, "iinf": 6, "iref": 4, "dinf": 0]

    init(_ bytes: [UInt8]) { walk(bytes, 0..<bytes.count) }

    private mutating func walk(_ bytes: [UInt8], _ range: Range<Int>) {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else { return }
            headers.append(offset)
            if type == "meta" { meta = offset..<(offset + size) }
            if let skip = Self.containers[type] { walk(bytes, (offset + 8 + skip)..<(offset + size)) }
            offset += size
        }
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

    static func random(for bytes: [UInt8], using random: inout SeededGenerator) -> HEIFMutation {
        let boxes = HEIFBoxes(bytes)
        // Half the offsets fall in the meta box, where a byte means more than in the image data.
        func offset() -> Int {
            Bool.random(using: &random) && !boxes.meta.isEmpty
                ? Int.random(in: boxes.meta, using: &random) : Int.random(in: 0..<bytes.count, using: &random)
        }
        let header = boxes.headers.randomElement(using: &random) ?? 0
        let size = header + 4 <= bytes.count ? bytes[header..<(header + 4)].reduce(0) { $0 << 8 | UInt32($1) } : 0
        switch Int.random(in: 0..<10, using: &random) {
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
        }
    }
}

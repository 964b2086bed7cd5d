import Foundation

/// One structure-aware way to damage a BMP for the fuzz test: its header fields (header size,
/// width and height, bits, compression, pixel data offset, palette count, masks) set to edge
/// values, RLE escapes planted in the pixel data (deltas far out, absolute and encoded runs past
/// the row's and the data's end, an early end of bitmap), cuts and flips.
enum BMPMutation: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    case field(name: String, offset: Int, bytes: [UInt8])
    case runs(at: Int, bytes: [UInt8])

    /// Header fields by name: offset and size.
    static let fields: [(name: String, offset: Int, size: Int)] = [
        ("header size", 14, 4), ("width", 18, 4), ("height", 22, 4), ("bits", 28, 2), ("compression", 30, 4),
        ("pixel offset", 10, 4), ("palette count", 46, 4), ("red mask", 54, 4), ("alpha mask", 66, 4),
        ("profile offset", 126, 4), ("profile size", 130, 4),
    ]
    static let values = [
        0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 40, 64, 108, 124, 255, 256, 65_535, 0x7FFF_FFFF, 0x8000_0000,
        0xFFFF_FFFF, 0xFFFF_FFFE, 0xFF00_0000, 0x0000_F800,
    ]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> BMPMutation {
        let pixelOffset = min(bytes.count, Int(bytes[10]) | Int(bytes[11]) << 8 | Int(bytes[12]) << 16)
        while true {
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                return .truncate(length: Int.random(in: 0..<bytes.count, using: &random))
            case 1:
                let count = Int.random(in: 1...4, using: &random)
                return .flip(
                    (0..<count).map { _ in
                        (
                            Int.random(in: 0..<max(1, pixelOffset), using: &random),
                            UInt8.random(in: 1...255, using: &random)
                        )
                    })
            case 2, 3, 4:
                let field = fields.randomElement(using: &random)!
                let value = values.randomElement(using: &random)!
                let encoded = (0..<field.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
                return .field(name: field.name, offset: field.offset, bytes: encoded)
            default:  // RLE escapes: they matter in RLE data, and are noise in the rest.
                guard pixelOffset < bytes.count else { continue }
                let escapes: [[UInt8]] = [
                    [0, 2, 255, 255], [0, 2, 0, 200], [0, 255], [255, 0x11], [0, 1], [0, 0, 0, 0], [0, 3, 1, 2, 3],
                ]
                let planted = (0..<Int.random(in: 1...4, using: &random)).flatMap { _ in
                    escapes.randomElement(using: &random)!
                }
                return .runs(at: Int.random(in: pixelOffset..<bytes.count, using: &random), bytes: planted)
            }
        }
    }

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        switch self {
        case .truncate(let length):
            bytes.removeLast(bytes.count - length)
        case .flip(let flips):
            for (offset, mask) in flips where offset < bytes.count { bytes[offset] ^= mask }
        case .field(_, let offset, let value), .runs(let offset, let value):
            let end = min(bytes.count, offset + value.count)
            if offset < end { bytes.replaceSubrange(offset..<end, with: value.prefix(end - offset)) }
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "BMP cut to \(length) bytes"
        case .flip(let flips): "BMP header bytes flipped at \(flips.map(\.offset))"
        case .field(let name, _, let bytes): "BMP \(name) = \(bytes)"
        case .runs(let offset, let bytes): "BMP RLE escapes \(bytes) at \(offset)"
        }
    }
}

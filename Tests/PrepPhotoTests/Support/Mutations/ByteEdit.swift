/// One edit of a file's bytes, as the GIF and WebP mutators choose it (they know where the blocks
/// and chunks are; the edit only says what it does, so that a failure can name it).
enum ByteEdit: CustomStringConvertible {
    case truncate(length: Int)
    case flip([(offset: Int, mask: UInt8)])
    /// Bytes written over a field of a named structure: `what` says which.
    case write(what: String, offset: Int, bytes: [UInt8])
    /// A block or chunk copied `times` times right after itself.
    case repeatRange(what: String, range: Range<Int>, times: Int)
    case remove(what: String, range: Range<Int>)

    func apply(to original: [UInt8]) -> [UInt8] {
        var bytes = original
        func clamped(_ range: Range<Int>) -> Range<Int> {
            min(range.lowerBound, bytes.count)..<min(range.upperBound, bytes.count)
        }
        switch self {
        case .truncate(let length): bytes = Array(bytes.prefix(length))
        case .flip(let flips): for flip in flips where flip.offset < bytes.count { bytes[flip.offset] ^= flip.mask }
        case .write(_, let offset, let values):
            for (index, value) in values.enumerated() where offset + index < bytes.count {
                bytes[offset + index] = value
            }
        case .repeatRange(_, let range, let times):
            let copy = bytes[clamped(range)]
            bytes.insert(
                contentsOf: Array(repeating: Array(copy), count: times).joined(), at: clamped(range).upperBound)
        case .remove(_, let range): bytes.removeSubrange(clamped(range))
        }
        return bytes
    }

    var description: String {
        switch self {
        case .truncate(let length): "truncated to \(length) bytes"
        case .flip(let flips): "flipped " + flips.map { "\($0.offset)^\($0.mask)" }.joined(separator: ",")
        case .write(let what, let offset, let values):
            "\(what) at \(offset) set to \(values.map { String($0, radix: 16) }.joined(separator: " "))"
        case .repeatRange(let what, let range, let times): "\(what) at \(range) repeated \(times) times"
        case .remove(let what, let range): "\(what) at \(range) removed"
        }
    }

    static func little(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

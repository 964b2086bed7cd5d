/// Unsigned integers read from a buffer in big- or little-endian order, each read checked against
/// the range the reader is given: bytes from a file give nil or an error, never a read past the end.
///
/// Every format's header walk reads its lengths and offsets here, so that one bounds check serves
/// them all.
struct ByteReader {
    enum ByteOrder: Sendable {
        case bigEndian, littleEndian
    }

    /// A read that would run past the end of the reader's range (or start before it).
    struct PastEnd: Error, Equatable {
        /// Where the read would start.
        let offset: Int
        /// How many bytes it wanted.
        let size: Int
    }

    let bytes: UnsafeRawBufferPointer
    let byteOrder: ByteOrder
    /// The part of `bytes` the reader may read.
    let range: Range<Int>
    /// Where the next `read` starts.
    var offset: Int

    /// A reader of `range` of `bytes` (all of them by default), starting at its first byte.
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil, byteOrder: ByteOrder = .bigEndian) {
        self.bytes = bytes
        self.byteOrder = byteOrder
        self.range = range ?? 0..<bytes.count
        offset = self.range.lowerBound
    }

    /// The unsigned number of `size` bytes (0 to 8) at `position`; nil when they are not all in range.
    func uint(at position: Int, size: Int) -> UInt64? {
        guard size >= 0, size <= 8, position >= range.lowerBound, position <= range.upperBound - size else {
            return nil
        }
        var value: UInt64 = 0
        for index in 0..<size {
            value = value << 8 | UInt64(bytes[position + (byteOrder == .bigEndian ? index : size - 1 - index)])
        }
        return value
    }

    func uint16(at position: Int) -> UInt16? { uint(at: position, size: 2).map { UInt16(truncatingIfNeeded: $0) } }

    func uint32(at position: Int) -> UInt32? { uint(at: position, size: 4).map { UInt32(truncatingIfNeeded: $0) } }

    /// The next `size` bytes (0 to 8) as an unsigned number, moving past them.
    mutating func read(_ size: Int) throws(PastEnd) -> UInt64 {
        guard let value = uint(at: offset, size: size) else { throw PastEnd(offset: offset, size: size) }
        offset += size
        return value
    }

    mutating func readUInt16() throws(PastEnd) -> UInt16 { UInt16(truncatingIfNeeded: try read(2)) }

    mutating func readUInt32() throws(PastEnd) -> UInt32 { UInt32(truncatingIfNeeded: try read(4)) }
}

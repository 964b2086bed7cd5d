/// The top-level boxes of an ISO base media file (a JPEG XL container, a JP2 file): each box's
/// four-character type and its payload, walked with every length checked against the bytes.
struct TopLevelBoxes: Sequence, IteratorProtocol {
    struct Box {
        let type: String
        let payload: UnsafeRawBufferPointer
    }

    private let bytes: UnsafeRawBufferPointer
    private var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, from offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// The next box, or nil at the end or at a box whose length does not fit the bytes.
    mutating func next() -> Box? {
        guard offset >= 0, bytes.count - offset >= 8 else { return nil }
        var length = UInt64(bytes.bigEndianUInt32(at: offset))
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        var header = 8
        if length == 1 {
            guard bytes.count - offset >= 16 else { return nil }
            length =
                UInt64(bytes.bigEndianUInt32(at: offset + 8)) << 32 | UInt64(bytes.bigEndianUInt32(at: offset + 12))
            header = 16
        } else if length == 0 {
            length = UInt64(bytes.count - offset)
        }
        guard length >= UInt64(header), length <= UInt64(bytes.count - offset) else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + header)..<(offset + Int(length))])
        offset += Int(length)
        return Box(type: type, payload: payload)
    }
}

extension UnsafeRawBufferPointer {
    /// The big-endian 32-bit value at `offset`; the caller has checked that four bytes are there.
    func bigEndianUInt32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }
}

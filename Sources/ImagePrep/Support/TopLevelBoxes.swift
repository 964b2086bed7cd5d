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
        let reader = ByteReader(bytes)
        guard offset >= 0, bytes.count - offset >= 8, let size = reader.uint32(at: offset) else { return nil }
        var length = UInt64(size)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        var header = 8
        if length == 1 {
            guard let large = reader.uint(at: offset + 8, size: 8) else { return nil }
            length = large
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

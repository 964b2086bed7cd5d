/// Where the value bytes of PixelXDimension (0xA002) and PixelYDimension (0xA003), and of IFD0's
/// Orientation (0x0112), sit in an EXIF APP1 segment, found by a TIFF walk written for the tests,
/// separately from `EXIFPatcher`, so that the test of the patch does not trust the code it checks.
struct EXIFDimensionFields {
    struct Field {
        /// 0xA002, 0xA003 or 0x0112.
        let tag: UInt16
        /// Offsets in the whole segment (from its FF E1) of the bytes that hold the value: the
        /// first two of the entry's value field for a SHORT, all four for a LONG.
        let valueBytes: Range<Int>
        let isBigEndian: Bool

        func value(in segment: [UInt8]) -> Int {
            let bytes = valueBytes.map { Int(segment[$0]) }
            return isBigEndian ? bytes.reduce(0) { $0 << 8 | $1 } : bytes.reversed().reduce(0) { $0 << 8 | $1 }
        }
    }

    let width: Field?
    let height: Field?
    let orientation: Field?

    /// Nil when the segment is not an EXIF APP1 whose IFD0 and Exif IFD can be walked.
    init?(segment: [UInt8]) {
        let tiff = 10  // FF E1, two length bytes, "Exif\0\0"
        guard segment.count > tiff + 8, segment[0] == 0xFF, segment[1] == 0xE1,
            Array(segment[4..<10]) == Array("Exif\0\0".utf8)
        else { return nil }
        let isBigEndian: Bool
        switch (segment[tiff], segment[tiff + 1]) {
        case (0x4D, 0x4D): isBigEndian = true
        case (0x49, 0x49): isBigEndian = false
        default: return nil
        }
        func read(_ offset: Int, _ count: Int) -> Int? {
            let start = tiff + offset
            guard offset >= 0, start + count <= segment.count else { return nil }
            let bytes = segment[start..<(start + count)].map { Int($0) }
            return isBigEndian ? bytes.reduce(0) { $0 << 8 | $1 } : bytes.reversed().reduce(0) { $0 << 8 | $1 }
        }
        /// (tag, type, count, offset of the entry in the TIFF block) for each entry of the IFD.
        func entries(at ifd: Int) -> [(tag: Int, type: Int, count: Int, entry: Int)]? {
            guard let count = read(ifd, 2) else { return nil }
            var list: [(tag: Int, type: Int, count: Int, entry: Int)] = []
            for index in 0..<count {
                let entry = ifd + 2 + index * 12
                guard let tag = read(entry, 2), let type = read(entry + 2, 2), let values = read(entry + 4, 4),
                    read(entry + 8, 4) != nil
                else { return nil }
                list.append((tag, type, values, entry))
            }
            return list
        }
        guard read(2, 2) == 42, let ifd0 = read(4, 4), let ifd0Entries = entries(at: ifd0) else { return nil }
        func field(_ tag: UInt16, in entries: [(tag: Int, type: Int, count: Int, entry: Int)]) -> Field? {
            guard let entry = entries.first(where: { $0.tag == Int(tag) }), entry.count == 1,
                entry.type == 3 || entry.type == 4
            else { return nil }
            let start = tiff + entry.entry + 8
            return Field(tag: tag, valueBytes: start..<(start + (entry.type == 3 ? 2 : 4)), isBigEndian: isBigEndian)
        }
        orientation = field(0x0112, in: ifd0Entries)
        guard let pointer = ifd0Entries.first(where: { $0.tag == 0x8769 }) else {
            width = nil
            height = nil
            return
        }
        guard let exifIFD = read(pointer.entry + 8, 4), let exifEntries = entries(at: exifIFD) else { return nil }
        width = field(0xA002, in: exifEntries)
        height = field(0xA003, in: exifEntries)
    }

    /// An APP1 segment around a bare TIFF block, as the upload of a HEIF photo carries its Exif
    /// item: FF E1, the length, `Exif\0\0`, the block.
    static func segment(aroundTIFF tiff: [UInt8]) -> [UInt8] {
        let length = 2 + 6 + tiff.count
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("Exif\0\0".utf8) + tiff
    }
}

/// A TIFF block, the body of EXIF (in JPEG, what follows `Exif\0\0` in APP1), read with a bounds
/// check on every access so that no offset in it is trusted.
///
/// The same walk serves two jobs that must not go through libexif: patching the pixel size in
/// place in the carried APP1 (`EXIFPatcher`), and finding the entries that would make libexif
/// give up on the rest of an IFD (`EXIFSanitizer`).
struct TIFFBlock {
    let bytes: UnsafeRawBufferPointer
    let isBigEndian: Bool
    /// Where IFD0 starts; not checked against the block's size.
    let ifd0Offset: Int

    /// The TIFF types whose values are integers (BYTE, SHORT, LONG, SBYTE, SSHORT, SLONG, and
    /// IFD, which TIFF 6.0's supplements use for pointers), with their size in bytes.
    static let integerTypeSizes: [UInt16: Int] = [1: 1, 3: 2, 4: 4, 6: 1, 8: 2, 9: 4, 13: 4]

    /// TIFF 6.0's name for a type, for warnings. (libexif's `exif_format_get_name` translates its
    /// names into the process's language.)
    static func typeName(_ type: UInt16) -> String {
        let names = [
            "BYTE", "ASCII", "SHORT", "LONG", "RATIONAL", "SBYTE", "UNDEFINED", "SSHORT", "SLONG", "SRATIONAL", "FLOAT",
            "DOUBLE", "IFD",
        ]
        return (1...names.count).contains(Int(type)) ? names[Int(type) - 1] : "an unknown type"
    }

    /// Nil unless the block starts with a TIFF header: `II` or `MM`, then 42.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        let isBigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): isBigEndian = false
        case (0x4D, 0x4D): isBigEndian = true
        default: return nil
        }
        let reader = ByteReader(bytes, byteOrder: isBigEndian ? .bigEndian : .littleEndian)
        guard reader.uint16(at: 2) == 42, let ifd0Offset = reader.uint32(at: 4) else { return nil }
        self.bytes = bytes
        self.isBigEndian = isBigEndian
        self.ifd0Offset = Int(ifd0Offset)
    }

    /// A block in a byte order it does not say itself, with its first IFD at `ifd0Offset`: a
    /// maker note's IFD (Apple's), whose offsets count from the maker note's first byte.
    init(bytes: UnsafeRawBufferPointer, isBigEndian: Bool, ifd0Offset: Int) {
        self.bytes = bytes
        self.isBigEndian = isBigEndian
        self.ifd0Offset = ifd0Offset
    }

    func read16(at offset: Int) -> UInt16? { reader.uint16(at: offset) }

    func read32(at offset: Int) -> UInt32? { reader.uint32(at: offset) }

    private var reader: ByteReader { ByteReader(bytes, byteOrder: isBigEndian ? .bigEndian : .littleEndian) }

    /// One 12-byte directory entry.
    struct Entry {
        /// Where the entry starts in the block.
        let offset: Int
        let tag: UInt16
        let type: UInt16
        let count: UInt32
        /// Where the entry's last four bytes are: the value itself when it fits, else its offset.
        var valueField: Int { offset + 8 }
    }

    /// The entries of the IFD at `offset` that lie wholly inside the block (a count that runs
    /// past the end is cut short, as libexif cuts it); nil when not even the count is there.
    func entries(ofIFDAt offset: Int) -> [Entry]? {
        guard let count = read16(at: offset) else { return nil }
        let fitting = min(Int(count), max(0, (bytes.count - offset - 2) / 12))
        return (0..<fitting).map { index in
            let start = offset + 2 + index * 12
            return Entry(
                offset: start, tag: read16(at: start)!, type: read16(at: start + 2)!, count: read32(at: start + 4)!)
        }
    }

    /// The offset that the IFD at `offset` gives for the next one (IFD0's is IFD1's), or nil when
    /// it is zero or not inside the block.
    func nextIFDOffset(afterIFDAt offset: Int) -> Int? {
        guard let count = read16(at: offset), let next = read32(at: offset + 2 + Int(count) * 12), next != 0 else {
            return nil
        }
        return Int(next)
    }

    /// The first value of an entry of an integer type, read at its own width and sign (a SHORT
    /// pointer in a big-endian block is in the first two bytes of the field); nil for any other
    /// type, a count of 0, or a value outside the block.
    func integer(_ entry: Entry) -> Int64? {
        guard let size = Self.integerTypeSizes[entry.type], entry.count > 0 else { return nil }
        let field = size * Int(entry.count) <= 4 ? entry.valueField : read32(at: entry.valueField).map(Int.init) ?? -1
        switch (entry.type, size) {
        case (6, _): return field >= 0 && field < bytes.count ? Int64(Int8(bitPattern: bytes[field])) : nil
        case (_, 1): return field >= 0 && field < bytes.count ? Int64(bytes[field]) : nil
        case (8, _): return read16(at: field).map { Int64(Int16(bitPattern: $0)) }
        case (_, 2): return read16(at: field).map { Int64($0) }
        case (9, _): return read32(at: field).map { Int64(Int32(bitPattern: $0)) }
        default: return read32(at: field).map { Int64($0) }
        }
    }
}

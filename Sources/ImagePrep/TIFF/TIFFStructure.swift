/// A TIFF or BigTIFF file's directories read by hand, with a bounds check on every access, for
/// what libtiff does not hand over as it is stored: the camera tags and the Exif and GPS IFDs the
/// upload's EXIF is built from (`TIFFEXIFBlock`), the ICC profile and XMP bytes, whether more
/// pages follow, and whether the file is a camera raw. A DNG or a TIFF-based raw is read the same way.
struct TIFFStructure {
    /// One directory entry: its value's bytes, in the file's byte order, when they lie inside the file.
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: UInt64
        /// Where the value is; nil when the type is unknown or the value runs past the end.
        let value: Range<Int>?
    }

    let bytes: UnsafeRawBufferPointer
    let isBigEndian: Bool
    /// BigTIFF (version 43): 8-byte offsets and counts, 20-byte entries.
    let isBigTIFF: Bool
    let ifd0Offset: Int

    /// The most entries a directory may have here; a real one has a few dozen.
    static let maxEntries = 4096

    /// Each TIFF type's size in bytes (TIFF 6.0, its supplements and BigTIFF's LONG8, SLONG8, IFD8).
    static let typeSizes: [UInt16: Int] = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8,
    ]

    /// The versions that Olympus's ORF ("RO", "RS") and Panasonic's RW2 (0x55) write where a
    /// TIFF has 42: their directories are classic TIFF's.
    static let cameraRawVersions: Set<UInt64> = [0x4F52, 0x5352, 0x55]

    /// Nil unless `bytes` start with a classic (42) or BigTIFF (43, offset size 8) header, or,
    /// with `acceptingCameraRawVersions`, an ORF's or RW2's.
    init?(_ bytes: UnsafeRawBufferPointer, acceptingCameraRawVersions: Bool = false) {
        guard bytes.count >= 8 else { return nil }
        let isBigEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): isBigEndian = false
        case (0x4D, 0x4D): isBigEndian = true
        default: return nil
        }
        let read = { (size: Int, offset: Int) in Self.read(size, at: offset, in: bytes, isBigEndian: isBigEndian) }
        switch read(2, 2) ?? 0 {
        case let version where version == 42 || acceptingCameraRawVersions && Self.cameraRawVersions.contains(version):
            isBigTIFF = false
            ifd0Offset = Int(read(4, 4) ?? 0)
        case 43:
            guard bytes.count >= 16, read(2, 4) == 8, read(2, 6) == 0, let offset = read(8, 8),
                offset <= UInt64(Int.max)
            else { return nil }
            isBigTIFF = true
            ifd0Offset = Int(offset)
        default:
            return nil
        }
        self.bytes = bytes
        self.isBigEndian = isBigEndian
    }

    /// Whether `bytes` start with a TIFF or BigTIFF header.
    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool { TIFFStructure(bytes) != nil }

    /// An unsigned integer of `size` bytes (1, 2, 4 or 8) at `offset`, in the file's order.
    func read(_ size: Int, at offset: Int) -> UInt64? {
        Self.read(size, at: offset, in: bytes, isBigEndian: isBigEndian)
    }

    private static func read(
        _ size: Int, at offset: Int, in bytes: UnsafeRawBufferPointer, isBigEndian: Bool
    ) -> UInt64? {
        ByteReader(bytes, byteOrder: isBigEndian ? .bigEndian : .littleEndian).uint(at: offset, size: size)
    }

    private var countSize: Int { isBigTIFF ? 8 : 2 }
    private var entrySize: Int { isBigTIFF ? 20 : 12 }
    private var offsetSize: Int { isBigTIFF ? 8 : 4 }

    /// The entries of the directory at `offset`; nil when it does not fit in the file or
    /// declares more than `maxEntries`.
    func entries(ofIFDAt offset: Int) -> [Entry]? {
        guard offset >= 8, let declared = read(countSize, at: offset), declared <= UInt64(Self.maxEntries) else {
            return nil
        }
        let count = Int(declared)
        let first = offset + countSize
        guard first + count * entrySize <= bytes.count else { return nil }
        return (0..<count).map { index in
            let at = first + index * entrySize
            let tag = UInt16(read(2, at: at)!)
            let type = UInt16(read(2, at: at + 2)!)
            let valueCount = read(isBigTIFF ? 8 : 4, at: at + 4)!
            let field = at + 4 + offsetSize
            var value: Range<Int>?
            if let size = Self.typeSizes[type], valueCount <= UInt64(bytes.count / size) {
                let length = Int(valueCount) * size
                let start = length <= offsetSize ? field : Int(clamping: read(offsetSize, at: field)!)
                if start <= bytes.count - length { value = start..<(start + length) }
            }
            return Entry(tag: tag, type: type, count: valueCount, value: value)
        }
    }

    /// Where the directory after the one at `offset` starts; nil for none (0) or past the end.
    func nextIFDOffset(afterIFDAt offset: Int) -> Int? {
        guard let declared = read(countSize, at: offset), declared <= UInt64(Self.maxEntries) else { return nil }
        let link = offset + countSize + Int(declared) * entrySize
        guard let next = read(offsetSize, at: link), next >= 8, next < UInt64(bytes.count) else { return nil }
        return Int(next)
    }

    /// The first value of an integer entry (BYTE, SHORT, LONG, IFD, LONG8, IFD8).
    func integer(_ entry: Entry) -> UInt64? {
        guard let value = entry.value, !value.isEmpty, let size = Self.typeSizes[entry.type],
            [1, 3, 4, 13, 16, 18].contains(entry.type)
        else { return nil }
        return read(size, at: value.lowerBound)
    }

    /// The entry's value bytes, when it has them.
    func data(_ entry: Entry) -> UnsafeRawBufferPointer? {
        entry.value.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }
}

extension [TIFFStructure.Entry] {
    func first(tag: UInt16) -> TIFFStructure.Entry? { first { $0.tag == tag } }
}

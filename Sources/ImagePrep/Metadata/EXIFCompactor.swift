/// A TIFF block (EXIF) rebuilt from what its directories reach, for one too large for an APP1
/// segment (a Xiaomi HEIC's Exif item is 192 KB): every entry of IFD0 and of the Exif, GPS and
/// Interoperability IFDs, with their values, laid out again one after another; and, unless left
/// out, IFD1 with its embedded thumbnail and the Exif IFD's maker note. Bytes that no entry
/// reaches (padding, data of old edits) are not copied.
///
/// The walk is our own, with `TIFFBlock`'s bounds check on every read, rather than libexif's
/// re-serialisation, which drops the tags libexif does not know. A maker note is moved as one
/// blob: one whose offsets count from the TIFF header (Canon's, Sony's) no longer reads
/// right, which is why it is the second thing left out; one that counts from its own start
/// (Apple's, Nikon's) or holds no offsets reads as before. Capture time, offset, GPS and
/// orientation live in the standard IFDs and are carried unchanged.
struct EXIFCompactor {
    /// What a rebuild leaves out, in the order it is given up.
    struct Omissions: OptionSet, Sendable {
        let rawValue: Int
        /// IFD1 and the JPEG thumbnail its JPEGInterchangeFormat points at.
        static let thumbnail = Omissions(rawValue: 1)
        /// The Exif IFD's MakerNote (tag 0x927C).
        static let makerNote = Omissions(rawValue: 2)
    }

    private static let exifIFDPointer: UInt16 = 0x8769
    private static let gpsIFDPointer: UInt16 = 0x8825
    private static let interoperabilityIFDPointer: UInt16 = 0xA005
    private static let makerNote: UInt16 = 0x927C
    private static let thumbnailOffset: UInt16 = 0x0201
    private static let thumbnailLength: UInt16 = 0x0202
    private static let subIFDs: UInt16 = 0x014A
    /// The IFDs nested under IFD0 that are followed (Exif, then Interoperability under it).
    private static let maxDepth = 3

    /// Bytes per value of each TIFF type (TIFF 6.0 and its IFD type 13).
    private static let typeSizes: [UInt16: Int] = [
        1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4,
    ]

    private let source: TIFFBlock
    private let omissions: Omissions
    private let limit: Int
    private var output: [UInt8] = []
    private var visited: Set<Int> = []
    /// Entries not copied because their type is unknown, their value lies outside the block,
    /// or they point at a directory this walk does not follow (SubIFDs).
    private(set) var droppedEntries = 0

    /// The rebuilt block, or nil when `tiff` is not a TIFF block or the rebuild would be larger
    /// than `limit` bytes.
    static func compacted(_ tiff: UnsafeRawBufferPointer, leavingOut omissions: Omissions, limit: Int) -> (
        block: [UInt8], droppedEntries: Int
    )? {
        guard let source = TIFFBlock(tiff) else { return nil }
        var compactor = EXIFCompactor(source: source, omissions: omissions, limit: limit)
        guard compactor.run() else { return nil }
        return (compactor.output, compactor.droppedEntries)
    }

    private init(source: TIFFBlock, omissions: Omissions, limit: Int) {
        self.source = source
        self.omissions = omissions
        self.limit = limit
    }

    private mutating func run() -> Bool {
        output = Array(source.bytes[0..<4])
        append32(8)
        guard let ifd0 = writeIFD(at: source.ifd0Offset, depth: 0) else { return false }
        if !omissions.contains(.thumbnail), let ifd1 = source.nextIFDOffset(afterIFDAt: source.ifd0Offset),
            let written = writeIFD(at: ifd1, depth: 1)
        {
            // IFD0's next-IFD field is after its entries.
            patch32(at: ifd0.nextField, UInt32(written.start))
        }
        return output.count <= limit
    }

    /// Writes the IFD at `offset` of the source, its values and the IFDs it points at; nil when
    /// it cannot be read, was written already (a loop) or the output passed the limit.
    private mutating func writeIFD(at offset: Int, depth: Int) -> (start: Int, nextField: Int)? {
        guard depth <= Self.maxDepth, !visited.contains(offset), let entries = source.entries(ofIFDAt: offset) else {
            return nil
        }
        visited.insert(offset)
        var kept: [TIFFBlock.Entry] = []
        for entry in entries where keeps(entry) { kept.append(entry) }
        alignToWord()
        let start = output.count
        append16(UInt16(kept.count))
        let firstEntry = output.count
        for entry in kept {
            output += source.bytes[entry.offset..<entry.offset + 12]
        }
        let nextField = output.count
        append32(0)
        for (index, entry) in kept.enumerated() {
            let field = firstEntry + index * 12 + 8
            guard output.count <= limit else { return nil }
            if [Self.exifIFDPointer, Self.gpsIFDPointer, Self.interoperabilityIFDPointer].contains(entry.tag) {
                if let target = source.integer(entry), let written = writeIFD(at: Int(target), depth: depth + 1) {
                    patch32(at: field, UInt32(written.start))
                } else {
                    patch32(at: field, 0)  // An IFD at 0 is none; readers skip it.
                    droppedEntries += 1
                }
            } else if entry.tag == Self.thumbnailOffset, depth == 1 {
                let length = entries.first { $0.tag == Self.thumbnailLength }.flatMap { source.integer($0) } ?? 0
                patch32(at: field, appendData(at: source.integer(entry) ?? -1, count: Int(length)) ?? 0)
            } else if let size = valueSize(entry), size > 4 {
                let at = source.read32(at: entry.valueField).map(Int.init) ?? -1
                patch32(at: field, appendData(at: Int64(at), count: size) ?? 0)
            }
        }
        return output.count <= limit ? (start, nextField) : nil
    }

    /// Whether an entry is copied: not one left out, of a known type, with its value inside
    /// the block, and not a pointer to directories this walk does not follow.
    private mutating func keeps(_ entry: TIFFBlock.Entry) -> Bool {
        if entry.tag == Self.makerNote, omissions.contains(.makerNote) { return false }
        if [Self.exifIFDPointer, Self.gpsIFDPointer, Self.interoperabilityIFDPointer].contains(entry.tag) {
            return true  // Followed, and its value rewritten, whatever its type.
        }
        guard entry.tag != Self.subIFDs, entry.type != 13, let size = valueSize(entry) else {
            droppedEntries += 1
            return false
        }
        if size > 4 {
            guard let at = source.read32(at: entry.valueField), Int(at) <= source.bytes.count - size else {
                droppedEntries += 1
                return false
            }
        }
        return true
    }

    private func valueSize(_ entry: TIFFBlock.Entry) -> Int? {
        guard let unit = Self.typeSizes[entry.type] else { return nil }
        let size = Int(entry.count).multipliedReportingOverflow(by: unit)
        return size.overflow ? nil : size.partialValue
    }

    /// Copies `count` bytes of the source from `offset` to the end of the output, at an even
    /// offset; the new offset, or nil when they are not inside the source.
    private mutating func appendData(at offset: Int64, count: Int) -> UInt32? {
        guard offset >= 0, count > 0, offset <= Int64(source.bytes.count - count) else { return nil }
        alignToWord()
        let start = output.count
        output += source.bytes[Int(offset)..<Int(offset) + count]
        return UInt32(start)
    }

    private mutating func alignToWord() {
        if output.count % 2 == 1 { output.append(0) }
    }

    private mutating func append16(_ value: UInt16) {
        let bytes = [UInt8(value >> 8), UInt8(value & 0xFF)]
        output += source.isBigEndian ? bytes : bytes.reversed()
    }

    private mutating func append32(_ value: UInt32) {
        output += [0, 0, 0, 0]
        patch32(at: output.count - 4, value)
    }

    private mutating func patch32(at offset: Int, _ value: UInt32) {
        for index in 0..<4 {
            let shift = source.isBigEndian ? (3 - index) * 8 : index * 8
            output[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }
}

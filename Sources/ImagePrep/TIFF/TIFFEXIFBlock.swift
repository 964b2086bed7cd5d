internal import CExif
internal import PlatformLayer

/// The EXIF of a file that keeps it in its own TIFF directories (a TIFF, and later a DNG or a
/// TIFF-based raw), as the TIFF block a JPEG's APP1 carries: IFD0's camera tags, the Exif IFD
/// and the GPS IFD, written anew by libexif so that the block is well-formed and holds none of
/// the original's strip or tile offsets, which point into a file the upload is not.
///
/// Values are copied as stored (type, count and bytes, in the file's byte order); what reads
/// them is `EmbeddedEXIF`, the same as for any other format.
enum TIFFEXIFBlock {
    /// IFD0's tags that describe the photo rather than how its pixels are stored.
    static let cameraTags: Set<UInt16> = [
        0x010E,  // ImageDescription
        0x010F,  // Make
        0x0110,  // Model
        0x0112,  // Orientation
        0x011A, 0x011B, 0x0128,  // XResolution, YResolution, ResolutionUnit
        0x0131,  // Software
        0x0132,  // DateTime
        0x013B,  // Artist
        0x013C,  // HostComputer
        0x8298,  // Copyright
        0x9003, 0x9004,  // DateTimeOriginal, DateTimeDigitized, where TIFF/EP puts them
        0x9010, 0x9011, 0x9012,  // OffsetTime, OffsetTimeOriginal, OffsetTimeDigitized (TIFF/EP)
    ]
    static let exifPointer: UInt16 = 0x8769
    static let gpsPointer: UInt16 = 0x8825
    /// Left out of the Exif IFD: the Interoperability pointer (an offset into the original) and
    /// the MakerNote, whose own offsets most makers count from the original file's start.
    static let droppedExifTags: Set<UInt16> = [0xA005, 0x927C]
    /// A value larger than this is not copied: no tag the upload needs is that large.
    static let maxValueSize = 16 * 1024

    /// One directory's entries and the structure their values are in.
    struct Directory {
        let structure: TIFFStructure
        let entries: [TIFFStructure.Entry]
    }

    /// `Exif\0\0` and the TIFF block, or nil when IFD0 has none of the tags above and no Exif or
    /// GPS IFD.
    static func block(of structure: TIFFStructure, ifd0: [TIFFStructure.Entry]) -> [UInt8]? {
        let linked = { (pointer: UInt16) -> Directory? in
            guard let entry = ifd0.first(tag: pointer), let offset = structure.integer(entry),
                offset <= UInt64(Int.max), let entries = structure.entries(ofIFDAt: Int(offset))
            else { return nil }
            return Directory(structure: structure, entries: entries)
        }
        return block(
            ifd0: Directory(structure: structure, entries: ifd0), exif: linked(exifPointer), gps: linked(gpsPointer))
    }

    /// The block from three directories that may each be in a TIFF structure of its own (a CR3's
    /// `CMT1`, `CMT2` and `CMT4` boxes); one in another byte order than IFD0's is left out, since
    /// its values are copied as stored.
    static func block(ifd0: Directory, exif: Directory?, gps: Directory?) -> [UInt8]? {
        guard let data = exif_data_new() else { return nil }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        let isBigEndian = ifd0.structure.isBigEndian
        exif_data_set_byte_order(data, isBigEndian ? EXIF_BYTE_ORDER_MOTOROLA : EXIF_BYTE_ORDER_INTEL)
        var added = 0
        added += copy(ifd0.entries.filter { cameraTags.contains($0.tag) }, of: ifd0.structure, into: data.pointee.ifd.0)
        // libexif's IFDs in order: 0, 1 (a thumbnail's), Exif, GPS, Interoperability.
        let subIFDs: [(directory: Directory?, content: UnsafeMutablePointer<ExifContent>?, dropped: Set<UInt16>)] = [
            (exif, data.pointee.ifd.2, droppedExifTags), (gps, data.pointee.ifd.3, []),
        ]
        for (directory, content, dropped) in subIFDs {
            guard let directory, directory.structure.isBigEndian == isBigEndian else { continue }
            added += copy(
                directory.entries.filter { !dropped.contains($0.tag) }, of: directory.structure, into: content)
        }
        guard added > 0 else { return nil }
        var saved: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        exif_data_save_data(data, &saved, &size)
        guard let saved else { return nil }
        defer { free(saved) }
        return Array(UnsafeBufferPointer(start: saved, count: Int(size)))
    }

    /// Adds the entries whose type libexif writes (TIFF 6.0's twelve; not IFD or BigTIFF's
    /// 64-bit types) and whose value is in the file; returns how many.
    private static func copy(
        _ entries: [TIFFStructure.Entry], of structure: TIFFStructure, into content: UnsafeMutablePointer<ExifContent>?
    ) -> Int {
        guard let content else { return 0 }
        var count = 0
        for source in entries where (1...12).contains(source.type) {
            guard let value = structure.data(source), !value.isEmpty, value.count <= maxValueSize,
                exif_content_get_entry(content, ExifTag(rawValue: UInt32(source.tag))) == nil,
                let entry = exif_entry_new()
            else { continue }
            defer { exif_entry_unref(entry) }
            // libexif frees an entry's data with its default allocator, which is malloc's.
            guard let copy = malloc(value.count) else { continue }
            copy.copyMemory(from: value.baseAddress!, byteCount: value.count)
            entry.pointee.tag = ExifTag(rawValue: UInt32(source.tag))
            entry.pointee.format = ExifFormat(rawValue: UInt32(source.type))
            entry.pointee.components = UInt(source.count)
            entry.pointee.data = copy.assumingMemoryBound(to: UInt8.self)
            entry.pointee.size = UInt32(value.count)
            exif_content_add_entry(content, entry)
            count += 1
        }
        return count
    }
}

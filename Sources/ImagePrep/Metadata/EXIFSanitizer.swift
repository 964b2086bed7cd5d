/// The directories (IFDs) of an EXIF block.
enum EXIFDirectory: Hashable, Sendable, CaseIterable {
    case ifd0, ifd1, exif, gps, interoperability

    /// The name in a sentence: "IFD0", "the GPS IFD".
    var name: String {
        switch self {
        case .ifd0: "IFD0"
        case .ifd1: "IFD1"
        case .exif: "the Exif IFD"
        case .gps: "the GPS IFD"
        case .interoperability: "the Interoperability IFD"
        }
    }
}

/// Makes the copy of an EXIF block that libexif loads, so that a damaged entry costs only itself.
///
/// libexif 0.6.24 (`exif_data_load_data_content`) reads five tags as offsets or lengths inside
/// the block, whatever their TIFF type: the Exif, GPS and Interoperability IFD pointers,
/// JPEGInterchangeFormat and JPEGInterchangeFormatLength. When one of them is not inside the
/// block, it stops reading the rest of that IFD; one bad thumbnail length in IFD0 loses the Exif
/// and GPS pointers sorted after it, and with them the capture time and the position. exiftool
/// reads the rest of the IFD, and does not follow a pointer that is not stored as an integer
/// ("Wrong format"). So in the copy, each such entry is blanked (twelve zero bytes: libexif skips
/// an entry of tag and type 0, which Photoshop writes), and a pointer of another integer type is
/// rewritten as the LONG it holds. The original block, and so the carried APP1, is never changed.
///
/// The walk also notes the entries that have a count of 0, which libexif drops without a word
/// and exiftool reads as empty (GPSAltitudeRef, as the Pixel 7 writes it).
enum EXIFSanitizer {
    /// What was wrong with the entries that were blanked.
    enum Problem: Hashable, Sendable {
        /// The offset or length it holds points past the end of the block.
        case pastEnd
        /// A pointer into the 8-byte TIFF header, where no IFD can start (libexif would read the
        /// header as thousands of entries).
        case intoHeader
        /// A pointer stored as another type than an integer, or with no value.
        case notAnOffset
    }

    /// Entries of one tag in one IFD that were blanked for one reason.
    struct Repair: Hashable, Sendable {
        var directory: EXIFDirectory
        var tag: UInt16
        var problem: Problem
        var count = 1

        /// Our own sentence: counts are ours, nothing else comes from the file.
        var warning: PhotoWarning {
            let owner = directory.name  // "IFD0", "the Exif IFD": a warning reads after a colon
            if let target = EXIFSanitizer.pointers[tag] {
                let what =
                    switch problem {
                    case .pastEnd: "points past the end of the EXIF block"
                    case .intoHeader: "points into the TIFF header"
                    case .notAnOffset: "does not hold an integer offset"
                    }
                let times = count == 1 ? "" : " (\(count) entries)"
                return PhotoWarning(
                    .metadata,
                    "\(owner)'s pointer to \(target.name) \(what)\(times), so \(target.name) is not read; the rest of "
                        + "\(directory.name) is.")
            }
            let name =
                tag == EXIFSanitizer.jpegInterchangeFormat ? "JPEGInterchangeFormat" : "JPEGInterchangeFormatLength"
            let entries = count == 1 ? "a damaged entry" : "\(count) damaged entries"
            return PhotoWarning(
                .metadata,
                "\(owner) had \(entries) (\(name) points past the end of the EXIF block), skipped so that the rest "
                    + "of \(directory.name) could be read.")
        }
    }

    /// A tag present in an IFD with a count of 0.
    struct EmptyEntry: Hashable, Sendable {
        var directory: EXIFDirectory
        var tag: UInt16
    }

    struct Sanitized {
        /// `Exif\0\0` and the repaired TIFF block: what libexif 0.6.24 loads (it needs the header).
        var loadable: [UInt8]
        /// In the order met.
        var repairs: [Repair] = []
        var emptyEntries: Set<EmptyEntry> = []
    }

    static let pointers: [UInt16: EXIFDirectory] = [0x8769: .exif, 0x8825: .gps, 0xA005: .interoperability]
    static let jpegInterchangeFormat: UInt16 = 0x0201
    static let jpegInterchangeFormatLength: UInt16 = 0x0202
    /// libexif caps the data it loads at 0xFFFE bytes, `Exif\0\0` included, and so checks every
    /// offset against what is left of that.
    static let libexifLimit = 0xFFFE - 6

    /// - Parameter tiff: A TIFF block, starting at its `II` or `MM`.
    static func sanitize(tiff: UnsafeRawBufferPointer) -> Sanitized {
        var result = Sanitized(loadable: JPEGLayout.exifSignature + Array(tiff))
        let size = min(tiff.count, libexifLimit)
        guard let block = TIFFBlock(UnsafeRawBufferPointer(rebasing: tiff.prefix(size))) else { return result }
        var walk = Walk(block: block, result: result)
        walk.visit(.ifd0, at: block.ifd0Offset)
        // libexif reads IFD1 after IFD0 and all it points to.
        if let ifd1 = block.nextIFDOffset(afterIFDAt: block.ifd0Offset), ifd1 < size {
            walk.visit(.ifd1, at: ifd1)
        }
        result = walk.result
        return result
    }

    /// libexif's walk over the IFDs, depth first, each directory once.
    private struct Walk {
        let block: TIFFBlock
        var result: Sanitized
        var visited: Set<EXIFDirectory> = []

        mutating func visit(_ directory: EXIFDirectory, at offset: Int) {
            guard !visited.contains(directory), let entries = block.entries(ofIFDAt: offset) else { return }
            visited.insert(directory)
            for entry in entries {
                if entry.count == 0 { result.emptyEntries.insert(EmptyEntry(directory: directory, tag: entry.tag)) }
                if let target = EXIFSanitizer.pointers[entry.tag] {
                    guard let value = block.integer(entry) else {
                        blank(entry, in: directory, because: .notAnOffset)
                        continue
                    }
                    guard value < block.bytes.count else {
                        blank(entry, in: directory, because: .pastEnd)
                        continue
                    }
                    guard value >= 8 else {
                        blank(entry, in: directory, because: .intoHeader)
                        continue
                    }
                    if entry.type != 4 || entry.count != 1 { rewriteAsLong(entry, value: UInt32(value)) }
                    visit(target, at: Int(value))
                } else if entry.tag == EXIFSanitizer.jpegInterchangeFormat
                    || entry.tag == EXIFSanitizer.jpegInterchangeFormatLength
                {
                    // libexif reads these four bytes as a LONG whatever the type says.
                    guard let value = block.read32(at: entry.valueField), value < block.bytes.count else {
                        blank(entry, in: directory, because: .pastEnd)
                        continue
                    }
                }
            }
        }

        mutating func blank(_ entry: TIFFBlock.Entry, in directory: EXIFDirectory, because problem: Problem) {
            let start = JPEGLayout.exifSignature.count + entry.offset
            result.loadable.replaceSubrange(start..<(start + 12), with: repeatElement(0, count: 12))
            let repair = Repair(directory: directory, tag: entry.tag, problem: problem)
            if let index = result.repairs.firstIndex(where: {
                ($0.directory, $0.tag, $0.problem) == (directory, entry.tag, problem)
            }) {
                result.repairs[index].count += 1
            } else {
                result.repairs.append(repair)
            }
        }

        mutating func rewriteAsLong(_ entry: TIFFBlock.Entry, value: UInt32) {
            let start = JPEGLayout.exifSignature.count + entry.offset
            let fields: [(UInt32, Int)] = [(4, 2), (1, 4), (value, 4)]  // type LONG, count 1, the value
            var at = start + 2
            for (field, width) in fields {
                for index in 0..<width {
                    let shift = block.isBigEndian ? (width - 1 - index) * 8 : index * 8
                    result.loadable[at + index] = UInt8(truncatingIfNeeded: field >> UInt32(shift))
                }
                at += width
            }
        }
    }
}

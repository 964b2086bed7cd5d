/// The JPEG previews a TIFF-based camera raw (DNG, CR2, NEF, ARW, PEF, ...) keeps in its
/// directories: IFD0 and the ones it links to, and their SubIFDs, each visited once, at most
/// `maxDirectories` of them. A preview counts only if it is a JPEG libjpeg-turbo decodes
/// (baseline or progressive): a DNG's raw data is often a lossless JPEG, which is not one.
enum RawPreviews {
    struct Preview {
        let bytes: UnsafeRawBufferPointer
        let size: PixelSize
        var longEdge: Int { max(size.width, size.height) }
    }

    static let maxDirectories = 64
    static let subIFDsTag: UInt16 = 330

    /// The preview with the longest edge, or nil when there is none.
    static func largest(in structure: TIFFStructure) -> Preview? {
        var previews: [Preview] = []
        var visited: Set<Int> = []
        var queue = [structure.ifd0Offset]
        while let offset = queue.popLast(), visited.count < maxDirectories {
            guard visited.insert(offset).inserted, let entries = structure.entries(ofIFDAt: offset) else { continue }
            if let next = structure.nextIFDOffset(afterIFDAt: offset) { queue.append(next) }
            if let subIFDs = entries.first(tag: subIFDsTag) { queue += offsets(subIFDs, in: structure) }
            previews += candidates(entries, in: structure).compactMap { range in
                let bytes = UnsafeRawBufferPointer(rebasing: structure.bytes[range])
                return JPEGFrameSize.of(bytes).map { Preview(bytes: bytes, size: $0) }
            }
        }
        return previews.max { $0.longEdge < $1.longEdge }
    }

    /// Every value of a SubIFDs entry (LONG or IFD; IFD8 in a BigTIFF).
    private static func offsets(_ entry: TIFFStructure.Entry, in structure: TIFFStructure) -> [Int] {
        guard let value = entry.value, let size = TIFFStructure.typeSizes[entry.type],
            [4, 13, 16, 18].contains(entry.type)
        else { return [] }
        return stride(from: value.lowerBound, to: value.upperBound, by: size).prefix(maxDirectories).compactMap {
            structure.read(size, at: $0).flatMap { $0 < UInt64(structure.bytes.count) ? Int($0) : nil }
        }
    }

    /// Where a directory's JPEG might be: JPEGInterchangeFormat and its length, or the one
    /// strip of a JPEG-compressed image.
    private static func candidates(_ entries: [TIFFStructure.Entry], in structure: TIFFStructure) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        let value = { (tag: UInt16) in entries.first(tag: tag).flatMap(structure.integer) }
        if let start = value(513), let length = value(514) {
            ranges.append(contentsOf: range(start, length, structure))
        }
        if let compression = value(259), compression == 6 || compression == 7,
            entries.first(tag: 273)?.count == 1, let start = value(273), let length = value(279)
        {
            ranges.append(contentsOf: range(start, length, structure))
        }
        return ranges
    }

    private static func range(_ start: UInt64, _ length: UInt64, _ structure: TIFFStructure) -> [Range<Int>] {
        let count = UInt64(structure.bytes.count)
        guard start < count, length >= 4, length <= count - start else { return [] }
        return [Int(start)..<Int(start + length)]
    }
}

/// A JPEG's size from its frame header, when it is one libjpeg-turbo decodes (SOF0, SOF1, SOF2,
/// and their arithmetic-coded forms).
enum JPEGFrameSize {
    static func of(_ bytes: UnsafeRawBufferPointer) -> PixelSize? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        let reader = ByteReader(bytes)
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            guard let length = reader.uint16(at: offset + 2) else { return nil }
            switch marker {
            case 0xC0, 0xC1, 0xC2, 0xC9, 0xCA:
                guard length >= 7, let height = reader.uint16(at: offset + 5), let width = reader.uint16(at: offset + 7)
                else { return nil }
                return width > 0 && height > 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
            case 0xC3, 0xC5...0xC7, 0xCB, 0xCD...0xCF, 0xD9, 0xDA:
                return nil  // lossless or hierarchical, or no frame before the scan
            default:
                guard length >= 2 else { return nil }
                offset += 2 + Int(length)
            }
        }
        return nil
    }
}

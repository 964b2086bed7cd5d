/// What an item's properties and small descriptions say: its stored size, a grid's or an
/// overlay's canvas, its coded sizes and format, and its rotation and mirror.
extension HEIFContainer {
    /// The item's `ispe` (image spatial extents): its size as stored.
    func size(of item: Item) -> PixelSize? {
        guard let ispe = property(.ispe, of: item), ispe.count >= 12,
            let width = ByteReader(bytes).uint(at: ispe.lowerBound + 4, size: 4),
            let height = ByteReader(bytes).uint(at: ispe.lowerBound + 8, size: 4)
        else { return nil }
        return PixelSize(width: Int(width), height: Int(height))
    }

    func property(_ type: FourCC, of item: Item) -> Range<Int>? {
        item.properties.lazy.map { properties[$0] }.first { $0.type == type }?.payload
    }

    /// The grid's declared size (ISO/IEC 23008-12 6.6.2.3.2), columns and rows.
    func grid(of item: Item) throws(Problem) -> (size: PixelSize, columns: Int, rows: Int) {
        let data = try smallData(of: item, named: "grid")
        guard data.count >= 8 else { throw .malformed("its grid description is cut short") }
        let isLarge = data[1] & 1 == 1
        guard let size = Self.size(in: data, at: 4, fieldSize: isLarge ? 4 : 2) else {
            throw .malformed("its grid description is cut short")
        }
        return (size, Int(data[3]) + 1, Int(data[2]) + 1)
    }

    /// Whether every tile declares one size, the tiles cover the grid, and each tile's coded
    /// picture is exactly its declared size. libheif 1.15 allocates a grid's canvas
    /// uninitialised and places each tile after the `ispe` sizes of the tiles before it, so
    /// canvas that no tile's decode reaches would show whatever that memory held, and a picture
    /// larger than its tile would overwrite its neighbour's edge in the order the threads finish.
    func tilesCover(_ grid: (size: PixelSize, columns: Int, rows: Int), tiles: [ItemID]) throws(Problem)
        -> Bool
    {
        let sizes = tiles.map { items[$0].flatMap(size(of:)) }
        guard let tile = sizes.first ?? nil, tile.width > 0, tile.height > 0, sizes.allSatisfy({ $0 == tile }),
            tile.width * grid.columns >= grid.size.width, tile.height * grid.rows >= grid.size.height
        else { return false }
        for id in tiles {
            guard let item = items[id], item.type == .hvc1 || item.type == .av01 else { continue }
            // A picture larger than its tile overlaps the next one, and tiles decoded on two
            // threads then leave the overlap to whichever wrote last (a batch and a photo alone
            // differed); one smaller leaves canvas uncovered.
            let coded = try codedSizes(of: item, isHEVC: item.type == .hvc1, cropped: true)
            guard coded.allSatisfy({ $0 == tile }) else { return false }
        }
        return true
    }

    /// The overlay's canvas (ISO/IEC 23008-12 6.6.2.3.3): after four 16-bit fill colour values.
    func overlayCanvas(of item: Item) throws(Problem) -> PixelSize {
        let data = try smallData(of: item, named: "overlay")
        let isLarge = data.count >= 2 && data[1] & 1 == 1
        let sizeStart = 2 + 8
        guard let size = Self.size(in: data, at: sizeStart, fieldSize: isLarge ? 4 : 2) else {
            throw .malformed("its overlay description is cut short")
        }
        return size
    }

    /// A derived image's description, which is a few bytes long.
    func smallData(of item: Item, named name: String) throws(Problem) -> [UInt8] {
        guard !item.isTruncated else { throw .truncated("the file ends before its \(name) description does") }
        guard item.extents.reduce(0, { $0 + $1.count }) <= 1024 else {
            throw .malformed("its \(name) description is far longer than one can be")
        }
        return item.extents.flatMap { Array(bytes[$0]) }
    }

    /// A width then a height, big-endian fields of `fieldSize` bytes at `offset`; nil past the end.
    private static func size(in data: [UInt8], at offset: Int, fieldSize: Int) -> PixelSize? {
        data.withUnsafeBytes { data in
            let reader = ByteReader(data)
            guard let width = reader.uint(at: offset, size: fieldSize),
                let height = reader.uint(at: offset + fieldSize, size: fieldSize)
            else { return nil }
            return PixelSize(width: Int(width), height: Int(height))
        }
    }

    /// Every size the coded image's decoder would allocate: each sequence parameter set (HEVC) or
    /// sequence header (AV1) in its configuration box and in its data, which the decoder reads too.
    ///
    /// - Parameter cropped: HEVC sizes after their conformance window: the pictures the decoder
    ///   gives out, rather than what it allocates.
    func codedSizes(of item: Item, isHEVC: Bool, cropped: Bool = false) throws(Problem) -> [PixelSize] {
        let name = isHEVC ? "hvcC" : "av1C"
        guard let configuration = property(isHEVC ? .hvcC : .av1C, of: item) else {
            throw .malformed("its \(isHEVC ? "HEVC" : "AV1") image has no decoder configuration ('\(name)' box)")
        }
        let config = UnsafeRawBufferPointer(rebasing: bytes[configuration])
        let data = item.extents.count == 1 ? Array(bytes[item.extents[0]]) : item.extents.flatMap { Array(bytes[$0]) }
        let sizes = data.withUnsafeBytes { data in
            isHEVC
                ? HEVCParameterSets.pictureSizes(configuration: config, data: data, cropped: cropped)
                : AV1SequenceHeaders.maximumFrameSizes(configuration: config, data: data)
        }
        guard let sizes else { throw .malformed("its image data is split into far more pieces than an image's") }
        return sizes
    }

    /// The chroma format and luma bit depth of `hvcC` (ISO/IEC 14496-15 8.3.3.1: bytes 16 and 17)
    /// or `av1C` (AV1-ISOBMFF 2.3.3: byte 3, high_bitdepth, twelve_bit, monochrome and the
    /// subsampling flags).
    func codedFormat(of item: Item, isHEVC: Bool) -> CodedFormat? {
        guard let configuration = property(isHEVC ? .hvcC : .av1C, of: item) else { return nil }
        let config = UnsafeRawBufferPointer(rebasing: bytes[configuration])
        if isHEVC {
            guard config.count >= 23 else { return nil }
            let chroma: [CodedFormat.Chroma] = [.monochrome, .yuv420, .yuv422, .yuv444]
            return CodedFormat(chroma: chroma[Int(config[16] & 3)], bitDepth: Int(config[17] & 7) + 8)
        }
        guard config.count >= 4 else { return nil }
        let flags = config[2]  // seq_tier_0, high_bitdepth, twelve_bit, monochrome, subsampling x, y
        let bitDepth = flags & 0x40 == 0 ? 8 : (flags & 0x20 == 0 ? 10 : 12)
        let chroma: CodedFormat.Chroma
        switch (flags & 0x10 != 0, flags & 0x08 != 0, flags & 0x04 != 0) {
        case (true, _, _): chroma = .monochrome
        case (false, true, true): chroma = .yuv420
        case (false, true, false): chroma = .yuv422
        default: chroma = .yuv444
        }
        return CodedFormat(chroma: chroma, bitDepth: bitDepth)
    }

    /// The turn that `irot` and `imir`, in the order the file associates them, give the stored
    /// pixels; nil when a `clap` crop comes with them.
    ///
    /// `irot` turns anticlockwise by quarter turns. libheif 1.15 mirrors top to bottom for
    /// `imir` axis 0 and left to right for axis 1 (`heif_transform_mirror_direction_vertical` is
    /// 0), which `heif-convert`'s output confirms (Tests/ImagePrepTests/HEIFOrientationTests.swift).
    /// An item with two of one kind is refused, as libheif 1.15.1-1+deb12u3 refuses it ("Multiple
    /// irot, imir, or clap properties"; the earlier build composed them).
    func orientation(of item: Item) throws(Problem) -> Orientation? {
        let transformations = item.properties.map { properties[$0].type }.filter { [.irot, .imir, .clap].contains($0) }
        guard Set(transformations).count == transformations.count else {
            throw .malformed("an image has two rotations, mirrors or crops of one kind")
        }
        // A left-right flip, then clockwise quarter turns: what an Orientation does.
        var flip = false
        var turns = 0
        for index in item.properties {
            let property = properties[index]
            switch property.type {
            case .irot:
                guard let angle = property.payload.first.map({ Int(bytes[$0] & 3) }) else {
                    throw .malformed("its rotation ('irot' box) is empty")
                }
                turns = (turns + 4 - angle) % 4
            case .imir:
                guard let axis = property.payload.first.map({ Int(bytes[$0] & 1) }) else {
                    throw .malformed("its mirror ('imir' box) is empty")
                }
                // Left-right flip after R^turns F^flip is R^-turns F^(flip+1); top-bottom is R^2 F.
                flip.toggle()
                turns = ((axis == 1 ? 0 : 2) - turns + 4) % 4
            case .clap:
                return nil
            default:
                continue
            }
        }
        switch (flip, turns) {
        case (false, 0): return .up
        case (true, 0): return .upMirrored
        case (false, 2): return .down
        case (true, 2): return .downMirrored
        case (true, 3): return .leftMirrored
        case (false, 1): return .right
        case (true, 1): return .rightMirrored
        default: return .left
        }
    }
}

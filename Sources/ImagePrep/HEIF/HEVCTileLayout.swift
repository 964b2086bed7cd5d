/// The primary image's HEVC tiles, as ImagePrep decodes them itself with libde265
/// (`HEIFSource.directHEVCUpload`): a grid of `hvc1` tiles, as phones write, or one `hvc1`
/// image, a grid of one tile.
///
/// The direct decode covers what phones and cameras write and libheif 1.15 decodes the same way:
/// 8-bit 4:2:0 tiles of one size that cover the canvas, or one 4:2:0 image of 8 to 12 bits (a
/// camera's 10-bit HEIF), with no rotation, mirror or crop of their own, no alpha, their data's
/// NAL units behind 4-byte lengths. For anything else the layout is nil and libheif decodes the
/// photo, as before.
struct HEVCTileLayout {
    struct Tile {
        /// The NAL units of its `hvcC` box, in order, as libheif reads them (empty ones left out).
        let parameterSets: [Range<Int>]
        /// Its data, in the order of its extents.
        let data: [Range<Int>]
        /// The matrix and range of its nclx `colr` box (libheif keeps the last); nil when it has
        /// none and libheif reads them from the stream's VUI. A grid's tiles all say JPEG's
        /// full-range BT.601 YCbCr or nothing.
        let itemColor: (matrix: Int, isFullRange: Bool)?

        var followsStreamColor: Bool { itemColor == nil }
    }

    /// The file the ranges are of, which must outlive the layout.
    let bytes: UnsafeRawBufferPointer
    /// The image's size: the grid's canvas, or the single image's `ispe`.
    let canvas: PixelSize
    /// Every tile's size, which its coded pictures are too.
    let tileSize: PixelSize
    /// Bits a sample, luma and chroma alike: 8 for a grid.
    let bitDepth: Int
    let columns: Int
    let rows: Int
    /// Row by row; a tile the grid names twice is here twice.
    let tiles: [Tile]
    /// Whether the primary is one coded image rather than a grid: libheif then keeps the
    /// decoder's own warnings with the image.
    var isSingleImage: Bool { tiles.count == 1 && canvas == tileSize }

    /// Whether the picture's rows are converted to RGB on their way to the upload
    /// (`HEIFSource.directHEVCRowUpload`): samples deeper than 8 bits, or a matrix or range
    /// other than JPEG's that the item's nclx box says. Otherwise its planes are the upload's.
    var convertsRows: Bool {
        bitDepth > 8
            || tiles.contains { tile in
                tile.itemColor.map { !$0.isFullRange || !NCLXColor.jpegMatrices.contains($0.matrix) } ?? false
            }
    }

    /// libheif 1.15 refuses an image or a grid canvas this wide or tall (its default
    /// `maximum_image_size_limit`).
    static let libheifMaximumSide = 32768
    /// libheif 1.15.1-1+deb12u2 refuses a grid of this many tiles or more (its bound on the images
    /// one decode composes: a grid of 1998 tiles decodes, one of 2000 does not, and no grid has
    /// 1999, a prime above its 256 columns).
    static let libheifMaximumTiles = 2000

    /// Whether libde265 would decode, with what `declaration` says, the picture the item
    /// declares: 4:2:0 of `size` (its `ispe`) at `bitDepth` (its `hvcC`'s), coded within one
    /// largest coding block (64) of it.
    ///
    /// libheif 1.15.1-1+deb12u2 refuses a coded size beyond its largest image and a decoded bit
    /// depth that is not the `hvcC`'s; the direct decode, which libheif does not watch, holds to
    /// this tighter rule before a byte is decoded, so that libde265 never allocates or decodes
    /// another picture than the one the plan counted.
    static func declares(
        _ size: PixelSize, bitDepth: Int = 8, in declaration: HEVCParameterSets.SequenceDeclaration
    ) -> Bool {
        declaration.chromaFormat == 1 && declaration.lumaBitDepth == bitDepth
            && declaration.chromaBitDepth == bitDepth
            && declaration.outputSize == size && declaration.codedSize.width - size.width < 64
            && declaration.codedSize.height - size.height < 64
    }
}

extension HEIFContainer {
    /// The primary image's tiles when the direct decode covers it (`HEVCTileLayout`), else nil.
    ///
    /// - Parameter plan: the primary's plan, held to the limits; its turn must be known
    ///   (no crop), since the direct decode leaves the turn to ImagePrep.
    func hevcTileLayout(plan: DecodePlan) -> HEVCTileLayout? {
        guard let primary, let item = items[primary], plan.orientation != nil, plan.tilesCoverGrids,
            !hasAlpha(primary)
        else { return nil }
        if item.type == .hvc1 {
            guard let (tile, bitDepth) = hevcTile(item, isSingleImage: true),
                plan.storedSize.width < HEVCTileLayout.libheifMaximumSide,
                plan.storedSize.height < HEVCTileLayout.libheifMaximumSide
            else { return nil }
            return HEVCTileLayout(
                bytes: bytes, canvas: plan.storedSize, tileSize: plan.storedSize, bitDepth: bitDepth, columns: 1,
                rows: 1, tiles: [tile])
        }
        guard item.type == .grid, let grid = try? grid(of: item), grid.size == plan.storedSize,
            grid.size.width < HEVCTileLayout.libheifMaximumSide, grid.size.height < HEVCTileLayout.libheifMaximumSide,
            hasPixelInformation(item, saying: 8)
        else { return nil }
        let ids = tilesLibheifReads(of: primary)
        guard ids.count == grid.columns * grid.rows, ids.count < HEVCTileLayout.libheifMaximumTiles,
            let first = ids.first.flatMap({ items[$0] }), let tileSize = size(of: first),
            tileSize.width < HEVCTileLayout.libheifMaximumSide, tileSize.height < HEVCTileLayout.libheifMaximumSide
        else { return nil }
        // libheif places each tile after those before it and refuses one that starts past the canvas.
        guard (grid.columns - 1) * tileSize.width < grid.size.width,
            (grid.rows - 1) * tileSize.height < grid.size.height
        else { return nil }
        var tiles: [HEVCTileLayout.Tile] = []
        tiles.reserveCapacity(ids.count)
        var known: [ItemID: HEVCTileLayout.Tile] = [:]
        for id in ids {
            if let tile = known[id] {
                tiles.append(tile)
                continue
            }
            guard let tileItem = items[id], tileItem.type == .hvc1, size(of: tileItem) == tileSize,
                !hasTransformations(tileItem),
                !references.contains(where: { $0.type == .auxl && $0.to.contains(id) }),
                let (tile, _) = hevcTile(tileItem, isSingleImage: false)
            else { return nil }
            known[id] = tile
            tiles.append(tile)
        }
        return HEVCTileLayout(
            bytes: bytes, canvas: grid.size, tileSize: tileSize, bitDepth: 8, columns: grid.columns, rows: grid.rows,
            tiles: tiles)
    }

    /// The grid's tiles as libheif 1.15 reads them: the first `dimg` reference from it in the
    /// first `iref` box. Tiles listed in another reference or box are not read, and libheif then
    /// refuses the grid ("Missing grid images"), as the direct decode must.
    private func tilesLibheifReads(of grid: ItemID) -> [ItemID] {
        guard let box = referenceBox else { return [] }
        let first = references.first {
            $0.type == .dimg && $0.from == grid && box.payload.contains($0.typeOffset)
        }
        return first?.to ?? []
    }

    /// A coded image the direct decode reads, and its bits a sample: 4:2:0 of an even size, 8-bit
    /// (8 to 12 bits for a single image), as its `hvcC`, its `pixi` and every sequence parameter
    /// set it holds say (`HEVCTileLayout.declares`), with NAL units behind 4-byte lengths and its
    /// data wholly in the file; a grid's tile in JPEG's YCbCr or described only by its stream.
    private func hevcTile(_ item: Item, isSingleImage: Bool) -> (HEVCTileLayout.Tile, bitDepth: Int)? {
        guard let configuration = property(.hvcC, of: item), configuration.count >= 23,
            let size = size(of: item), size.width > 0, size.height > 0, size.width % 2 == 0, size.height % 2 == 0,
            !item.isTruncated, item.extents.reduce(0, { $0 + $1.count }) == item.declaredLength
        else { return nil }
        let config = bytes[configuration]
        let base = configuration.lowerBound
        // bitDepthLumaMinus8 and bitDepthChromaMinus8, which libheif checks the pictures against.
        let bitDepth = Int(config[base + 17] & 7) + 8
        let depths = isSingleImage ? 8...12 : 8...8
        // chroma_format_idc 1 (4:2:0), luma and chroma alike, lengthSizeMinusOne 3.
        guard depths.contains(bitDepth), config[base + 16] & 3 == 1, Int(config[base + 18] & 7) + 8 == bitDepth,
            config[base + 21] & 3 == 3, hasPixelInformation(item, saying: bitDepth),
            let parameterSets = parameterSets(in: configuration),
            let declarations = sequenceDeclarations(of: item, configuration: configuration), !declarations.isEmpty,
            declarations.allSatisfy({ HEVCTileLayout.declares(size, bitDepth: bitDepth, in: $0) })
        else { return nil }
        var itemColor: (matrix: Int, isFullRange: Bool)?
        for index in item.properties where properties[index].type == .colr {
            let payload = properties[index].payload
            guard payload.count >= 4, Array(bytes[payload.prefix(4)]) == Array("nclx".utf8) else { continue }
            // colour_primaries, transfer_characteristics, matrix_coefficients, full_range_flag;
            // libheif keeps the last nclx box of an item.
            guard payload.count >= 11, let matrix = ByteReader(bytes).uint16(at: payload.lowerBound + 8).map(Int.init)
            else { return nil }
            let isFullRange = bytes[payload.lowerBound + 10] & 0x80 != 0
            guard isSingleImage || (isFullRange && NCLXColor.jpegMatrices.contains(matrix)) else { return nil }
            itemColor = (matrix, isFullRange)
        }
        return (HEVCTileLayout.Tile(parameterSets: parameterSets, data: item.extents, itemColor: itemColor), bitDepth)
    }

    /// The NAL units of an `hvcC` box's arrays (ISO/IEC 14496-15 8.3.3.1), as libheif 1.15 reads
    /// them: empty ones left out; nil when one runs past the box.
    private func parameterSets(in configuration: Range<Int>) -> [Range<Int>]? {
        var offset = configuration.lowerBound + 23
        var units: [Range<Int>] = []
        let reader = ByteReader(bytes, range: configuration)
        for _ in 0..<bytes[configuration.lowerBound + 22] {
            guard let count = reader.uint16(at: offset + 1) else { return nil }
            offset += 3
            for _ in 0..<count {
                guard let length = reader.uint16(at: offset).map(Int.init) else { return nil }
                offset += 2
                guard length <= configuration.upperBound - offset else { return nil }
                if length > 0 { units.append(offset..<(offset + length)) }
                offset += length
            }
        }
        return units
    }

    /// What every SPS of the image says, in its `hvcC` and in its data (which libde265 reads too);
    /// nil when one cannot be read.
    private func sequenceDeclarations(
        of item: Item, configuration: Range<Int>
    ) -> [HEVCParameterSets.SequenceDeclaration]? {
        let config = UnsafeRawBufferPointer(rebasing: bytes[configuration])
        // Phones write a tile's data in one extent: read in place.
        if item.extents.count == 1 {
            return HEVCParameterSets.declarations(
                configuration: config, data: UnsafeRawBufferPointer(rebasing: bytes[item.extents[0]]))
        }
        return item.extents.flatMap { bytes[$0] }.withUnsafeBytes { data in
            HEVCParameterSets.declarations(configuration: config, data: data)
        }
    }

    /// Whether a tile has a rotation, mirror or crop of its own, which libheif applies to it.
    private func hasTransformations(_ item: Item) -> Bool {
        item.properties.contains { [FourCC.irot, .imir, .clap].contains(properties[$0].type) }
    }

    /// Whether the image's `pixi`, if it has one, says `bitDepth` bits in every channel: libheif
    /// makes a grid's canvas at that depth and refuses tiles of another.
    private func hasPixelInformation(_ item: Item, saying bitDepth: Int) -> Bool {
        guard let pixi = property(.pixi, of: item) else { return true }
        // Version and flags, the channel count, then a depth per channel.
        guard pixi.count >= 6 else { return false }
        let channels = Int(bytes[pixi.lowerBound + 4])
        guard channels >= 1, pixi.count >= 5 + channels else { return false }
        return (0..<channels).allSatisfy { Int(bytes[pixi.lowerBound + 5 + $0]) == bitDepth }
    }
}

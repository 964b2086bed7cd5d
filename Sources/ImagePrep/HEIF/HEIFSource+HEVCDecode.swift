internal import CHeif
internal import PlatformLayer

extension HEIFSource {
    /// The upload made by libde265 straight from the primary's HEVC tiles (`HEVCTileLayout`), a
    /// row of tiles at a time into the resamplers, so that no full-size image is ever held; nil
    /// when libheif is to decode the photo instead: libde265 cannot be loaded, a picture is not
    /// what the file declares (another size, depth or chroma format), its samples are in another
    /// matrix or range or its stream says colours libheif would warn of, or a tile gives no
    /// picture, which libheif then refuses in its own words. So a photo comes out of this path
    /// only where libheif would decode it from the same pictures.
    ///
    /// libheif 1.15 goes through RGB for every colour image (it converts each tile to RGB, then
    /// the whole canvas back to YCbCr when YCbCr is asked for), so its planes differ from the
    /// decoder's by the rounding of that round trip (up to a few levels, more where RGB clips);
    /// these planes are the decoder's own.
    ///
    /// - Parameters:
    ///   - uploadSize: the upload's size; `reduction` the whole factor by which the canvas is
    ///     averaged down first, as `HEIFDecoder` averages libheif's planes.
    /// - Throws: `.outOfMemory` when the system will not give the buffers.
    func directHEVCUpload(_ layout: HEVCTileLayout, uploadSize: PixelSize, reduction: Int) throws(ImagePrepError)
        -> StripDecodedUpload?
    {
        guard let libde265 = Libde265.shared else { return nil }
        let began = clock.now
        let canvas = layout.canvas
        let reduced = JPEGDecoder.scaled(canvas, by: reduction)
        let target = workspace.upload
        try target.reshape(size: uploadSize, isGray: false, subsampling: .quarter, file: file)
        // One row of tiles at a time, as wide as the whole row of tiles; a single image is fed
        // from the decoder's own picture, never copied (it would be a second full-size image).
        let tileRow = workspace.decoded
        if !layout.isSingleImage {
            try tileRow.reshape(
                size: PixelSize(width: layout.columns * layout.tileSize.width, height: layout.tileSize.height),
                isGray: false, subsampling: .quarter, file: file)
        }
        // Each plane's rows as `resampled` would take them from the averaged canvas.
        let extent = (
            width: Double(canvas.width) / Double(reduction), height: Double(canvas.height) / Double(reduction)
        )
        let resamplers = workspace.stripResamplers
        var feeds: [PlaneFeed] = []
        for index in 0..<3 {
            let factor = index == 0 ? ChromaSubsampling.full : .quarter
            func real(_ size: PixelSize) -> PixelSize {
                PixelSize(
                    width: (size.width + factor.horizontal - 1) / factor.horizontal,
                    height: (size.height + factor.vertical - 1) / factor.vertical)
            }
            let plane = PlaneResample(
                source: real(reduced), target: target.planes[index], size: real(uploadSize),
                scaleX: extent.width / Double(uploadSize.width), scaleY: extent.height / Double(uploadSize.height))
            plane.start(resamplers[index], rows: 0..<plane.size.height)
            let full = real(canvas)
            feeds.append(
                PlaneFeed(
                    resampler: resamplers[index], height: full.height,
                    tileRows: layout.tileSize.height / factor.vertical,
                    averager: reduction > 1
                        ? RowAverager(width: full.width, height: full.height, factor: reduction) : nil))
        }
        let splits = configuration.splitsWorkAcrossCores
        /// Hands row of tiles `row` to the resamplers, each plane's rows from `planes`.
        func resample(row: Int, from planes: [(pixels: UnsafePointer<UInt8>, stride: Int)]) {
            _ = Parallel.run(
                { feeds[0].push(tileRow: row, from: planes[0]) },
                {
                    feeds[1].push(tileRow: row, from: planes[1])
                    feeds[2].push(tileRow: row, from: planes[2])
                },
                concurrently: splits)
        }
        var resampleTime = Duration.zero
        let decoder = TileRowDecoder(
            layout: layout, libde265: libde265, tileRow: tileRow, splitsWork: splits, cancellation: cancellation,
            picturePlanes: layout.isSingleImage
                ? { planes in
                    let start = clock.now
                    resample(row: 0, from: planes)
                    resampleTime += clock.now - start
                } : nil)
        let isDecoded = FreshMemory.filled { () -> Bool in
            // Row by row: each row of tiles is resampled before the next is decoded.
            for row in 0..<layout.rows {
                guard decoder.decode(row: row) else { return false }
                guard !layout.isSingleImage else { continue }
                let start = clock.now
                resample(row: row, from: tileRow.planes.map { (UnsafePointer($0.row(0)), $0.width) })
                resampleTime += clock.now - start
            }
            return true
        }
        // A cancelled prepare stops at the tile after the raise (`TileRowDecoder`), not in libheif.
        if !isDecoded { try cancellation.check(file: file) }
        guard isDecoded, resamplers.allSatisfy(\.isFinished) else { return nil }
        // Damage libde265 decoded past is refused, or with `acceptsIncompleteData` said, as a
        // damaged JPEG's is.
        let damage = decoder.damage.withLock { $0 }
        if let first = damage.first {
            guard configuration.acceptsIncompleteData else { throw first.error(file: file) }
            warnings += damage.map(\.warning)
        }
        for (index, plane) in target.planes.enumerated() {
            let factor = index == 0 ? ChromaSubsampling.full : .quarter
            plane.replicateEdges(
                fromWidth: (uploadSize.width + factor.horizontal - 1) / factor.horizontal,
                height: (uploadSize.height + factor.vertical - 1) / factor.vertical)
        }
        return StripDecodedUpload(
            image: target, size: uploadSize, decodedSize: reduced,
            decodeTime: clock.now - began - resampleTime, resampleTime: resampleTime, isCutInTwo: false,
            streamedUpload: nil, streamTime: .zero)
    }
}

/// One plane's rows on their way from the row of tiles (or a single image's picture) to its
/// resampler, averaged first when the photo is reduced.
private struct PlaneFeed {
    let resampler: Resampler
    /// The plane's height in the canvas, which the last row of tiles may overhang.
    let height: Int
    /// Rows of this plane in one row of tiles.
    let tileRows: Int
    let averager: RowAverager?

    /// Hands over the canvas rows of row of tiles `tileRow`, whose first row is at `rows`.
    func push(tileRow: Int, from rows: (pixels: UnsafePointer<UInt8>, stride: Int)) {
        let first = tileRow * tileRows
        for y in first..<min(first + tileRows, height) {
            let row = rows.pixels + (y - first) * rows.stride
            if let averager {
                averager.add(row, at: y) { averaged, index in resampler.push(averaged, at: index) }
            } else {
                resampler.push(row, at: y)
            }
        }
    }
}

/// Decodes the tiles of one row of a grid at a time into the row of tiles, each tile by a fresh
/// `HEVCDecoder`, and checks each picture against what the layout says (`decode(row:)`).
private struct TileRowDecoder {
    let layout: HEVCTileLayout
    let libde265: Libde265
    let tileRow: PlanarImage
    /// Whether the row's tiles are shared between two threads.
    let splitsWork: Bool
    /// Asked before each tile, as libheif's reader is asked before each tile's data.
    let cancellation: PreparationCancellation
    /// Given a single image's planes (Y, Cb, Cr) while its picture lives, instead of a copy.
    let picturePlanes: (([(pixels: UnsafePointer<UInt8>, stride: Int)]) -> Void)?
    /// What libde265 decoded past, of every tile.
    let damage = Locked<[HEVCDamage]>([])

    /// Decodes the tiles of row `row` into the row of tiles; false when one gives no picture, or
    /// one that is not what the layout says (libheif is then to decode the photo), or when the
    /// prepare is cancelled.
    func decode(row: Int) -> Bool {
        let columns = layout.columns
        guard splitsWork, columns > 1 else {
            return (0..<columns).allSatisfy { decode(tile: row * columns + $0, column: $0) }
        }
        // Every other tile on each thread: neighbours take about as long as each other.
        let (even, odd) = Parallel.run(
            { stride(from: 0, to: columns, by: 2).allSatisfy { decode(tile: row * columns + $0, column: $0) } },
            { stride(from: 1, to: columns, by: 2).allSatisfy { decode(tile: row * columns + $0, column: $0) } },
            concurrently: true)
        return even.get() && odd.get()
    }

    /// Decodes one tile into its place in the row of tiles; false, decoding nothing, once the
    /// prepare is cancelled.
    private func decode(tile index: Int, column: Int) -> Bool {
        guard !cancellation.isRaised else { return false }
        let tile = layout.tiles[index]
        guard let decoder = HEVCDecoder(libde265), decoder.push(tile, of: layout) else { return false }
        var isExpected = true
        var count = 0
        let pictures = decoder.decode { picture in
            count += 1
            // A single image's planes go to the resamplers as they come: a second picture would
            // be fed again, so such a stream is left to libheif (which keeps its last).
            isExpected = isExpected && (picturePlanes == nil || count == 1) && copy(picture, of: tile, toColumn: column)
        }
        let found = decoder.damage()
        if !found.isEmpty { damage.withLock { known in known += found.filter { !known.contains($0) } } }
        return pictures > 0 && isExpected
    }

    /// Copies a picture into column `column` of the row of tiles; false when it is not an 8-bit
    /// 4:2:0 picture of the tile's size whose samples libheif would read as JPEG's YCbCr without
    /// a warning.
    private func copy(_ picture: borrowing HEVCPicture, of tile: HEVCTileLayout.Tile, toColumn column: Int) -> Bool {
        let size = layout.tileSize
        let chroma = PixelSize(width: size.width / 2, height: size.height / 2)
        guard picture.isYCbCr420, picture.size == size, picture.size(of: 1) == chroma,
            picture.size(of: 2) == chroma, (0..<3).allSatisfy({ picture.bitsPerSample(of: $0) == 8 })
        else { return false }
        let color = picture.streamColor
        // libheif's plugin warns of a code point it does not know (and a grid's tiles' warnings
        // are lost, but such a stream is no phone's: libheif may have it).
        guard LibheifColorCodes.primaries.contains(color.primaries),
            LibheifColorCodes.transfers.contains(color.transfer), LibheifColorCodes.matrices.contains(color.matrix)
        else { return false }
        if tile.followsStreamColor {
            guard color.isFullRange, NCLXColor.jpegMatrices.contains(color.matrix) else { return false }
        }
        if let picturePlanes {
            let planes = (0..<3).compactMap { picture.plane(Int32($0)) }
            guard planes.count == 3 else { return false }
            picturePlanes(planes)
            return true
        }
        for channel in 0..<3 {
            guard let source = picture.plane(Int32(channel)) else { return false }
            let planeSize = channel == 0 ? size : chroma
            let destination = tileRow.planes[channel]
            let x = column * planeSize.width
            for y in 0..<planeSize.height {
                (destination.row(y) + x).update(from: source.pixels + y * source.stride, count: planeSize.width)
            }
        }
        return true
    }
}

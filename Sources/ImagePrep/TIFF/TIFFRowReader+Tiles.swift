internal import CTIFF

extension TIFFRowReader {
    /// Tiles, decoded by libtiff one at a time (`TIFFReadEncodedTile`) into a band of stored rows
    /// one tile high, whose rows then go to `push` top to bottom: a tile row's worth held, never
    /// the picture, and no pass through the RGBA reader's 32-bit pixels.
    ///
    /// The tile sizes come from the file: a tile larger than `maxBandBytes` is refused, and a tile
    /// libtiff cannot decode (its offset or byte count lying, its data damaged) ends the read,
    /// which the caller reports as incomplete.
    ///
    /// - Returns: whether every row the upload needs was decoded.
    func readTileRows(
        _ handle: borrowing TIFFHandle, rowBytes: Int, samples: Int, push: (UnsafeMutableRawPointer) -> Void
    ) throws(ImagePrepError) -> Bool {
        let width = layout.size.width
        let height = layout.size.height
        let tileWidth = layout.tileSize.width
        let tileHeight = layout.tileSize.height
        let bitsPerPixel = samples * layout.bitsPerSample
        // A multiple of 16 pixels wide (`isRowConvertible`), so a tile's row is whole bytes.
        let tileRowBytes = Int.saturatingProduct(tileWidth, bitsPerPixel) / 8
        let tileBytes = Int(clamping: TIFFTileSize64(handle.tiff))
        let bandHeight = min(tileHeight, height)
        guard tileBytes <= Self.maxBandBytes, rowBytes <= Self.maxBandBytes / bandHeight else {
            throw .unsupportedTIFF(
                file: file,
                reason: "its tiles are too large to decode within the limit of \(Self.maxBandBytes >> 20) MB"
            )
        }
        // libtiff's own size for a tile must hold the rows read out of it.
        guard tileBytes > 0, tileBytes >= Int.saturatingProduct(tileRowBytes, tileHeight) else { return false }
        let tile = UnsafeMutableRawPointer.allocate(byteCount: tileBytes, alignment: 8)
        defer { tile.deallocate() }
        tile.initializeMemory(as: UInt8.self, repeating: 0, count: tileBytes)
        let band = UnsafeMutableRawPointer.allocate(byteCount: rowBytes * bandHeight, alignment: 8)
        defer { band.deallocate() }
        band.initializeMemory(as: UInt8.self, repeating: 0, count: rowBytes * bandHeight)
        var y = 0
        while y < height && upload.needsRows {
            try cancellation.check(file: file)
            let rows = min(tileHeight, height - y)
            for x in stride(from: 0, to: width, by: tileWidth) {
                let index = TIFFComputeTile(handle.tiff, UInt32(x), UInt32(y), 0, 0)
                let read = Int(TIFFReadEncodedTile(handle.tiff, index, tile, tmsize_t(tileBytes)))
                guard read >= 0 else { return false }
                // A short tile leaves nothing of the one before it.
                if read < tileBytes {
                    (tile + read).initializeMemory(as: UInt8.self, repeating: 0, count: tileBytes - read)
                }
                let start = x * bitsPerPixel / 8
                let count = min(tileRowBytes, rowBytes - start)
                for row in 0..<rows {
                    (band + row * rowBytes + start).copyMemory(from: tile + row * tileRowBytes, byteCount: count)
                }
            }
            for row in 0..<rows where upload.needsRows { push(band + row * rowBytes) }
            y += rows
        }
        return true
    }
}

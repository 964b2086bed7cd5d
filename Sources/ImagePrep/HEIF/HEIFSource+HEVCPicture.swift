internal import CHeif

extension HEIFSource {
    /// The upload of a single coded HEVC image whose rows are converted
    /// (`HEVCTileLayout.convertsRows`: a camera's 10-bit HEIF, samples in BT.709 or in video
    /// range), made by libde265 directly: each row of its picture is turned into 8-bit RGB by
    /// libheif's arithmetic (`HEIFBandUpload.RowConverter`) and pushed into the resamplers while
    /// the decoder holds the picture, so that nothing beside it is whole. Through libheif, its
    /// copy of the picture and its RGB planes come on top of libde265's.
    ///
    /// Nil when libheif is to decode the photo instead, as for `directHEVCUpload`: libde265 cannot
    /// be loaded, or the stream gives no picture, more than one, or one that is not what the file
    /// declares (size, depth, chroma format) or in colours libheif would warn of or convert by
    /// another matrix. The samples are read by the item's nclx box, else by the stream's VUI, as
    /// libheif reads them.
    ///
    /// - Throws: damage libde265 decoded past, unless `acceptsIncompleteData` (then a warning);
    ///   `.outOfMemory` when the system will not give the upload's buffers.
    func directHEVCRowUpload(_ layout: HEVCTileLayout, uploadSize: PixelSize) throws(ImagePrepError) -> PlanarImage? {
        guard layout.isSingleImage, let libde265 = Libde265.shared else { return nil }
        try cancellation.check(file: file)
        let tile = layout.tiles[0]
        var converted: PlanarImage?
        var failure: ImagePrepError?
        var damage: [HEVCDamage] = []
        let pictures = FreshMemory.filled { () -> Int in
            guard let decoder = HEVCDecoder(libde265), decoder.push(tile, of: layout) else { return 0 }
            var count = 0
            _ = decoder.decode { picture in
                count += 1
                // libheif keeps a stream's last picture: the first of two is never the photo.
                guard count == 1 else { return }
                do throws(ImagePrepError) {
                    converted = try rows(of: picture, layout: layout, tile: tile, uploadSize: uploadSize)
                } catch {
                    failure = error
                }
            }
            damage = decoder.damage()
            return count
        }
        if let failure { throw failure }
        guard pictures == 1, let converted else { return nil }
        try cancellation.check(file: file)
        if let first = damage.first {
            guard configuration.acceptsIncompleteData else { throw first.error(file: file) }
            warnings += damage.map(\.warning)
        }
        return converted
    }

    /// The upload made from `picture`'s rows; nil when the picture is not the one the layout
    /// declares or its colours are not converted here as libheif converts them.
    private func rows(
        of picture: borrowing HEVCPicture, layout: HEVCTileLayout, tile: HEVCTileLayout.Tile, uploadSize: PixelSize
    ) throws(ImagePrepError) -> PlanarImage? {
        let size = layout.canvas
        let chroma = PixelSize(width: size.width / 2, height: size.height / 2)
        guard picture.isYCbCr420, picture.size == size, picture.size(of: 1) == chroma, picture.size(of: 2) == chroma,
            (0..<3).allSatisfy({ picture.bitsPerSample(of: $0) == layout.bitDepth })
        else { return nil }
        let stream = picture.streamColor
        guard LibheifColorCodes.primaries.contains(stream.primaries),
            LibheifColorCodes.transfers.contains(stream.transfer), LibheifColorCodes.matrices.contains(stream.matrix),
            let matrix = HEIFBandUpload.Matrix(
                matrix: tile.itemColor?.matrix ?? stream.matrix,
                isFullRange: tile.itemColor?.isFullRange ?? stream.isFullRange)
        else { return nil }
        let planes = (0..<3).compactMap { picture.plane(Int32($0)) }
        let sampleBytes = layout.bitDepth > 8 ? 2 : 1
        guard planes.count == 3, planes[0].stride >= size.width * sampleBytes,
            planes[1].stride >= chroma.width * sampleBytes, planes[2].stride >= chroma.width * sampleBytes
        else { return nil }
        return try HEIFBandUpload.upload(
            planes: planes, rows: .ycbcr(matrix, horizontal: 2, vertical: 2), bits: layout.bitDepth, size: size,
            context: context, uploadSize: uploadSize)
    }
}

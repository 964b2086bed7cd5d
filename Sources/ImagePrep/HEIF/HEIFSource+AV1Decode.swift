extension HEIFSource {
    /// The upload made by dav1d straight from the primary's one coded AV1 image (`AV1Image`):
    /// its Y, Cb and Cr planes converted a row at a time to 8-bit RGB by libheif's arithmetic
    /// (`HEIFBandUpload.RowConverter.Arithmetic`) and pushed into the resamplers, so that beside
    /// dav1d's picture only rows exist. libheif 1.15 would hold dav1d's picture and its per-frame
    /// data, its own copy of the picture, then RGB 4:4:4 planes at 16 bits (a 20 MP 10-bit AVIF
    /// peaked at 410 MB through it).
    ///
    /// Nil when libheif is to decode the photo instead, so that a photo comes out of this path only
    /// where libheif would decode it from the same picture: dav1d cannot be loaded, refuses the
    /// data or gives no picture (libheif then refuses the photo in its own words), the picture is
    /// not what the item declares (another size, depth or chroma layout), its sequence header says
    /// a colour code libheif would warn of, or its samples are in a matrix libheif converts
    /// otherwise (`HEIFBandUpload.Matrix`).
    ///
    /// - Parameters:
    ///   - nclx: the item's nclx colour description; without one libheif converts by the colour
    ///     the sequence header says, as this does.
    /// - Throws: `.outOfMemory` when the system will not give the upload's buffers, or the
    ///   prepare's cancellation.
    func directAV1Upload(_ image: AV1Image, nclx: NCLXColor?, uploadSize: PixelSize) throws(ImagePrepError)
        -> PlanarImage?
    {
        try cancellation.check(file: file)
        let made =
            Dav1dPicture.isAvailable
            ? FreshMemory.filled { () -> Result<PlanarImage?, ImagePrepError> in
                // Two threads as the HEVC decode splits its tiles, one when photos share the cores.
                let threads = configuration.splitsWorkAcrossCores ? 2 : 1
                guard let picture = Dav1dPicture(decoding: image.pieces, threads: threads) else {
                    return .success(nil)
                }
                return Result { () throws(ImagePrepError) in
                    try upload(of: picture, image, nclx: nclx, size: uploadSize)
                }
            } : .success(nil)
        return try made.get()
    }

    /// Converts the picture into the upload row by row; nil when it is not what `image` declares
    /// or its colour is not converted here as libheif converts it.
    private func upload(
        of picture: borrowing Dav1dPicture, _ image: AV1Image, nclx: NCLXColor?, size uploadSize: PixelSize
    ) throws(ImagePrepError) -> PlanarImage? {
        let found = picture.description
        let subsampling: (horizontal: Int, vertical: Int)
        switch (found.layout, image.format.chroma) {
        case (1, .yuv420): subsampling = (2, 2)
        case (2, .yuv422): subsampling = (2, 1)
        case (3, .yuv444): subsampling = (1, 1)
        default: return nil
        }
        let size = image.size
        guard found.width == size.width, found.height == size.height, found.bitsPerSample == image.format.bitDepth,
            (8...16).contains(image.format.bitDepth)
        else { return nil }
        // libheif's plugin warns of a code point it does not know, whatever the item says.
        guard LibheifColorCodes.primaries.contains(Int(found.primaries)),
            LibheifColorCodes.transfers.contains(Int(found.transfer)),
            LibheifColorCodes.matrices.contains(Int(found.matrix))
        else { return nil }
        // The item's nclx, else the sequence header's colour, as libheif reads them.
        let (code, isFullRange) = nclx.map { ($0.matrix, $0.isFullRange) } ?? (Int(found.matrix), found.isFullRange)
        guard let matrix = HEIFBandUpload.Matrix(matrix: code, isFullRange: isFullRange) else { return nil }
        let sampleBytes = image.format.bitDepth > 8 ? 2 : 1
        var planes: [(pixels: UnsafePointer<UInt8>, stride: Int)] = []
        for index in 0..<3 {
            let horizontal = index == 0 ? 1 : subsampling.horizontal
            guard let plane = picture.plane(index),
                plane.stride >= (size.width + horizontal - 1) / horizontal * sampleBytes
            else { return nil }
            planes.append(plane)
        }
        return try HEIFBandUpload.upload(
            planes: planes, rows: .ycbcr(matrix, horizontal: subsampling.horizontal, vertical: subsampling.vertical),
            bits: image.format.bitDepth, size: size, context: context, uploadSize: uploadSize)
    }
}

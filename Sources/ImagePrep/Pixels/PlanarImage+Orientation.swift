internal import CPixelKernels

extension PlanarImage {
    /// Writes this image into `target` turned so that it shows upright: the pixels do what the
    /// EXIF Orientation tag asked viewers to do, because the stripped copies lose the tag.
    ///
    /// Works on the real (unpadded) region of each plane, through a C kernel (`pk_orient_plane`)
    /// that moves the quarter turns' 8x8 blocks through a register transpose.
    func orient(_ orientation: Orientation, into target: PlanarImage, file: String) throws(ImagePrepError) {
        try reshape(target, toHold: orientation, file: file)
        orient(orientation, into: target, rows: 0..<target.size.height)
        target.replicateEdges()
    }

    /// Lays `target` out for this image turned by `orientation`, for `orient(_:into:rows:)`.
    func reshape(_ target: PlanarImage, toHold orientation: Orientation, file: String) throws(ImagePrepError) {
        precondition(subsampling.horizontal == subsampling.vertical, "a quarter turn needs square chroma subsampling")
        try target.reshape(
            size: orientation.swapsWidthAndHeight ? size.transposed : size, isGray: isGray, subsampling: subsampling,
            file: file)
    }

    /// Writes one band of `target`'s rows (starting on a multiple of the subsampling), so that
    /// bands can be turned on several threads; `target` is laid out by `reshape(_:toHold:)`, and
    /// its edges are replicated once every band is written (`replicateEdges`).
    func orient(_ orientation: Orientation, into target: PlanarImage, rows: Range<Int>) {
        for (index, plane) in activePlanes.enumerated() {
            let factor = index == 0 ? 1 : subsampling.horizontal
            let real = PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
            let targetHeight = orientation.swapsWidthAndHeight ? real.width : real.height
            let band = rows.lowerBound / factor..<min((rows.upperBound + factor - 1) / factor, targetHeight)
            Self.transform(plane, size: real, orientation, into: target.planes[index], rows: band)
        }
    }

    /// Fills every plane's padding from its last real column and row: chroma planes of odd-sized
    /// images have one padding column or row beyond the real region.
    func replicateEdges() {
        for (index, plane) in activePlanes.enumerated() {
            let factor = index == 0 ? 1 : subsampling.horizontal
            plane.replicateEdges(
                fromWidth: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
        }
    }

    private static func transform(
        _ source: PixelPlane, size: PixelSize, _ orientation: Orientation, into target: PixelPlane, rows: Range<Int>
    ) {
        guard !rows.isEmpty else { return }
        let w = size.width
        let h = size.height
        let stride = source.width
        // The source offset of target pixel (x, y) is origin + x * stepX + y * stepY.
        let (origin, stepX, stepY): (Int, Int, Int)
        switch orientation {
        case .up: (origin, stepX, stepY) = (0, 1, stride)
        case .upMirrored: (origin, stepX, stepY) = (w - 1, -1, stride)
        case .down: (origin, stepX, stepY) = ((h - 1) * stride + w - 1, -1, -stride)
        case .downMirrored: (origin, stepX, stepY) = ((h - 1) * stride, 1, -stride)
        case .leftMirrored: (origin, stepX, stepY) = (0, stride, 1)
        case .right: (origin, stepX, stepY) = ((h - 1) * stride, -stride, 1)
        case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * stride + w - 1, -stride, -1)
        case .left: (origin, stepX, stepY) = (w - 1, stride, -1)
        }
        let targetWidth = orientation.swapsWidthAndHeight ? h : w
        pk_orient_plane(
            source.pixels, origin + rows.lowerBound * stepY, stepX, stepY, target.row(rows.lowerBound), target.width,
            targetWidth, rows.count)
    }
}

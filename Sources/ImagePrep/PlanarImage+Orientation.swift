internal import CPixelKernels

extension PlanarImage {
    /// Writes this image into `target` turned so that it shows upright: the pixels do what the
    /// EXIF Orientation tag asked viewers to do, because the stripped copies lose the tag.
    ///
    /// Works on the real (unpadded) region of each plane, through a C kernel (`pk_orient_plane`)
    /// that moves the quarter turns' 8x8 blocks through a register transpose.
    func orient(_ orientation: Orientation, into target: PlanarImage) {
        precondition(subsampling.horizontal == subsampling.vertical, "a quarter turn needs square chroma subsampling")
        let targetSize = orientation.swapsWidthAndHeight ? size.transposed : size
        target.reshape(size: targetSize, isGray: isGray, subsampling: subsampling)
        for (index, plane) in activePlanes.enumerated() {
            let factor = index == 0 ? 1 : subsampling.horizontal
            let real = PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
            Self.transform(plane, size: real, orientation, into: target.planes[index])
        }
        target.replicateLumaEdges()
    }

    private static func transform(
        _ source: PixelPlane, size: PixelSize, _ orientation: Orientation, into target: PixelPlane
    ) {
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
        let targetHeight = orientation.swapsWidthAndHeight ? w : h
        pk_orient_plane(source.pixels, origin, stepX, stepY, target.pixels, target.width, targetWidth, targetHeight)
        // Chroma planes of odd-sized images have one padding column or row beyond the real
        // region; keep it a copy of the edge.
        target.replicateEdges(fromWidth: targetWidth, height: targetHeight)
    }
}

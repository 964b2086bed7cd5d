extension PlanarImage {
    /// This image at `size` as 4:2:0 (or gray) planes: itself when it already is that, else
    /// resampled into `target`, each plane split into bands across `lanes` (one or two).
    ///
    /// - Parameter extent: how many of its pixels the picture spans; less than its size when a
    ///   DCT scale rounded a side up.
    func resampled(
        extent: (width: Double, height: Double), to size: PixelSize, into target: PlanarImage, lanes: [CopyLane],
        timings: inout StageTimings, file: String
    ) throws(ImagePrepError) -> PlanarImage {
        let source = self
        if source.size == size, source.isGray || source.subsampling == .quarter { return source }
        let clock = ContinuousClock()
        let start = clock.now
        try target.reshape(size: size, isGray: source.isGray, subsampling: .quarter, file: file)
        for (index, plane) in source.activePlanes.enumerated() {
            let sourceFactor = index == 0 ? ChromaSubsampling.full : source.subsampling
            let targetFactor = index == 0 ? ChromaSubsampling.full : target.subsampling
            let sourceReal = PixelSize(
                width: (source.size.width + sourceFactor.horizontal - 1) / sourceFactor.horizontal,
                height: (source.size.height + sourceFactor.vertical - 1) / sourceFactor.vertical)
            let targetReal = PixelSize(
                width: (size.width + targetFactor.horizontal - 1) / targetFactor.horizontal,
                height: (size.height + targetFactor.vertical - 1) / targetFactor.vertical)
            let scaleX =
                extent.width / Double(size.width)
                * Double(targetFactor.horizontal) / Double(sourceFactor.horizontal)
            let scaleY =
                extent.height / Double(size.height)
                * Double(targetFactor.vertical) / Double(sourceFactor.vertical)
            let targetPlane = target.planes[index]
            // Bands start on a multiple of 8 rows, the resampler's block.
            let split = lanes.count == 1 ? targetReal.height : (targetReal.height / 2 + 7) / 8 * 8
            let bands = [0..<min(split, targetReal.height), min(split, targetReal.height)..<targetReal.height]
            Parallel.forEach(0..<lanes.count) { band in
                lanes[band].resampler.resample(
                    plane, size: sourceReal, into: targetPlane, size: targetReal, scaleX: scaleX, scaleY: scaleY,
                    rows: lanes.count == 1 ? 0..<targetReal.height : bands[band])
            }
            targetPlane.replicateEdges(fromWidth: targetReal.width, height: targetReal.height)
        }
        timings.resample += clock.now - start
        return target
    }
}

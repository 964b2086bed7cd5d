/// The upload copy's planes as a strip decode made them.
struct StripDecodedUpload {
    let image: PlanarImage
    let size: PixelSize
    /// The size libjpeg decoded at (a DCT scale of the original).
    let decodedSize: PixelSize
    /// The decoders' and the resamplers' time, summed over the threads that ran them.
    let decodeTime: Duration
    let resampleTime: Duration
    /// Whether two decoders made it at once, each a band (`RestartSplit`).
    let isCutInTwo: Bool
    /// The upload's file as TurboJPEG would encode the planes, when it was encoded as its rows
    /// were made (`JPEGStreamEncoder`), in the first lane's encode buffer; and that encode's time.
    let streamedUpload: UnsafeRawBufferPointer?
    let streamTime: Duration
}

extension JPEGSource {
    /// The upload copy made from the strips of a `JPEGStripDecoder`, resampled as they come;
    /// nil when the photo cannot go this way or libjpeg had anything to say about it. It is
    /// then decoded whole (`JPEGDecoder`), which reports in our words what was lost; a strip
    /// decode stopped halfway leaves nothing that is read.
    ///
    /// Without a whole image to hold, the DCT scale can be a larger one than a whole decode
    /// takes: as libvips does, it is the smallest that leaves the resampler a reduction of 2 or
    /// more (or none at all), so the 4608 px photos are shrunk by Lanczos3 alone, not by the
    /// DCT's blurrier halving first. Speed mode keeps the whole decode's rule.
    ///
    /// With `splitsWorkAcrossCores` the work takes two threads: a photo with restart markers is
    /// cut in two (`RestartSplit`) and each thread decodes and resamples one band; any other
    /// photo's strips are resampled on a second thread while libjpeg decodes the next ones.
    func stripDecoded(
        _ bytes: UnsafeRawBufferPointer, header: JPEGHeader, layout: JPEGLayout, to exactSize: PixelSize
    ) throws(ImagePrepError) -> StripDecodedUpload? {
        guard header.colorModel == .ycbcr || header.colorModel == .gray else { return nil }
        let began = clock.now
        var size = exactSize
        let denominator: Int
        if configuration.dctScaleTolerance > 0 {
            denominator = JPEGDecoder.scaleDenominator(
                from: header.size, to: size, tolerance: configuration.dctScaleTolerance)
        } else {
            denominator =
                JPEGDecoder.scaleDenominators.first { denominator in
                    let scaled = JPEGDecoder.scaled(header.size, by: denominator)
                    return scaled == size
                        || (scaled.width >= 2 * size.width && scaled.height >= 2 * size.height)
                } ?? 1
        }
        let decodedSize = JPEGDecoder.scaled(header.size, by: denominator)
        if decodedSize.longEdge < size.longEdge { size = decodedSize }
        let splitsWork = configuration.splitsWorkAcrossCores
        var decoder = try JPEGStripDecoder(file: file)
        guard decoder.start(bytes, scaleDenominator: denominator, slots: splitsWork ? JPEGStripDecoder.slotCount : 1),
            decoder.size == decodedSize,
            decoder.components.count == (header.colorModel == .gray ? 1 : 3)
        else { return nil }

        let target = workspace.upload
        try target.reshape(size: size, isGray: header.colorModel == .gray, subsampling: .quarter, file: file)
        // A side that the DCT scale does not divide decodes to one pixel more than its share.
        let extent = (
            width: Double(header.size.width) / Double(denominator),
            height: Double(header.size.height) / Double(denominator)
        )
        var planes: [PlaneResample] = []
        for (index, component) in decoder.components.enumerated() {
            guard component.size.width > 0, component.size.height > 0 else { return nil }
            let targetFactor = index == 0 ? ChromaSubsampling.full : target.subsampling
            planes.append(
                PlaneResample(
                    source: component.size, target: target.planes[index],
                    size: PixelSize(
                        width: (size.width + targetFactor.horizontal - 1) / targetFactor.horizontal,
                        height: (size.height + targetFactor.vertical - 1) / targetFactor.vertical),
                    scaleX: extent.width / Double(size.width) * Double(targetFactor.horizontal)
                        * component.samplesPerPixel.horizontal,
                    scaleY: extent.height / Double(size.height) * Double(targetFactor.vertical)
                        * component.samplesPerPixel.vertical))
        }

        var times = StripTimes()
        var split: SplitDecoder?
        if splitsWork, let cut = RestartSplit.find(in: bytes, layout: layout) {
            split = try SplitDecoder(cut, of: bytes, scaleDenominator: denominator, planes: planes, file: file)
        }
        let isDecoded: Bool
        let isCutInTwo = split != nil
        var stream: JPEGStreamEncoder?
        if let split {
            isDecoded = decodeInTwoBands(top: decoder, bottom: split, planes: planes, times: &times)
        } else {
            let resamplers = workspace.stripResamplers
            for (index, plane) in planes.enumerated() { plane.start(resamplers[index], rows: 0..<plane.size.height) }
            if splitsWork {
                stream = JPEGStreamEncoder(
                    image: target, quality: configuration.quality, buffer: workspace.lanes[0].encodeBuffer)
                decodePipelined(decoder, into: resamplers, encoding: stream, times: &times)
            } else {
                decodeBand(decoder, into: resamplers[...], times: &times)
            }
            isDecoded = decoder.finish() && resamplers.prefix(planes.count).allSatisfy(\.isFinished)
        }
        // A decode stopped by a cancel is not one to decode again whole.
        try cancellation.check(file: file)
        guard isDecoded else { return nil }
        for (index, plane) in target.activePlanes.enumerated() {
            plane.replicateEdges(fromWidth: planes[index].size.width, height: planes[index].size.height)
        }
        let streamStart = clock.now
        let streamedUpload = stream?.finish()
        let streamEnd = clock.now - streamStart
        times.encoding += streamEnd
        // The decode's own time: all but the strip loops and the stream's end, and the loops' reading.
        let decodeTime = clock.now - began - times.loops + times.reading - streamEnd
        return StripDecodedUpload(
            image: target, size: size, decodedSize: decodedSize, decodeTime: decodeTime,
            resampleTime: times.resampling, isCutInTwo: isCutInTwo, streamedUpload: streamedUpload,
            streamTime: times.encoding)
    }

    /// Decodes strips into `resamplers` on this thread until the strips end, or, for the top of
    /// a photo cut in two, until every resampler is finished and the strips above the cut are
    /// all read (so that damage there is found as a whole decode would find it). Each strip's
    /// rows are pushed at their index plus the component's offset.
    private func decodeBand(
        _ decoder: borrowing JPEGStripDecoder, into resamplers: ArraySlice<Resampler>, rowOffsets: [Int]? = nil,
        stoppingAfter stripsAboveCut: Int? = nil, times: inout StripTimes
    ) {
        let loopStart = clock.now
        defer { times.loops += clock.now - loopStart }
        var stripsRead = 0
        while true {
            if let stripsAboveCut, stripsRead >= stripsAboveCut, resamplers.allSatisfy(\.isFinished) { break }
            if cancellation.isRaised { break }
            var start = clock.now
            let strip = decoder.read(into: 0)
            times.reading += clock.now - start
            guard let strip else { break }
            stripsRead += 1
            start = clock.now
            decoder.rows(of: strip) { component, row, index in
                resamplers[resamplers.startIndex + component].push(row, at: index + (rowOffsets?[component] ?? 0))
            }
            times.resampling += clock.now - start
        }
    }

    /// Decodes every strip on this thread while a second one resamples the strips already
    /// decoded, and hands the upload's rows made to `stream` as they come.
    private func decodePipelined(
        _ decoder: borrowing JPEGStripDecoder, into resamplers: [Resampler], encoding stream: JPEGStreamEncoder?,
        times: inout StripTimes
    ) {
        let loopStart = clock.now
        defer { times.loops += clock.now - loopStart }
        let slots = decoder.slots
        var reading = Duration.zero
        var resampling = Duration.zero
        var encoding = Duration.zero
        let hasChroma = decoder.components.count > 1
        // Strips go over 64 rows of luma at a time (8 strips of a 4:2:2 photo, 4 of a 4:2:0
        // one), and as many slots again are the decoder's to fill meanwhile: a 4000x3000 4:2:2
        // photo's 375 strips wake the resampling thread 47 times, not 375.
        let batch = min(JPEGStripDecoder.slotCount / 2, max(1, 64 / max(1, decoder.components[0].stripRows)))
        Parallel.pipeline(slots: 2 * batch, batch: batch) { slot -> JPEGStripDecoder.Strip? in
            if cancellation.isRaised { return nil }
            let start = clock.now
            defer { reading += clock.now - start }
            return decoder.read(into: slot)
        } consume: { strip in
            let start = clock.now
            slots.rows(of: strip) { component, row, index in resamplers[component].push(row, at: index) }
            let resampled = clock.now
            resampling += resampled - start
            guard let stream else { return }
            stream.encodeRows(
                madeLuma: resamplers[0].madeRowsEnd,
                chroma: hasChroma ? min(resamplers[1].madeRowsEnd, resamplers[2].madeRowsEnd) : 0)
            encoding += clock.now - resampled
        }
        times.reading += reading
        times.resampling += resampling
        times.encoding += encoding
    }

    /// Decodes the photo's top and bottom at once, each into the target rows that need only
    /// its own source rows: the top band's decoder goes on past the cut until its resamplers
    /// have every row they read, which is a strip or so; the bottom's reads to the end.
    ///
    /// - Returns: whether both bands decoded without a complaint and every target row is made.
    private func decodeInTwoBands(
        top: borrowing JPEGStripDecoder, bottom: borrowing SplitDecoder, planes: [PlaneResample],
        times: inout StripTimes
    ) -> Bool {
        let topResamplers = workspace.stripResamplers.prefix(planes.count)
        let bottomResamplers = workspace.bottomBandResamplers.prefix(planes.count)
        for (index, plane) in planes.enumerated() {
            let cut = bottom.firstTargetRows[index]
            plane.start(topResamplers[index], rows: 0..<cut)
            plane.start(bottomResamplers[index], rows: cut..<plane.size.height)
        }
        var topTimes = StripTimes()
        var bottomTimes = StripTimes()
        let (topDone, bottomDone) = Parallel.run(
            { () -> Bool in
                decodeBand(top, into: topResamplers, stoppingAfter: bottom.mcuRow, times: &topTimes)
                return topResamplers.allSatisfy(\.isFinished)
            },
            { () -> Bool in
                decodeBand(bottom.decoder, into: bottomResamplers, rowOffsets: bottom.rowOffsets, times: &bottomTimes)
                return bottom.decoder.finish() && bottomResamplers.allSatisfy(\.isFinished)
            }, concurrently: true)
        times.reading += topTimes.reading + bottomTimes.reading
        times.resampling += topTimes.resampling + bottomTimes.resampling
        // Both loops ran at once: the wall time they took is the longer one.
        times.loops += max(topTimes.loops, bottomTimes.loops)
        return topDone.get() && bottomDone.get()
    }
}

/// How one plane of the upload is made from one component's samples.
struct PlaneResample {
    let source: PixelSize
    let target: PixelPlane
    let size: PixelSize
    let scaleX: Double
    let scaleY: Double

    func start(_ resampler: Resampler, rows: Range<Int>) {
        resampler.start(sourceSize: source, into: target, size: size, scaleX: scaleX, scaleY: scaleY, rows: rows)
    }
}

/// The bottom part of a photo cut at a restart marker, started, and where its rows go.
private struct SplitDecoder: ~Copyable {
    let decoder: JPEGStripDecoder
    /// The first strip (MCU row) of the bottom part.
    let mcuRow: Int
    /// Per component, the index in the whole image of the bottom part's first row.
    let rowOffsets: [Int]
    /// Per plane, the first target row that reads no source row above the cut.
    let firstTargetRows: [Int]

    /// Nil when libjpeg does not decode the bottom part as the rest of the whole image, or
    /// when no target row can be made from the bottom part alone (a large reduction of a small
    /// bottom), which would leave the second decoder nothing to do but check the data.
    ///
    /// - Parameter bytes: the whole photo, which must outlive the decoder.
    init?(
        _ cut: RestartSplit, of bytes: UnsafeRawBufferPointer, scaleDenominator: Int, planes: [PlaneResample],
        file: String
    ) throws(ImagePrepError) {
        var decoder = try JPEGStripDecoder(file: file)
        guard
            decoder.start(
                head: cut.bottomHead, tail: UnsafeRawBufferPointer(rebasing: bytes[cut.bottomDataStart...]),
                scaleDenominator: scaleDenominator),
            decoder.components.count == planes.count
        else { return nil }
        var rowOffsets: [Int] = []
        var firstTargetRows: [Int] = []
        for (component, plane) in zip(decoder.components, planes) {
            let offset = cut.mcuRow * component.stripRows
            // The bottom part's rows must be exactly the rest of the whole image's.
            guard component.size.width == plane.source.width, offset + component.size.height == plane.source.height
            else { return nil }
            rowOffsets.append(offset)
            firstTargetRows.append(
                Resampler.firstTargetRow(
                    readingFrom: offset, sourceHeight: plane.source.height, targetHeight: plane.size.height,
                    scaleY: plane.scaleY))
        }
        guard zip(firstTargetRows, planes).contains(where: { $0 < $1.size.height }) else { return nil }
        self.decoder = decoder
        mcuRow = cut.mcuRow
        self.rowOffsets = rowOffsets
        self.firstTargetRows = firstTargetRows
    }
}

/// Where a strip decode's time went.
private struct StripTimes {
    /// In libjpeg, decoding strips.
    var reading = Duration.zero
    /// In the resamplers.
    var resampling = Duration.zero
    /// Encoding the upload as its rows come (`JPEGStreamEncoder`).
    var encoding = Duration.zero
    /// The wall time of the strip loops, which the ones above are part of.
    var loops = Duration.zero
}

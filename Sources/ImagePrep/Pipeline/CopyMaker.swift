#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes the copies of one photo. Holds no buffers: each call is given the lane to work in, so
/// two calls on different lanes can run at once.
struct CopyMaker {
    let quality: Int
    let orientation: Orientation
    let conversion: ColorConverter.DisplayConversion
    let comments: [Data]
    let file: String
    let cancellation: PreparationCancellation

    /// Encodes the upload copy with its metadata, and with only the comments as the display copy
    /// too when that shares the upload's pixels.
    ///
    /// - Parameter streamed: the upload's file already encoded from these planes, in `lane`'s
    ///   buffer (`JPEGStreamEncoder`), which only needs the metadata put in.
    func encodeUpload(
        _ upload: PlanarImage, segments: [Data], sharingDisplay: Bool, streamed: UnsafeRawBufferPointer?,
        lane: CopyLane, timings: inout StageTimings
    ) throws(ImagePrepError) -> [Data] {
        try cancellation.check(file: file)
        let start = ContinuousClock.now
        let carried =
            [CarriedSegments(segments: segments)] + (sharingDisplay ? [CarriedSegments(segments: comments)] : [])
        defer { timings.encode += ContinuousClock.now - start }
        if let streamed { return carried.map { JPEGEncoder.assemble(streamed, carrying: $0) } }
        return try JPEGEncoder.encode(
            upload, quality: quality, carrying: carried, compressor: Compressor(file: file), buffer: lane.encodeBuffer,
            file: file)
    }

    /// A stripped copy of `upload` at `size`: turned upright, in sRGB, with only the comments.
    func strippedCopy(
        of upload: PlanarImage, size: PixelSize, lane: CopyLane, timings: inout StageTimings
    ) throws(ImagePrepError) -> EncodedJPEG {
        let pixels = try uprightPixels(of: upload, size: size, lane: lane, workers: [lane], timings: &timings)
        return try encodeStripped(pixels, lane: lane, timings: &timings)
    }

    /// The pixels of a stripped copy of `upload` at `size`, turned upright and in sRGB, in
    /// `lane`'s buffers, made in bands of rows by `workers` (one or two lanes) at once.
    ///
    /// The colour conversion works on the planes in place, so it needs a copy of its own: the
    /// turned copy when the photo is turned, else a plain copy (the upload's pixels may still be
    /// read by the other lane).
    func uprightPixels(
        of upload: PlanarImage, size: PixelSize, lane: CopyLane, workers: [CopyLane], timings: inout StageTimings
    ) throws(ImagePrepError) -> PlanarImage {
        try cancellation.check(file: file)
        let source = try upload.resampled(
            extent: upload.extent, to: size, into: lane.resized, lanes: workers, timings: &timings, file: file)
        guard orientation != .up || conversion.isNeeded else { return source }
        let upright = lane.oriented
        try source.reshape(upright, toHold: orientation, file: file)
        // Bands of whole 16-row blocks, so that the chroma bands start on even rows too.
        let height = upright.size.height
        let split = workers.count == 1 ? height : min(height, (height / 2 + 15) / 16 * 16)
        var topTimings = StageTimings()
        var bottomTimings = StageTimings()
        let results = Parallel.run(
            { () throws(ImagePrepError) in
                try makeUpright(source, into: upright, rows: 0..<split, lane: workers[0], timings: &topTimings)
            },
            { () throws(ImagePrepError) in
                try makeUpright(
                    source, into: upright, rows: split..<height, lane: workers.last!, timings: &bottomTimings)
            }, concurrently: workers.count > 1)
        timings.add(topTimings)
        timings.add(bottomTimings)
        try results.0.get()
        try results.1.get()
        upright.replicateEdges()
        return upright
    }

    /// One band of rows of `upright`: turned from `source` and converted, with `lane`'s scratch.
    private func makeUpright(
        _ source: PlanarImage, into upright: PlanarImage, rows: Range<Int>, lane: CopyLane,
        timings: inout StageTimings
    ) throws(ImagePrepError) {
        guard !rows.isEmpty else { return }
        let clock = ContinuousClock()
        var start = clock.now
        source.orient(orientation, into: upright, rows: rows)
        timings.rotate += clock.now - start
        guard conversion.isNeeded else { return }
        start = clock.now
        try conversion.apply(
            to: upright, rows: rows, stripBuffer: lane.scratch, compressor: Compressor(file: file),
            decompressor: Decompressor(file: file), file: file)
        timings.color += clock.now - start
    }

    /// Encodes a stripped copy's upright pixels with only the comments.
    func encodeStripped(_ pixels: PlanarImage, lane: CopyLane, timings: inout StageTimings) throws(ImagePrepError)
        -> EncodedJPEG
    {
        try cancellation.check(file: file)
        let start = ContinuousClock.now
        let data = try JPEGEncoder.encode(
            pixels, quality: quality, carrying: [CarriedSegments(segments: comments)],
            compressor: Compressor(file: file), buffer: lane.encodeBuffer, file: file)[0]
        timings.encode += ContinuousClock.now - start
        return EncodedJPEG(data: data, size: pixels.size)
    }
}

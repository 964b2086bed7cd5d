internal import CPixelKernels
internal import PlatformLayer

/// Which build of the C pixel kernels runs (`CPixelKernels`): the fastest this CPU has, or the
/// baseline build that runs on every CPU of the architecture, which the tests compare it with.
struct PixelKernels: @unchecked Sendable {
    // A pointer to a constant table of functions in the C library: safe to share.
    let table: UnsafePointer<pk_kernels>

    /// AVX2 with FMA when the CPU has them, else the baseline.
    static let best = PixelKernels(table: pk_best_kernels())
    /// SSE2 on x86-64, NEON on arm64.
    static let portable = PixelKernels(table: pk_portable_kernels())

    var name: String { String(cString: table.pointee.name) }

    /// One row of interleaved pixels (`channels`: 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA) as
    /// JPEG's YCbCr, alpha composited over `background` (`rowToYCbCr` in PixelKernels.h).
    func rowToYCbCr(
        _ row: UnsafePointer<UInt8>, width: Int, channels: Int, background: UnsafePointer<UInt8>,
        luma: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>
    ) {
        table.pointee.rowToYCbCr(row, width, Int32(channels), background, luma, cb, cr)
    }
}

/// The weights of a Lanczos3 filter along one axis: for each output sample, where its taps start
/// in the input and what they weigh.
///
/// Weights are stored `stride` apart and zero past each sample's count; `stride` is even, so that
/// the horizontal pass can run two sums over it.
struct FilterBank: Sendable {
    struct Key: Hashable, Sendable {
        let inputCount: Int
        let outputCount: Int
        let scale: Double
    }

    let stride: Int
    let starts: [Int32]
    let counts: [Int32]
    let weights: [Float]
    /// The same weights in 2^14 fixed point, for the passes in integers: the vertical pass over
    /// bytes and the horizontal pass.
    let fixedWeights: [Int16]

    /// - Parameters:
    ///   - scale: input samples per output sample (greater than 1 when shrinking).
    ///   - reusesPeriod: whether outputs that repeat an earlier one's taps copy its weights (the
    ///     same, bit for bit) rather than work them out; false only to check that they are.
    init(inputCount: Int, outputCount: Int, scale: Double, reusesPeriod: Bool = true) {
        let support = 3 * max(scale, 1)
        let maxTaps = Int((2 * support).rounded(.up)) + 1
        let stride = (maxTaps + 1) / 2 * 2
        let period = reusesPeriod ? Self.period(scale: scale, outputCount: outputCount) ?? 0 : 0
        var starts = [Int32](repeating: 0, count: outputCount)
        var counts = [Int32](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * stride)
        starts.withUnsafeMutableBufferPointer { starts in
            counts.withUnsafeMutableBufferPointer { counts in
                weights.withUnsafeMutableBufferPointer { weights in
                    _ = pk_lanczos3_weights(
                        inputCount, outputCount, scale, Int32(stride), period, starts.baseAddress!,
                        counts.baseAddress!, weights.baseAddress!)
                }
            }
        }
        var fixedWeights = [Int16](repeating: 0, count: outputCount * stride)
        weights.withUnsafeBufferPointer { weights in
            fixedWeights.withUnsafeMutableBufferPointer { fixed in
                if let weights = weights.baseAddress, let fixed = fixed.baseAddress {
                    pk_fixed_weights(weights, outputCount, Int32(stride), period, fixed)
                }
            }
        }
        self.stride = stride
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.fixedWeights = fixedWeights
    }

    /// How many outputs apart a filter at `scale` repeats its taps, which the weights are then
    /// copied along (`pk_filter_period`); nil when it does not.
    static func period(scale: Double, outputCount: Int) -> Int? {
        let period = pk_filter_period(scale, outputCount)
        return period > 0 ? period : nil
    }

    /// The input samples that output `index` reads.
    func taps(of index: Int) -> Range<Int> { Int(starts[index])..<Int(starts[index] + counts[index]) }
}

/// Resizes one 8-bit plane with a separable Lanczos3 filter, after a box average for large
/// reductions, taking the source rows in order as they come: from a decoder one strip at a time
/// (`start`, then `push` each row), or from a whole plane (`resample`).
///
/// Output rows are made eight at a time, as soon as the source rows they reach have come. The
/// vertical pass runs first: each of the eight rows sums its input rows across the whole width,
/// from a ring that holds only what one block reaches. The ring keeps the source's bytes, which
/// the kernel sums with 2^14 fixed-point weights, two taps an instruction: as floats, a 4,032 px
/// plane's ring is 500 KB, a whole L2 cache, and the batch ran 12 % slower (the box stage's
/// averages, not whole, stay floats and are summed as floats). The eight results are kept as
/// 16-bit integers with six fractional bits and transposed, so that the horizontal pass makes
/// the eight rows' samples at one column together, in integers: one 8-lane multiply-add of
/// 16-bit pairs per two taps, no horizontal reductions. With floats it took twice the time,
/// waiting on each multiply-add's latency and loading a weight per tap. Both passes, and
/// every other loop over samples, are C kernels (`CPixelKernels`), AVX2 where the CPU has it. No
/// image-sized buffer is ever allocated; the buffers and the filter weights stay for the next
/// photo.
///
/// A Lanczos3 filter reducing by a factor r reaches 6r input rows for each output row, so its
/// ring and its weights grow with r: a 1 px copy of a 1250 px decode would need 600 MB. So a
/// reduction by `boxReductionThreshold` or more on an axis is done in two stages, as libvips
/// does (`vips_shrink`, then `vips_reduce`): a box average over a whole number of samples, made
/// as each row enters the ring, down to between `boxReductionThreshold` and twice that of the
/// target, then Lanczos3 for the rest. Every buffer is then bounded by the input width and the
/// threshold, never by the reduction. The box leaves at most 3 % of the final resolution's
/// finest detail out (its response at the output's Nyquist frequency is at least
/// sinc(π/8) = 0.974), and reductions below the threshold, which all copies at the default
/// sizes are, are pure Lanczos3.
final class Resampler {
    private static let rowsPerBlock = 8
    /// The reduction on an axis from which a box stage comes first.
    static let boxReductionThreshold = 8.0

    let kernels: PixelKernels
    /// The Lanczos3 stage's input rows: the source's bytes as they come, or the box stage's
    /// averages, which are not whole numbers.
    private var byteRing = GrowableBuffer<UInt8>()
    private var ring = GrowableBuffer<Float>()
    /// The eight vertical sums of a block (16-bit, `PK_SUM_ONE` to a level), and the horizontal
    /// pass's scratch (32-byte aligned).
    private var sums = GrowableBuffer<Int16>()
    private var pairs = AlignedWords()
    /// One row of box sums before the columns are averaged.
    private var boxRow = GrowableBuffer<Float>()
    /// The filters made so far, shared by every resampler: a batch's photos mostly share their
    /// sizes, and the two bands of one photo and its planes' resamplers the same filters.
    private static let filterBanks = Locked<[FilterBank.Key: FilterBank]>([:])
    private var job: Job?

    init(kernels: PixelKernels = .best) {
        self.kernels = kernels
    }

    /// The box factor for a reduction by `scale` of `length` samples: 1 (no box) below the
    /// threshold, else a whole number that leaves Lanczos3 between half the threshold and the
    /// threshold. Of those, the one whose last block is fullest: a partial block at the edge is
    /// averaged over the samples it has but weighs as a whole one in the Lanczos3 stage, so a
    /// block of 2 samples at the edge of a 1250 px row shrunk by 312 would count 156 times over.
    static func boxFactor(for scale: Double, length: Int) -> Int {
        guard scale >= boxReductionThreshold else { return 1 }
        let largest = Int(scale * 2 / boxReductionThreshold)
        let smallest = max(2, Int((scale / boxReductionThreshold).rounded(.up)))
        func fullness(_ factor: Int) -> Double {
            length % factor == 0 ? 1 : Double(length % factor) / Double(factor)
        }
        var best = largest
        for factor in stride(from: largest, through: smallest, by: -1) where fullness(factor) > fullness(best) {
            best = factor
        }
        return best
    }

    /// Resamples the top-left `sourceSize` region of `source` to the top-left `targetSize`
    /// region of `target`.
    ///
    /// - Parameters:
    ///   - scaleX: source samples per target sample across; differs from the size ratio for
    ///     chroma planes whose subsampling changes.
    ///   - rows: the target rows to make; two resamplers can make two bands of one plane at once.
    func resample(
        _ source: PixelPlane, size sourceSize: PixelSize, into target: PixelPlane, size targetSize: PixelSize,
        scaleX: Double, scaleY: Double, rows: Range<Int>? = nil
    ) {
        start(
            sourceSize: sourceSize, into: target, size: targetSize, scaleX: scaleX, scaleY: scaleY,
            rows: rows ?? 0..<targetSize.height)
        for y in neededSourceRows { push(UnsafePointer(source.row(y)), at: y) }
    }

    /// Prepares to make `rows` of the top-left `targetSize` region of `target` from a source of
    /// `sourceSize` whose rows will be pushed in order.
    func start(
        sourceSize: PixelSize, into target: PixelPlane, size targetSize: PixelSize, scaleX: Double, scaleY: Double,
        rows: Range<Int>
    ) {
        guard sourceSize != targetSize || scaleX != 1 || scaleY != 1 else {
            job = Job(copying: target, rows: rows, width: targetSize.width)
            return
        }
        // The box stage: the Lanczos3 stage sees the source averaged over box.x x box.y blocks (a
        // partial block at the right and bottom edges averages what it has).
        let box = Box(
            x: Self.boxFactor(for: scaleX, length: sourceSize.width),
            y: Self.boxFactor(for: scaleY, length: sourceSize.height), sourceWidth: sourceSize.width,
            sourceHeight: sourceSize.height)
        let horizontal = Self.filterBank(
            inputCount: box.width, outputCount: targetSize.width, scale: scaleX / Double(box.x))
        let vertical = Self.filterBank(
            inputCount: box.height, outputCount: targetSize.height, scale: scaleY / Double(box.y))
        // Rows are padded so that vector loads past the last sample read zeros, never other memory.
        let paddedWidth = (box.width + horizontal.stride + 31) / 32 * 32
        // The ring holds every input row that one block of output rows reaches.
        let ringRows =
            vertical.stride + Int((Double(Self.rowsPerBlock) * max(scaleY / Double(box.y), 1)).rounded(.up)) + 2
        if box.averages {
            ring.reserve(paddedWidth * ringRows)
            ring.pointer.initialize(repeating: 0, count: paddedWidth * ringRows)
        } else {
            byteRing.reserve(paddedWidth * ringRows)
            byteRing.pointer.initialize(repeating: 0, count: paddedWidth * ringRows)
        }
        sums.reserve(Self.sumsStride(paddedWidth) * Self.rowsPerBlock)
        sums.pointer.initialize(repeating: 0, count: Self.sumsStride(paddedWidth) * Self.rowsPerBlock)
        pairs.reserve(paddedWidth * Self.rowsPerBlock)
        if box.averages { boxRow.reserve(sourceSize.width) }
        let neededRows =
            rows.isEmpty
            ? 0..<0 : vertical.taps(of: rows.lowerBound).lowerBound..<vertical.taps(of: rows.upperBound - 1).upperBound
        job = Job(
            target: target, targetWidth: targetSize.width, rows: rows, box: box, horizontal: horizontal,
            vertical: vertical, paddedWidth: paddedWidth, ringRows: ringRows, neededRows: neededRows)
    }

    /// The first of `targetHeight` target rows whose filter reads no source row above
    /// `sourceRow`: where a band can start whose source begins there.
    static func firstTargetRow(readingFrom sourceRow: Int, sourceHeight: Int, targetHeight: Int, scaleY: Double)
        -> Int
    {
        let boxY = boxFactor(for: scaleY, length: sourceHeight)
        let vertical = filterBank(
            inputCount: (sourceHeight + boxY - 1) / boxY, outputCount: targetHeight, scale: scaleY / Double(boxY))
        // The first row of the box stage made only of source rows from `sourceRow` on.
        let firstBoxRow = (sourceRow + boxY - 1) / boxY
        return (0..<targetHeight).first { vertical.taps(of: $0).lowerBound >= firstBoxRow } ?? targetHeight
    }

    /// The source rows the started job reads; others may be pushed and are passed over.
    var neededSourceRows: Range<Int> {
        guard let job else { return 0..<0 }
        guard let box = job.box else { return job.rows }
        return box.sourceRows(of: job.neededRows)
    }

    /// Whether every target row of the started job is made.
    var isFinished: Bool { job.map { $0.nextBlock >= $0.rows.upperBound } ?? true }

    /// The end of the target rows made so far, which are final: the job's rows up to here.
    var madeRowsEnd: Int { job.map { min($0.nextBlock, $0.rows.upperBound) } ?? 0 }

    /// Takes source row `y` (rows come in order, each once) and makes every block of target rows
    /// that it completes.
    func push(_ row: UnsafePointer<UInt8>, at y: Int) {
        guard let job else { return }
        guard let box = job.box else {
            // Same size: the row is the target row.
            if job.rows.contains(y) { job.target.row(y).update(from: row, count: job.targetWidth) }
            job.nextBlock = max(job.nextBlock, y + 1)
            return
        }
        let table = kernels.table.pointee
        let lanczosRow: Int
        if !box.averages {
            guard job.neededRows.contains(y) else { return }
            byteRingRow(y, of: job).update(from: row, count: box.sourceWidth)
            lanczosRow = y
        } else {
            let averaged = y / box.y
            guard job.neededRows.contains(averaged) else { return }
            if y % box.y == 0 {
                table.widen(row, box.sourceWidth, boxRow.pointer)
            } else {
                table.accumulate(row, box.sourceWidth, boxRow.pointer)
            }
            let rowsInBlock = min(box.y, box.sourceHeight - averaged * box.y)
            guard y % box.y == rowsInBlock - 1 else { return }
            table.boxColumns(
                boxRow.pointer, box.sourceWidth, Int32(box.x), Int32(rowsInBlock), box.width,
                ringRow(averaged, of: job))
            lanczosRow = averaged
        }
        while job.nextBlock < job.rows.upperBound {
            let last = min(job.nextBlock + Self.rowsPerBlock, job.rows.upperBound) - 1
            guard job.vertical.taps(of: last).upperBound <= lanczosRow + 1 else { break }
            makeBlock(at: job.nextBlock, of: job)
            job.nextBlock += Self.rowsPerBlock
        }
    }

    /// The distance between two rows of vertical sums: the horizontal pass reads one sample past
    /// the padded width, and rows stay 32-byte multiples.
    private static func sumsStride(_ paddedWidth: Int) -> Int { paddedWidth + 16 }

    private func ringRow(_ row: Int, of job: Job) -> UnsafeMutablePointer<Float> {
        ring.pointer + (row % job.ringRows) * job.paddedWidth
    }

    private func byteRingRow(_ row: Int, of job: Job) -> UnsafeMutablePointer<UInt8> {
        byteRing.pointer + (row % job.ringRows) * job.paddedWidth
    }

    /// Makes target rows `first` to `first + 7` (fewer at the end of the job's rows).
    private func makeBlock(at first: Int, of job: Job) {
        let table = kernels.table.pointee
        let rowsHere = min(Self.rowsPerBlock, job.rows.upperBound - first)
        let isAveraged = job.box?.averages ?? false
        let stride = job.vertical.stride
        for r in 0..<rowsHere {
            let y = first + r
            let taps = job.vertical.taps(of: y)
            let out = sums.pointer + r * Self.sumsStride(job.paddedWidth)
            if isAveraged {
                job.vertical.weights.withUnsafeBufferPointer { weights in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: taps.count) { rows in
                        for (k, input) in taps.enumerated() { rows[k] = UnsafePointer(ringRow(input, of: job)) }
                        table.vertical(
                            rows.baseAddress!, weights.baseAddress! + y * stride, Int32(taps.count), job.paddedWidth,
                            out)
                    }
                }
            } else {
                // Taps go in pairs; an odd count's last pair repeats its row at weight 0 (the
                // stride is even, and the weights are zero past the count).
                let pairedCount = (taps.count + 1) / 2 * 2
                job.vertical.fixedWeights.withUnsafeBufferPointer { weights in
                    withUnsafeTemporaryAllocation(of: UnsafePointer<UInt8>.self, capacity: pairedCount) { rows in
                        for (k, input) in taps.enumerated() { rows[k] = UnsafePointer(byteRingRow(input, of: job)) }
                        if pairedCount > taps.count { rows[taps.count] = rows[taps.count - 1] }
                        table.verticalFixed(
                            rows.baseAddress!, weights.baseAddress! + y * stride, Int32(pairedCount),
                            job.paddedWidth, out)
                    }
                }
            }
        }
        withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>.self, capacity: Self.rowsPerBlock) { outRows in
            for r in 0..<Self.rowsPerBlock { outRows[r] = job.target.row(first + min(r, rowsHere - 1)) }
            job.horizontal.starts.withUnsafeBufferPointer { starts in
                job.horizontal.fixedWeights.withUnsafeBufferPointer { weights in
                    table.horizontal8(
                        sums.pointer, Self.sumsStride(job.paddedWidth), job.paddedWidth, starts.baseAddress!,
                        weights.baseAddress!, Int32(job.horizontal.stride), job.targetWidth, outRows.baseAddress!,
                        Int32(rowsHere), pairs.pointer)
                }
            }
        }
    }

    /// The filter for one axis, made once for all resamplers (a few milliseconds of `sin`).
    private static func filterBank(inputCount: Int, outputCount: Int, scale: Double) -> FilterBank {
        let key = FilterBank.Key(inputCount: inputCount, outputCount: outputCount, scale: scale)
        if let bank = filterBanks.withLock({ $0[key] }) { return bank }
        let bank = FilterBank(inputCount: inputCount, outputCount: outputCount, scale: scale)
        filterBanks.withLock { banks in
            if banks.count >= 32 { banks.removeAll() }
            banks[key] = bank
        }
        return bank
    }

    /// One plane's resample in progress: a class, so that pushing a row copies no filter arrays.
    private final class Job {
        let target: PixelPlane
        let targetWidth: Int
        let rows: Range<Int>
        /// nil for a plain copy (same size).
        let box: Box?
        let horizontal: FilterBank
        let vertical: FilterBank
        let paddedWidth: Int
        let ringRows: Int
        /// The rows of the Lanczos3 stage's input (after the box) that `rows` reach.
        let neededRows: Range<Int>
        /// The first target row not yet made.
        var nextBlock: Int

        init(
            target: PixelPlane, targetWidth: Int, rows: Range<Int>, box: Box, horizontal: FilterBank,
            vertical: FilterBank, paddedWidth: Int, ringRows: Int, neededRows: Range<Int>
        ) {
            self.target = target
            self.targetWidth = targetWidth
            self.rows = rows
            self.box = box
            self.horizontal = horizontal
            self.vertical = vertical
            self.paddedWidth = paddedWidth
            self.ringRows = ringRows
            self.neededRows = neededRows
            nextBlock = rows.lowerBound
        }

        init(copying target: PixelPlane, rows: Range<Int>, width: Int) {
            self.target = target
            targetWidth = width
            self.rows = rows
            box = nil
            horizontal = FilterBank(inputCount: 0, outputCount: 0, scale: 1)
            vertical = horizontal
            paddedWidth = 0
            ringRows = 0
            neededRows = rows
            nextBlock = rows.lowerBound
        }
    }

    /// The box stage of a large reduction: the source seen in blocks of `x` by `y` samples.
    private struct Box {
        let x: Int
        let y: Int
        let sourceWidth: Int
        let sourceHeight: Int

        /// Whether there is a box stage at all (blocks of more than one sample).
        var averages: Bool { x > 1 || y > 1 }

        /// The size of the averaged image, a partial block at an edge counting as one.
        var width: Int { (sourceWidth + x - 1) / x }
        var height: Int { (sourceHeight + y - 1) / y }

        /// The source rows that averaged rows `rows` are made of.
        func sourceRows(of rows: Range<Int>) -> Range<Int> {
            rows.lowerBound * y..<min(rows.upperBound * y, sourceHeight)
        }
    }
}

/// 32-bit words on a 32-byte boundary, for kernels that load them as whole 8-lane vectors.
final class AlignedWords {
    private(set) var pointer: UnsafeMutablePointer<Int32>
    private var capacity = 0

    init() {
        pointer = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 32).bindMemory(to: Int32.self, capacity: 8)
    }

    deinit { pointer.deallocate() }

    /// Makes room for `count` words; the contents are undefined afterwards.
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        pointer = UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 32).bindMemory(
            to: Int32.self, capacity: count)
        capacity = count
    }
}

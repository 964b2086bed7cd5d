#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The weights of a Lanczos3 filter along one axis: for each output sample, where its taps start
/// in the input and what they weigh.
///
/// Weights are stored `stride` apart and zero-padded to a multiple of 8, so that the horizontal
/// pass can always multiply whole `SIMD8<Float>` vectors.
struct FilterBank {
    struct Key: Hashable {
        let inputCount: Int
        let outputCount: Int
        let scale: Double
    }

    let stride: Int
    let starts: [Int]
    let counts: [Int]
    let weights: [Float]

    /// - Parameters:
    ///   - scale: input samples per output sample (greater than 1 when shrinking).
    init(inputCount: Int, outputCount: Int, scale: Double) {
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        let maxTaps = Int((2 * support).rounded(.up)) + 1
        let stride = (maxTaps + 7) / 8 * 8
        var starts = [Int](repeating: 0, count: outputCount)
        var counts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * stride)
        var tap = [Double](repeating: 0, count: maxTaps)
        for output in 0..<outputCount {
            let center = (Double(output) + 0.5) * scale
            let first = max(Int((center - support).rounded(.down)), 0)
            let end = min(Int((center + support).rounded(.up)) + 1, inputCount)
            var total = 0.0
            var count = 0
            for input in first..<end where count < maxTaps {
                let weight = Self.lanczos3((Double(input) + 0.5 - center) / filterScale)
                tap[count] = weight
                total += weight
                count += 1
            }
            // Taps past the edge are dropped and the rest renormalised (as Pillow does), so the
            // edge keeps its brightness.
            let base = output * stride
            for index in 0..<count { weights[base + index] = Float(tap[index] / total) }
            starts[output] = first
            counts[output] = count
        }
        self.stride = stride
        self.starts = starts
        self.counts = counts
        self.weights = weights
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        if abs(x) >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}

/// Resizes 8-bit planes with a separable Lanczos3 filter, after a box average for large reductions.
///
/// Output rows are made eight at a time. The vertical pass runs first: for each of the eight
/// rows it sums its input rows (converted to `Float` once each and kept in a ring) across the
/// whole width, which vectorises perfectly. The eight results are then interleaved, so that the
/// horizontal pass computes the eight rows' samples at one column together: one `SIMD8` multiply
/// and add per tap, with no horizontal reductions. `SIMD8` is two SSE registers on a baseline
/// x86-64 build and one AVX register when built for a newer CPU. No intermediate image is ever
/// allocated; the buffers and the filter weights are kept for the next photo of the same size.
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
/// sizes are, are pure Lanczos3 as before.
final class Resampler {
    private static let rowsPerBlock = 8
    /// The reduction on an axis from which a box stage comes first.
    static let boxReductionThreshold = 8.0
    private var ring = GrowableBuffer<Float>()
    private var columns = GrowableBuffer<Float>()
    /// One row of box sums before the columns are averaged.
    private var boxRow = GrowableBuffer<Float>()
    private var filterBanks: [FilterBank.Key: FilterBank] = [:]

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
        let rows = rows ?? 0..<targetSize.height
        if sourceSize == targetSize, scaleX == 1, scaleY == 1 {
            for y in rows { target.row(y).update(from: source.row(y), count: targetSize.width) }
            return
        }
        // The box stage: the Lanczos3 stage sees the source averaged over boxX x boxY blocks (a
        // partial block at the right and bottom edges averages what it has).
        let box = Box(
            x: Self.boxFactor(for: scaleX, length: sourceSize.width),
            y: Self.boxFactor(for: scaleY, length: sourceSize.height), sourceWidth: sourceSize.width,
            sourceHeight: sourceSize.height)
        let horizontal = filterBank(
            inputCount: box.width, outputCount: targetSize.width, scale: scaleX / Double(box.x))
        let vertical = filterBank(
            inputCount: box.height, outputCount: targetSize.height, scale: scaleY / Double(box.y))
        let blockRows = Self.rowsPerBlock

        // Rows are padded so that vector loads past the last sample read zeros, never other memory.
        let width = box.width
        let paddedWidth = (width + 31) / 32 * 32 + horizontal.stride
        // The ring holds every input row that one block of output rows reaches.
        let ringRows =
            vertical.stride + Int((Double(blockRows) * max(scaleY / Double(box.y), 1)).rounded(.up)) + 2
        ring.reserve(paddedWidth * ringRows)
        if box.x > 1 || box.y > 1 { boxRow.reserve(sourceSize.width) }
        columns.reserve(paddedWidth * blockRows * 2)
        let ringBase = ring.pointer
        ringBase.initialize(repeating: 0, count: paddedWidth * ringRows)
        // `sums` holds the block's vertical sums row after row; `interleaved` the same values as
        // one SIMD8 per column.
        let sums = columns.pointer
        sums.initialize(repeating: 0, count: paddedWidth * blockRows * 2)
        let interleaved = UnsafeMutableRawPointer(sums + paddedWidth * blockRows).assumingMemoryBound(
            to: SIMD8<Float>.self)
        let tapRows = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: vertical.stride)
        defer { tapRows.deallocate() }
        let outputRows = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>>.allocate(capacity: blockRows)
        defer { outputRows.deallocate() }

        guard !rows.isEmpty else { return }
        var convertedRows = vertical.starts[rows.lowerBound]
        horizontal.weights.withUnsafeBufferPointer { horizontalWeights in
            horizontal.starts.withUnsafeBufferPointer { horizontalStarts in
                vertical.weights.withUnsafeBufferPointer { verticalWeights in
                    for blockStart in Swift.stride(from: rows.lowerBound, to: rows.upperBound, by: blockRows) {
                        let rowsHere = min(blockRows, rows.upperBound - blockStart)
                        for r in 0..<blockRows {
                            let sum = sums + r * paddedWidth
                            guard r < rowsHere else {
                                sum.update(repeating: 0, count: paddedWidth)
                                continue
                            }
                            let y = blockStart + r
                            let first = vertical.starts[y]
                            let count = vertical.counts[y]
                            while convertedRows < first + count {
                                let ringRow = ringBase + (convertedRows % ringRows) * paddedWidth
                                if box.x == 1 && box.y == 1 {
                                    Self.convert(source.row(convertedRows), count: width, into: ringRow)
                                } else {
                                    box.average(row: convertedRows, of: source, sums: boxRow.pointer, into: ringRow)
                                }
                                convertedRows += 1
                            }
                            for k in 0..<count {
                                tapRows[k] = UnsafePointer(ringBase + ((first + k) % ringRows) * paddedWidth)
                            }
                            Self.verticalPass(
                                tapRows, weights: verticalWeights.baseAddress! + y * vertical.stride, count: count,
                                width: width,
                                into: sum)
                        }
                        Self.interleave(sums, rowLength: paddedWidth, width: width, into: interleaved)

                        // Horizontal: the eight rows' samples at one output column, one SIMD8 per tap.
                        // Taps past a column's count weigh zero, so two accumulators can run the padded
                        // stride without waiting on each other.
                        for r in 0..<blockRows { outputRows[r] = target.row(blockStart + min(r, rowsHere - 1)) }
                        let horizontalStride = horizontal.stride
                        for x in 0..<targetSize.width {
                            let taps = horizontalWeights.baseAddress! + x * horizontalStride
                            let input = interleaved + horizontalStarts[x]
                            var even = SIMD8<Float>()
                            var odd = SIMD8<Float>()
                            var k = 0
                            while k < horizontalStride {
                                even += taps[k] * input[k]
                                odd += taps[k + 1] * input[k + 1]
                                k += 2
                            }
                            let bytes = Self.roundToBytes(even + odd)
                            for r in 0..<rowsHere { outputRows[r][x] = UInt8(truncatingIfNeeded: bytes[r]) }
                        }
                    }
                }
            }
        }
    }

    /// The filter for one axis, kept because a batch's photos mostly share their sizes.
    private func filterBank(inputCount: Int, outputCount: Int, scale: Double) -> FilterBank {
        let key = FilterBank.Key(inputCount: inputCount, outputCount: outputCount, scale: scale)
        if let bank = filterBanks[key] { return bank }
        if filterBanks.count >= 32 { filterBanks.removeAll() }
        let bank = FilterBank(inputCount: inputCount, outputCount: outputCount, scale: scale)
        filterBanks[key] = bank
        return bank
    }

    /// `output[x] = Σ weights[k] · rows[k][x]` across the row, 32 samples at a time.
    @inline(__always) private static func verticalPass(
        _ rows: UnsafeMutablePointer<UnsafePointer<Float>>, weights: UnsafePointer<Float>, count: Int, width: Int,
        into output: UnsafeMutablePointer<Float>
    ) {
        var x = 0
        while x < width {
            var a = SIMD8<Float>()
            var b = SIMD8<Float>()
            var c = SIMD8<Float>()
            var d = SIMD8<Float>()
            for k in 0..<count {
                let weight = SIMD8<Float>(repeating: weights[k])
                let row = UnsafeRawPointer(rows[k] + x)
                a += weight * row.loadUnaligned(as: SIMD8<Float>.self)
                b += weight * row.loadUnaligned(fromByteOffset: 32, as: SIMD8<Float>.self)
                c += weight * row.loadUnaligned(fromByteOffset: 64, as: SIMD8<Float>.self)
                d += weight * row.loadUnaligned(fromByteOffset: 96, as: SIMD8<Float>.self)
            }
            let out = UnsafeMutableRawPointer(output + x)
            out.storeBytes(of: a, as: SIMD8<Float>.self)
            out.storeBytes(of: b, toByteOffset: 32, as: SIMD8<Float>.self)
            out.storeBytes(of: c, toByteOffset: 64, as: SIMD8<Float>.self)
            out.storeBytes(of: d, toByteOffset: 96, as: SIMD8<Float>.self)
            x += 32
        }
    }

    /// Rounds to the nearest integer in 0...255: adding 1.5 * 2^23 leaves the rounded value in
    /// the low mantissa bits, which avoids Swift's checked (and slow) float-to-integer conversion.
    @inline(__always) private static func roundToBytes(_ values: SIMD8<Float>) -> SIMD8<UInt32> {
        // `.replacing(with:where:)` compiles to min and max; the generic `clamped` does not inline.
        let floored = values.replacing(with: 0, where: values .< 0)
        let clamped = floored.replacing(with: 255, where: floored .> 255)
        return unsafeBitCast(clamped + 12_582_912, to: SIMD8<UInt32>.self) & 0xFF
    }

    /// Transposes eight rows of sums into one `SIMD8` per column (rows in lanes).
    @inline(__always) private static func interleave(
        _ rows: UnsafeMutablePointer<Float>, rowLength: Int, width: Int, into output: UnsafeMutablePointer<SIMD8<Float>>
    ) {
        for x in 0..<width {
            let column = rows + x
            output[x] = SIMD8(
                column[0], column[rowLength], column[2 * rowLength], column[3 * rowLength], column[4 * rowLength],
                column[5 * rowLength], column[6 * rowLength], column[7 * rowLength])
        }
    }

    @inline(__always) private static func convert(
        _ row: UnsafeMutablePointer<UInt8>, count: Int, into floats: UnsafeMutablePointer<Float>
    ) {
        for x in 0..<count { floats[x] = Float(row[x]) }
    }

    /// The box stage of a large reduction: the source seen in blocks of `x` by `y` samples.
    private struct Box {
        let x: Int
        let y: Int
        let sourceWidth: Int
        let sourceHeight: Int

        /// The size of the averaged image, a partial block at an edge counting as one.
        var width: Int { (sourceWidth + x - 1) / x }
        var height: Int { (sourceHeight + y - 1) / y }

        /// Averages the blocks of averaged row `row` into `output`; `sums` holds one source row.
        func average(
            row: Int, of source: PixelPlane, sums: UnsafeMutablePointer<Float>, into output: UnsafeMutablePointer<Float>
        ) {
            let firstRow = row * y
            let rowCount = min(y, sourceHeight - firstRow)
            Resampler.convert(source.row(firstRow), count: sourceWidth, into: sums)
            for sourceRow in (firstRow + 1)..<(firstRow + rowCount) {
                let samples = source.row(sourceRow)
                for column in 0..<sourceWidth { sums[column] += Float(samples[column]) }
            }
            for column in 0..<width {
                let start = column * x
                let end = min(start + x, sourceWidth)
                var total: Float = 0
                for index in start..<end { total += sums[index] }
                output[column] = total / Float((end - start) * rowCount)
            }
        }
    }
}

/// Averages each `factor` x `factor` block of a plane into one sample, taking the plane's rows in
/// order as they come: what a DCT scale of 1/`factor` does for a JPEG, done for a HEIF photo,
/// whose decoder has no such scale, so that a large photo is resampled from a quarter of its
/// samples, or fewer. The blocks at the right and bottom edges average the samples they have,
/// rounded to nearest.
final class RowAverager {
    let width: Int
    let height: Int
    let factor: Int
    /// The width of an averaged row.
    let averagedWidth: Int
    private var sums: [UInt32]
    private var averaged: [UInt8]

    /// - Parameters:
    ///   - width: the source rows' width; `height` their count.
    init(width: Int, height: Int, factor: Int) {
        self.width = width
        self.height = height
        self.factor = factor
        averagedWidth = (width + factor - 1) / factor
        sums = [UInt32](repeating: 0, count: averagedWidth)
        averaged = [UInt8](repeating: 0, count: averagedWidth)
    }

    /// Takes source row `y` (rows come in order, each once) and hands `body` the averaged row it
    /// completes, with that row's index.
    func add(_ row: UnsafePointer<UInt8>, at y: Int, _ body: (UnsafePointer<UInt8>, Int) -> Void) {
        let factor = factor
        let wholeBlocks = width / factor
        sums.withUnsafeMutableBufferPointer { sums in
            if y % factor == 0 { sums.update(repeating: 0) }
            for x in 0..<wholeBlocks {
                var total: UInt32 = 0
                for dx in 0..<factor { total &+= UInt32(row[x * factor + dx]) }
                sums[x] &+= total
            }
            for dx in (wholeBlocks * factor)..<width { sums[averagedWidth - 1] &+= UInt32(row[dx]) }
        }
        let averagedRow = y / factor
        let rowCount = min(factor, height - averagedRow * factor)
        guard y % factor == rowCount - 1 else { return }
        averaged.withUnsafeMutableBufferPointer { averaged in
            sums.withUnsafeBufferPointer { sums in
                for x in 0..<averagedWidth {
                    let count = UInt32(min(factor, width - x * factor) * rowCount)
                    averaged[x] = UInt8((sums[x] + count / 2) / count)
                }
            }
            body(UnsafePointer(averaged.baseAddress!), averagedRow)
        }
    }
}

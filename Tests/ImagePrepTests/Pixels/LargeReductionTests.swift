import Foundation
import Testing

@testable import ImagePrep

/// Reductions far beyond what a copy at the default sizes needs (a 1 px thumbnail of a 10000 px
/// photo) go through the box stage first; they must still land every sample where it belongs.
@Suite("Large reductions")
struct LargeReductionTests {
    /// A plane whose samples rise evenly from left to right (0 to 255), the same on every row.
    static func ramp(width: Int, height: Int) -> PixelPlane {
        let plane = PixelPlane()
        try! plane.reshape(width: width, height: height)
        for y in 0..<height {
            let row = plane.row(y)
            for x in 0..<width { row[x] = UInt8((Double(x) * 255 / Double(width - 1)).rounded()) }
        }
        return plane
    }

    @Test(
        "a reduction beyond the threshold keeps a ramp where it was: each sample is the ramp at its centre",
        arguments: [(3000, 30), (3000, 7), (2501, 13), (1250, 1)])
    func rampStaysInPlace(sourceWidth: Int, targetWidth: Int) throws {
        let source = Self.ramp(width: sourceWidth, height: 40)
        let target = PixelPlane()
        try target.reshape(width: targetWidth, height: 1)
        let scale = Double(sourceWidth) / Double(targetWidth)
        #expect(Resampler.boxFactor(for: scale, length: sourceWidth) > 1, "the box stage is used")
        Resampler().resample(
            source, size: PixelSize(width: sourceWidth, height: 40), into: target,
            size: PixelSize(width: targetWidth, height: 1), scaleX: scale, scaleY: 40)
        for x in 0..<targetWidth {
            // The mean of the source samples under output sample x, which is what any filter
            // symmetric about the centre gives on a ramp.
            let center = (Double(x) + 0.5) * scale - 0.5
            let expected = center * 255 / Double(sourceWidth - 1)
            // Lanczos3 renormalised at the edges, and the edge blocks of the box, pull the first
            // and last samples a little toward the inside.
            let tolerance = x < 2 || x >= targetWidth - 2 ? 6.0 : 1.0
            #expect(
                abs(Double(target.row(0)[x]) - expected) <= tolerance,
                "sample \(x): \(target.row(0)[x]) where the ramp is \(expected)")
        }
    }

    @Test("reductions below the threshold are Lanczos3 alone; from it on the Lanczos3 stage reduces by 4 to 8")
    func boxFactors() {
        #expect(Resampler.boxFactor(for: 1, length: 100) == 1)
        #expect(Resampler.boxFactor(for: 5.12, length: 2048) == 1)  // 2048 to the 400 px thumbnail
        #expect(Resampler.boxFactor(for: 7.99, length: 2048) == 1)
        for scale in [8.0, 9.5, 12, 100, 1250, 8192] {
            for length in [1250, 2048, 8191] {
                let box = Resampler.boxFactor(for: scale, length: length)
                let residual = scale / Double(box)
                #expect(residual >= 4 && residual <= 8, "\(scale): box \(box), then Lanczos3 by \(residual)")
            }
        }
        // The fullest last block: 1250 = 5 x 250, where 312 would leave a block of 2.
        #expect(Resampler.boxFactor(for: 1250, length: 1250) == 250)
    }
}

import Foundation
import Testing

@testable import ImagePrep

@Suite("Lanczos3 weights")
struct FilterWeightTests {
    /// The C kernel advances sin(πx) and sin(πx/3) by rotations from tap to tap; its weights
    /// must be those of the formula, sin for sin, to float precision, at the reductions the
    /// copies use (and an enlargement, where the filter is not stretched).
    @Test(
        "the weights match 3·sin(πx)·sin(πx/3)/(πx)², normalised, at every output",
        arguments: [(4032, 2048), (4608, 2048), (1512, 768), (3456, 768), (2048, 400), (300, 2048), (12, 7)])
    func weightsMatchTheFormula(input: Int, output: Int) {
        let scale = Double(input) / Double(output)
        let bank = FilterBank(inputCount: input, outputCount: output, scale: scale)
        let filterScale = max(scale, 1)
        var largestError: Double = 0
        for index in 0..<output {
            let center = (Double(index) + 0.5) * scale
            let taps = bank.taps(of: index)
            let reference = taps.map { tap -> Double in
                let x = (Double(tap) + 0.5 - center) / filterScale
                if x == 0 { return 1 }
                if abs(x) >= 3 { return 0 }
                return 3 * sin(Double.pi * x) * sin(Double.pi * x / 3) / (Double.pi * Double.pi * x * x)
            }
            let total = reference.reduce(0, +)
            for (k, weight) in reference.enumerated() {
                largestError = max(largestError, abs(Double(bank.weights[index * bank.stride + k]) - weight / total))
            }
        }
        #expect(largestError < 1e-6)
    }

    /// Where the scale repeats every few outputs (4000 to 2048 is 125 inputs per 64 outputs),
    /// the kernel copies one period's weights along instead of working each out: they must be
    /// the ones it works out, bit for bit, at every output, edges included; and where it cannot
    /// repeat them (a scale that is no multiple of 2^-20, or a period longer than the filter),
    /// it works them all out.
    @Test(
        "weights copied along the scale's period are those worked out, bit for bit",
        arguments: [
            (4000, 2048), (3000, 1536), (2000, 1024), (1500, 768), (4032, 2048), (3024, 1536), (4608, 2048),
            (3456, 1536), (2304, 1152), (8000, 2048), (16320, 2048), (2048, 400), (4096, 2048), (1024, 2048),
            (64, 48), (12, 7), (3001, 1536),
        ])
    func periodicWeightsAreExact(input: Int, output: Int) {
        let scale = Double(input) / Double(output)
        let copied = FilterBank(inputCount: input, outputCount: output, scale: scale)
        let workedOut = FilterBank(inputCount: input, outputCount: output, scale: scale, reusesPeriod: false)
        #expect(copied.starts == workedOut.starts)
        #expect(copied.counts == workedOut.counts)
        #expect(copied.weights.map(\.bitPattern) == workedOut.weights.map(\.bitPattern))
        #expect(copied.fixedWeights == workedOut.fixedWeights)
    }

    /// The copying must happen where it pays: the uploads of the bench's 12 and 16 MP photos
    /// (and their chroma) repeat, a scale with no short period or no exact multiple does not.
    @Test("the uploads' filters repeat with the period of their scale; others are worked out whole")
    func periodsOfCommonScales() {
        #expect(FilterBank.period(scale: 4000.0 / 2048, outputCount: 2048) == 64)
        #expect(FilterBank.period(scale: 1500.0 / 768, outputCount: 768) == 64)
        #expect(FilterBank.period(scale: 4032.0 / 2048, outputCount: 2048) == 32)
        #expect(FilterBank.period(scale: 4608.0 / 2048, outputCount: 2048) == 4)
        #expect(FilterBank.period(scale: 2.0, outputCount: 2048) == 1)
        #expect(FilterBank.period(scale: 2048.0 / 400, outputCount: 400) == nil)
        #expect(FilterBank.period(scale: 3001.0 / 1536, outputCount: 1536) == nil)
        #expect(FilterBank.period(scale: 4000.0 / 2048, outputCount: 40) == nil)
    }

    /// The vertical pass over bytes sums with the weights in 2^14 fixed point: each output's
    /// must still sum to exactly 2^14, or a flat picture would drift by a level. Each weight is
    /// its float weight rounded, but for the largest, which takes what the rounding left over.
    @Test(
        "the fixed-point weights sum to 2^14 at every output and round the float weights",
        arguments: [(4032, 2048), (3456, 768), (2048, 400), (300, 2048), (12, 7), (3, 1)])
    func fixedWeightsSumToOne(input: Int, output: Int) {
        let bank = FilterBank(inputCount: input, outputCount: output, scale: Double(input) / Double(output))
        for index in 0..<output {
            let range = index * bank.stride..<(index + 1) * bank.stride
            #expect(bank.fixedWeights[range].reduce(0) { $0 + Int($1) } == 16384, "output \(index)")
            let largest = range.max { abs(bank.weights[$0]) < abs(bank.weights[$1]) }!
            for k in range {
                let error = abs(Double(bank.fixedWeights[k]) - Double(bank.weights[k]) * 16384)
                #expect(error <= (k == largest ? Double(bank.stride) / 2 : 0.5), "output \(index), tap \(k)")
            }
        }
    }

    /// The horizontal pass sums 16-bit samples (at most 32767) times 2^14 weights in 32-bit
    /// integers: that cannot overflow while each output's weights total at most 4 in absolute
    /// value. Lanczos3's, normalised after the edge drops taps, stay below 2, at every scale the
    /// Lanczos3 stage sees (under 16, the box stage taking the rest) and when enlarging.
    @Test(
        "every output's fixed-point weights total under 2 in absolute value, so the integer sums never overflow",
        arguments: [
            (4032, 2048), (4608, 2048), (2048, 400), (300, 2048), (1, 2048), (2, 2048), (5, 3), (15, 1),
            (31, 2), (12, 7),
        ])
    func fixedWeightsAreBounded(input: Int, output: Int) {
        let bank = FilterBank(inputCount: input, outputCount: output, scale: Double(input) / Double(output))
        let largest =
            (0..<output).map { index in
                bank.fixedWeights[index * bank.stride..<(index + 1) * bank.stride].reduce(0) { $0 + abs(Int($1)) }
            }.max() ?? 0
        #expect(largest < 2 * 16384)
        #expect(largest * 32767 + (1 << 19) < Int(Int32.max))
    }

    /// A flat plane comes out flat, at every level, through both builds of the kernels: the
    /// fixed-point sums are exact.
    @Test("a flat plane stays flat through the resampler, at every level")
    func flatPlaneStaysFlat() throws {
        let source = PixelPlane()
        try source.reshape(width: 403, height: 61)
        let target = PixelPlane()
        try target.reshape(width: 200, height: 30)
        for level in [0, 1, 127, 128, 254, 255] {
            source.pixels.update(repeating: UInt8(level), count: 403 * 61)
            for kernels in [PixelKernels.best, .portable] {
                Resampler(kernels: kernels).resample(
                    source, size: PixelSize(width: 403, height: 61), into: target,
                    size: PixelSize(width: 200, height: 30), scaleX: 403.0 / 200, scaleY: 61.0 / 30)
                let samples = (0..<30).flatMap { y in (0..<200).map { target.row(y)[$0] } }
                #expect(samples.allSatisfy { $0 == UInt8(level) }, "level \(level), \(kernels.name)")
            }
        }
    }
}

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
}

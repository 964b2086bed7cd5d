import ImagePrep
import Testing

@testable import prep_bench

/// The Swift rebuild of quality.py's reference; `Benchmarks/crosscheck-ssim.py` compares it with
/// the Python on real photos, these pin down the parts that are easy to get subtly wrong.
@Suite struct ReferenceTests {
    @Test(arguments: [(4032, 2048), (4608, 2048), (2016, 2048), (3000, 1536), (7, 3)])
    func tapsSumToOneAndStayInside(inputCount: Int, outputCount: Int) {
        for taps in LanczosReference.taps(inputCount: inputCount, outputCount: outputCount) {
            #expect(abs(taps.weights.reduce(0, +) - 1) < 1e-12)
            #expect(taps.first >= 0 && taps.first + taps.weights.count <= inputCount)
        }
    }

    @Test func lanczos3IsOneAtZeroAndZeroAtIntegersAndBeyondThree() {
        #expect(LanczosReference.lanczos3(0) == 1)
        for x in [1.0, 2.0, -1.0, -2.0] { #expect(abs(LanczosReference.lanczos3(x)) < 1e-15) }
        #expect(LanczosReference.lanczos3(3) == 0)
        #expect(LanczosReference.lanczos3(-3.5) == 0)
    }

    @Test func resizingAFlatImageKeepsItFlat() {
        let flat = RGBImage(width: 40, height: 30, pixels: Array(repeating: 117, count: 40 * 30 * 3))
        let resized = LanczosReference.resize(flat, width: 17, height: 13)
        #expect(resized.width == 17 && resized.height == 13)
        #expect(resized.pixels.allSatisfy { $0 == 117 })
    }

    /// Stored pixels  a b c  (grey levels 1...6, one per pixel), turned as numpy turns them.
    ///                d e f
    @Test(arguments: [
        (Orientation.up, [1, 2, 3, 4, 5, 6]),
        (.upMirrored, [3, 2, 1, 6, 5, 4]),  // fliplr
        (.down, [6, 5, 4, 3, 2, 1]),  // rot180
        (.downMirrored, [4, 5, 6, 1, 2, 3]),  // flipud
        (.leftMirrored, [1, 4, 2, 5, 3, 6]),  // transpose
        (.right, [4, 1, 5, 2, 6, 3]),  // rot90(k=-1), clockwise
        (.rightMirrored, [6, 3, 5, 2, 4, 1]),  // transverse
        (.left, [3, 6, 2, 5, 1, 4]),  // rot90(k=1), counter-clockwise
    ])
    func orientationsTurnAsQualityPyTurnsThem(orientation: Orientation, expected: [Int]) {
        let stored = RGBImage(width: 3, height: 2, pixels: (1...6).flatMap { [UInt8($0), UInt8($0), UInt8($0)] })
        let turned = LanczosReference.oriented(stored, orientation)
        #expect(turned.width == (orientation.swapsWidthAndHeight ? 2 : 3))
        #expect(stride(from: 0, to: turned.pixels.count, by: 3).map { Int(turned.pixels[$0]) } == expected)
    }

    @Test func ssimOfAnImageWithItselfIsOneAndDropsWithNoise() {
        // A busy deterministic texture: every pixel differs from its neighbours.
        let pixels = (0..<(64 * 48 * 3)).map { (index: Int) -> UInt8 in UInt8((index * 37 + index / 192 * 91) % 251) }
        let image = RGBImage(width: 64, height: 48, pixels: pixels)
        #expect(SSIM.lumaSSIM(reference: image, candidate: image) == 1)
        var noisy = image
        for index in stride(from: 0, to: noisy.pixels.count, by: 7) { noisy.pixels[index] &+= 9 }
        let ssim = SSIM.lumaSSIM(reference: image, candidate: noisy)
        #expect(ssim < 1 && ssim > 0.5)
        #expect(abs(ssim - SSIM.lumaSSIM(reference: noisy, candidate: image)) < 1e-12)
    }

    @Test func gaussianWindowIsScipysElevenTaps() {
        #expect(SSIM.kernel.count == 11)
        #expect(abs(SSIM.kernel.reduce(0, +) - 1) < 1e-15)
        #expect(SSIM.kernel.first == SSIM.kernel.last)
    }
}

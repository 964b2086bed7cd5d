import Foundation
import ImagePrep

/// The quality reference of `../shared/bench/quality.py`, rebuilt here so that the benchmark
/// needs nothing outside the repository: the original decoded at full size, turned by an EXIF
/// orientation when the output was, resized in float64 with a separable Lanczos3 filter whose
/// support widens with the scale (antialiased, as Pillow and libvips do), and rounded to 8 bits
/// only at the end.
///
/// The arithmetic follows quality.py's sparse matrix products term for term (vertical pass, then
/// horizontal, each summing taps in ascending order), so the two agree to the last rounding.
enum LanczosReference {
    /// `source` turned by `orientation`, resized to exactly `width` x `height`.
    static func make(from source: RGBImage, orientation: Orientation, width: Int, height: Int) -> RGBImage {
        resize(orientation == .up ? source : oriented(source, orientation), width: width, height: height)
    }

    /// Lanczos3: sinc(x) sinc(x/3) inside |x| < 3, with numpy's normalised sinc.
    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        guard x < 3 else { return 0 }
        return sinc(x) * sinc(x / 3)
    }

    private static func sinc(_ x: Double) -> Double {
        let y = Double.pi * (x == 0 ? 1e-20 : x)  // numpy's own trick for sinc(0) = 1
        return sin(y) / y
    }

    /// The taps of one output sample: the first input index and the normalised weights.
    struct Taps {
        let first: Int
        let weights: [Double]
    }

    /// quality.py's `weight_matrix(n_in, n_out)`, one row of taps per output sample.
    static func taps(inputCount: Int, outputCount: Int) -> [Taps] {
        let scale = Double(inputCount) / Double(outputCount)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        return (0..<outputCount).map { index in
            let center = (Double(index) + 0.5) * scale
            let low = max(Int((center - support).rounded(.down)), 0)
            let high = min(Int((center + support).rounded(.up)), inputCount)
            var weights = (low..<high).map { lanczos3((Double($0) + 0.5 - center) / filterScale) }
            let sum = weights.reduce(0, +)
            if sum != 0 { weights = weights.map { $0 / sum } }
            return Taps(first: low, weights: weights)
        }
    }

    /// Separable float64 resize of interleaved RGB, vertical pass first, row by row so that a
    /// 48 MP source never exists as doubles all at once.
    static func resize(_ source: RGBImage, width: Int, height: Int) -> RGBImage {
        let rowLength = source.width * 3
        let verticalTaps = taps(inputCount: source.height, outputCount: height)
        let horizontalTaps = taps(inputCount: source.width, outputCount: width)
        var output = [UInt8](repeating: 0, count: width * height * 3)
        var column = [Double](repeating: 0, count: rowLength)
        source.pixels.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                column.withUnsafeMutableBufferPointer { row in
                    for y in 0..<height {
                        for index in 0..<rowLength { row[index] = 0 }
                        let taps = verticalTaps[y]
                        for (offset, weight) in taps.weights.enumerated() {
                            let line = input.baseAddress! + (taps.first + offset) * rowLength
                            for index in 0..<rowLength { row[index] += weight * Double(line[index]) }
                        }
                        let outputLine = output.baseAddress! + y * width * 3
                        for x in 0..<width {
                            let taps = horizontalTaps[x]
                            var red = 0.0
                            var green = 0.0
                            var blue = 0.0
                            for (offset, weight) in taps.weights.enumerated() {
                                let pixel = (taps.first + offset) * 3
                                red += weight * row[pixel]
                                green += weight * row[pixel + 1]
                                blue += weight * row[pixel + 2]
                            }
                            outputLine[x * 3] = eightBit(red)
                            outputLine[x * 3 + 1] = eightBit(green)
                            outputLine[x * 3 + 2] = eightBit(blue)
                        }
                    }
                }
            }
        }
        return RGBImage(width: width, height: height, pixels: output)
    }

    /// numpy's `clip(rint(v), 0, 255)`: ties go to even.
    private static func eightBit(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(.toNearestOrEven), 0), 255))
    }

    /// The stored pixels turned the way quality.py's `apply_orient` turns them (numpy's fliplr,
    /// rot90 and transpose), so that the reference matches an auto-rotated output.
    static func oriented(_ image: RGBImage, _ orientation: Orientation) -> RGBImage {
        let (w, h) = (image.width, image.height)
        let swaps = orientation.swapsWidthAndHeight
        let (outputWidth, outputHeight) = swaps ? (h, w) : (w, h)
        // For each output pixel (x, y), the stored pixel it shows.
        let sourceOf: (Int, Int) -> (Int, Int) =
            switch orientation {
            case .up: { x, y in (x, y) }
            case .upMirrored: { x, y in (w - 1 - x, y) }
            case .down: { x, y in (w - 1 - x, h - 1 - y) }
            case .downMirrored: { x, y in (x, h - 1 - y) }
            case .leftMirrored: { x, y in (y, x) }  // transpose
            case .right: { x, y in (y, h - 1 - x) }  // rot90(k=-1): 90° clockwise
            case .rightMirrored: { x, y in (w - 1 - y, h - 1 - x) }  // transverse
            case .left: { x, y in (w - 1 - y, x) }  // rot90(k=1): 90° counter-clockwise
            }
        var pixels = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                for y in 0..<outputHeight {
                    for x in 0..<outputWidth {
                        let (sourceX, sourceY) = sourceOf(x, y)
                        let from = (sourceY * w + sourceX) * 3
                        let to = (y * outputWidth + x) * 3
                        output[to] = input[from]
                        output[to + 1] = input[from + 1]
                        output[to + 2] = input[from + 2]
                    }
                }
            }
        }
        return RGBImage(width: outputWidth, height: outputHeight, pixels: pixels)
    }
}

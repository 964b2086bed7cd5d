import Foundation
import Testing

@testable import ImagePrep

extension DecodedJPEG.Plane {
    /// The plane shrunk to `size` by averaging the source area each target pixel covers
    /// (fractional at the edges): a plain, independent reference for a downscaled plane.
    func areaResized(to size: PixelSize) -> DecodedJPEG.Plane {
        func weights(from source: Int, to target: Int) -> [[(index: Int, weight: Double)]] {
            let scale = Double(source) / Double(target)
            return (0..<target).map { out in
                let start = Double(out) * scale
                let end = start + scale
                return (Int(start)..<min(source, Int(end.rounded(.up)))).map { index in
                    (index, (min(end, Double(index + 1)) - max(start, Double(index))) / scale)
                }
            }
        }
        let across = weights(from: width, to: size.width)
        let down = weights(from: height, to: size.height)
        var rows = [Double](repeating: 0, count: size.width * height)
        for y in 0..<height {
            for (x, taps) in across.enumerated() {
                rows[y * size.width + x] = taps.reduce(0) { $0 + Double(self[$1.index, y]) * $1.weight }
            }
        }
        var samples: [UInt8] = []
        for taps in down {
            for x in 0..<size.width {
                let value = taps.reduce(0) { $0 + rows[$1.index * size.width + x] * $1.weight }
                samples.append(UInt8(max(0, min(255, value.rounded()))))
            }
        }
        return DecodedJPEG.Plane(width: size.width, height: size.height, samples: samples)
    }
}

/// Mean SSIM of two planes of one size (Wang et al. 2004): an 11-tap Gaussian window of σ 1.5,
/// K1 0.01, K2 0.03, over the interior where the window never leaves the plane.
func lumaSSIM(_ reference: DecodedJPEG.Plane, _ candidate: DecodedJPEG.Plane) -> Double {
    precondition(reference.width == candidate.width && reference.height == candidate.height)
    let radius = 5
    let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * 1.5 * 1.5)) }
    let kernel = raw.map { $0 / raw.reduce(0, +) }
    let (width, height) = (reference.width, reference.height)
    func filtered(_ values: [Double]) -> [Double] {
        let innerWidth = width - 2 * radius
        let innerHeight = height - 2 * radius
        var across = [Double](repeating: 0, count: innerWidth * height)
        for y in 0..<height {
            for x in 0..<innerWidth {
                var sum = 0.0
                for tap in 0...(2 * radius) { sum += kernel[tap] * values[y * width + x + tap] }
                across[y * innerWidth + x] = sum
            }
        }
        var result = [Double](repeating: 0, count: innerWidth * innerHeight)
        for y in 0..<innerHeight {
            for x in 0..<innerWidth {
                var sum = 0.0
                for tap in 0...(2 * radius) { sum += kernel[tap] * across[(y + tap) * innerWidth + x] }
                result[y * innerWidth + x] = sum
            }
        }
        return result
    }
    let x = reference.samples.map(Double.init)
    let y = candidate.samples.map(Double.init)
    let (meanX, meanY) = (filtered(x), filtered(y))
    let (meanXX, meanYY, meanXY) = (filtered(zip(x, x).map(*)), filtered(zip(y, y).map(*)), filtered(zip(x, y).map(*)))
    let c1 = (0.01 * 255) * (0.01 * 255)
    let c2 = (0.03 * 255) * (0.03 * 255)
    var total = 0.0
    for index in meanX.indices {
        let (ux, uy) = (meanX[index], meanY[index])
        let (vx, vy, vxy) = (meanXX[index] - ux * ux, meanYY[index] - uy * uy, meanXY[index] - ux * uy)
        total += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
    }
    return total / Double(meanX.count)
}

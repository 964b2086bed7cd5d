import Foundation

/// SSIM on luma exactly as `../shared/bench/quality.py` computes it through
/// `skimage.metrics.structural_similarity`: Wang et al. 2004 on BT.601 luma in float64, an
/// 11-tap Gaussian window (σ 1.5, truncated at 3.5 σ as scipy does), K1 0.01, K2 0.03, data range
/// 255, population covariance, and the mean taken over the interior that skimage keeps after
/// cropping the window's radius from every edge.
///
/// Only the interior is ever computed, with "valid" filtering: it is exactly the part of the
/// image where the filter never reaches past an edge, so scipy's boundary mode cannot matter.
enum SSIM {
    static let sigma = 1.5
    /// scipy's `int(truncate * sigma + 0.5)` with truncate 3.5: 5, an 11-tap window.
    static let radius = Int(3.5 * sigma + 0.5)

    /// Mean SSIM-Y of `candidate` against `reference`; both must have the same size, larger than
    /// the window.
    static func lumaSSIM(reference: RGBImage, candidate: RGBImage) -> Double {
        precondition(reference.width == candidate.width && reference.height == candidate.height, "sizes differ")
        precondition(reference.width > 2 * radius && reference.height > 2 * radius, "image smaller than the window")
        let x = luma(reference)
        let y = luma(candidate)
        let (width, height) = (reference.width, reference.height)
        let meanX = filtered(x, width: width, height: height)
        let meanY = filtered(y, width: width, height: height)
        let meanXX = filtered(zip(x, x).map(*), width: width, height: height)
        let meanYY = filtered(zip(y, y).map(*), width: width, height: height)
        let meanXY = filtered(zip(x, y).map(*), width: width, height: height)

        let c1 = (0.01 * 255.0) * (0.01 * 255.0)
        let c2 = (0.03 * 255.0) * (0.03 * 255.0)
        var sum = 0.0
        for index in meanX.indices {
            let ux = meanX[index]
            let uy = meanY[index]
            let vx = meanXX[index] - ux * ux
            let vy = meanYY[index] - uy * uy
            let vxy = meanXY[index] - ux * uy
            sum += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
        }
        return sum / Double(meanX.count)
    }

    /// BT.601 luma in float64: 0.299 R + 0.587 G + 0.114 B.
    static func luma(_ image: RGBImage) -> [Double] {
        var result = [Double](repeating: 0, count: image.width * image.height)
        image.pixels.withUnsafeBufferPointer { pixels in
            for index in result.indices {
                result[index] =
                    0.299 * Double(pixels[index * 3]) + 0.587 * Double(pixels[index * 3 + 1])
                    + 0.114 * Double(pixels[index * 3 + 2])
            }
        }
        return result
    }

    /// scipy's `_gaussian_kernel1d(sigma, 0, radius)`: exp(-x²/2σ²), normalised to sum 1.
    static let kernel: [Double] = {
        let raw = (-radius...radius).map { exp(-0.5 / (sigma * sigma) * Double($0 * $0)) }
        let sum = raw.reduce(0, +)
        return raw.map { $0 / sum }
    }()

    /// The separable Gaussian of `plane` (rows first, as scipy filters axis 0 first), only where
    /// the window fits: (width - 10) x (height - 10) values.
    static func filtered(_ plane: [Double], width: Int, height: Int) -> [Double] {
        let taps = 2 * radius + 1
        let innerHeight = height - 2 * radius
        let innerWidth = width - 2 * radius
        var vertical = [Double](repeating: 0, count: innerHeight * width)
        plane.withUnsafeBufferPointer { input in
            vertical.withUnsafeMutableBufferPointer { output in
                for row in 0..<innerHeight {
                    let target = output.baseAddress! + row * width
                    for tap in 0..<taps {
                        let weight = kernel[tap]
                        let line = input.baseAddress! + (row + tap) * width
                        for column in 0..<width { target[column] += weight * line[column] }
                    }
                }
            }
        }
        var result = [Double](repeating: 0, count: innerHeight * innerWidth)
        vertical.withUnsafeBufferPointer { input in
            result.withUnsafeMutableBufferPointer { output in
                for row in 0..<innerHeight {
                    let line = input.baseAddress! + row * width
                    let target = output.baseAddress! + row * innerWidth
                    for column in 0..<innerWidth {
                        var sum = 0.0
                        for tap in 0..<taps { sum += kernel[tap] * line[column + tap] }
                        target[column] = sum
                    }
                }
            }
        }
        return result
    }
}

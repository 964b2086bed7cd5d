internal import COpenJPEG

/// OpenJPEG's decoded planes (32-bit samples of any precision, signed or not, each component at
/// its own subsampling) as rows of 8-bit interleaved samples: gray, RGB, RGBA, or RGB from
/// sYCC or CMYK.
struct JPEG2000Rows {
    private struct Plane {
        let samples: UnsafePointer<Int32>
        let width: Int
        let height: Int
        let offset: Int32
        let shift: Int32
        let maximum: Int32
    }

    private let planes: [Plane]
    private let size: PixelSize
    private let isYCC: Bool
    private let isCMYK: Bool

    init(components: [opj_image_comp_t], size: PixelSize, isYCC: Bool, isCMYK: Bool) {
        planes = components.map { component in
            let precision = Int32(min(max(component.prec, 1), 31))
            return Plane(
                samples: UnsafePointer(component.data), width: Int(component.w), height: Int(component.h),
                offset: component.sgnd != 0 ? Int32(1) << (precision - 1) : 0, shift: max(precision - 8, 0),
                maximum: precision < 8 ? (Int32(1) << precision) - 1 : 255)
        }
        self.size = size
        self.isYCC = isYCC && components.count >= 3
        self.isCMYK = isCMYK
    }

    /// Row `y` as 8-bit samples, one a component (three for sYCC and CMYK): `row` holds room
    /// for four a pixel.
    func row(_ y: Int, into row: UnsafeMutablePointer<UInt8>) {
        let count = planes.count
        let width = size.width
        for (index, plane) in planes.enumerated() {
            let line = plane.samples + min(y * plane.height / size.height, plane.height - 1) * plane.width
            let isFull = plane.width == width
            let (offset, shift, maximum) = (plane.offset, plane.shift, plane.maximum)
            var output = row + index
            for x in 0..<width {
                let sample = (line[isFull ? x : min(x * plane.width / width, plane.width - 1)] &+ offset) >> shift
                let clamped = min(max(sample, 0), maximum)
                output.pointee = UInt8(truncatingIfNeeded: maximum == 255 ? clamped : clamped * 255 / maximum)
                output += count
            }
        }
        if isYCC {
            for x in 0..<width {
                let pixel = row + x * count
                let (luma, cb, cr) = (Double(pixel[0]), Double(pixel[1]) - 128, Double(pixel[2]) - 128)
                pixel[0] = Self.clamp(luma + 1.402 * cr)
                pixel[1] = Self.clamp(luma - 0.344136 * cb - 0.714136 * cr)
                pixel[2] = Self.clamp(luma + 1.772 * cb)
            }
        } else if isCMYK {
            // Stored as ink amounts: 0 is no ink. Four samples a pixel in, three out, in place.
            for x in 0..<width {
                let pixel = row + x * 4
                let white = 255 - Int(pixel[3])
                let (cyan, magenta, yellow) = (Int(pixel[0]), Int(pixel[1]), Int(pixel[2]))
                row[x * 3] = UInt8((255 - cyan) * white / 255)
                row[x * 3 + 1] = UInt8((255 - magenta) * white / 255)
                row[x * 3 + 2] = UInt8((255 - yellow) * white / 255)
            }
        }
    }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(min(max(value.rounded(), 0), 255)) }
}

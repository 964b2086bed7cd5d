import CTurboJPEG
import Foundation

@testable import ImagePrep

/// A JPEG that a test decodes to look at its pixels, at full size (pixels are compared after
/// decoding, never as JPEG bytes).
struct DecodedJPEG {
    let size: PixelSize
    let isGray: Bool
    /// BT.601 luma, row by row, `size.width` bytes a row.
    let luma: [UInt8]
    /// Interleaved RGB (gray repeated for gray images), row by row.
    let rgb: [UInt8]

    struct DecodeError: Error, CustomStringConvertible {
        let description: String
    }

    /// Decodes with libjpeg-turbo's own RGB and gray output (`tjDecompress2`), independently of
    /// ImagePrep's planar decoder.
    init(_ data: Data) throws {
        guard let handle = tjInitDecompress() else { throw DecodeError(description: "no decompressor") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        func check(_ status: Int32) throws {
            if status != 0, tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
                throw DecodeError(description: String(cString: tjGetErrorStr2(handle)))
            }
        }
        try data.withUnsafeBytes { bytes in
            let jpeg = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            try check(tjDecompressHeader3(handle, jpeg, UInt(bytes.count), &width, &height, &subsampling, &colorspace))
        }
        size = PixelSize(width: Int(width), height: Int(height))
        isGray = colorspace == Int32(TJCS_GRAY.rawValue)
        var rgb = [UInt8](repeating: 0, count: size.pixelCount * 3)
        var luma = [UInt8](repeating: 0, count: size.pixelCount)
        try data.withUnsafeBytes { bytes in
            let jpeg = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            try rgb.withUnsafeMutableBufferPointer { output in
                try check(tjDecompress2(
                    handle, jpeg, UInt(bytes.count), output.baseAddress, width, 0, height, Int32(TJPF_RGB.rawValue), 0))
            }
            try luma.withUnsafeMutableBufferPointer { output in
                try check(tjDecompress2(
                    handle, jpeg, UInt(bytes.count), output.baseAddress, width, 0, height, Int32(TJPF_GRAY.rawValue), 0))
            }
        }
        self.rgb = rgb
        self.luma = luma
    }

    /// The luma shrunk to `columns` x `rows` with a Lanczos3 filter, as ImageMagick's
    /// `-resize` does, row by row.
    func lumaGrid(columns: Int, rows: Int) -> [Double] {
        let source = PixelPlane()
        source.reshape(width: size.width, height: size.height)
        luma.withUnsafeBufferPointer { source.pixels.update(from: $0.baseAddress!, count: luma.count) }
        let target = PixelPlane()
        target.reshape(width: columns, height: rows)
        Resampler().resample(
            source, size: size, into: target, size: PixelSize(width: columns, height: rows),
            scaleX: Double(size.width) / Double(columns), scaleY: Double(size.height) / Double(rows))
        return (0..<(columns * rows)).map { Double(target.pixels[$0]) }
    }

    /// The mean RGB of a rectangle.
    func meanRGB(x: Int, y: Int, width: Int, height: Int) -> [Double] {
        var total = [0.0, 0.0, 0.0]
        for row in y..<(y + height) {
            for column in x..<(x + width) {
                for channel in 0..<3 { total[channel] += Double(rgb[(row * size.width + column) * 3 + channel]) }
            }
        }
        return total.map { $0 / Double(width * height) }
    }

    /// The markers of the segments before the first scan, in order.
    static func markers(of data: Data) -> [UInt8] {
        data.withUnsafeBytes { SegmentWalker.walk($0).segments.map(\.marker) }
    }
}

import Foundation

@testable import ImagePrep

/// A JPEG that a test decodes to look at its pixels, through ImagePrep's own libjpeg-turbo
/// wrappers at full size (pixels are compared after decoding, never as JPEG bytes).
struct DecodedJPEG {
    let size: PixelSize
    let isGray: Bool
    /// BT.601 luma (the Y plane), row by row, `size.width` bytes a row.
    let luma: [UInt8]
    /// Interleaved RGB (gray repeated for gray images), row by row.
    let rgb: [UInt8]

    init(_ data: Data, name: String = "test") throws {
        let decompressor = try Decompressor(file: name)
        let image = PlanarImage()
        let scratch = ScratchBuffer()
        let (size, isGray, luma, rgb) = try data.withUnsafeBytes { bytes in
            let header = try JPEGDecoder.readHeader(bytes, decompressor: decompressor, file: name)
            let options = JPEGDecoder.Options(
                scaleDenominator: 1, acceptsIncompleteData: false, cmykProfile: nil, isCMYKInverted: false)
            _ = try JPEGDecoder.decode(
                bytes, header: header, options: options, decompressor: decompressor, into: image, scratch: scratch,
                file: name)
            let size = image.size
            let plane = image.planes[0]
            var luma = [UInt8](repeating: 0, count: size.pixelCount)
            for y in 0..<size.height {
                for x in 0..<size.width { luma[y * size.width + x] = plane.row(y)[x] }
            }
            var rgb: [UInt8]
            if image.isGray {
                rgb = luma.flatMap { [$0, $0, $0] }
            } else {
                precondition(image.subsampling == .quarter, "test decoding expects the 4:2:0 copies ImagePrep writes")
                let pixels = try JPEGEncoder.interleave(image, into: scratch, decompressor: decompressor, file: name)
                rgb = Array(UnsafeBufferPointer(start: pixels, count: size.pixelCount * 3))
            }
            return (size, image.isGray, luma, rgb)
        }
        self.size = size
        self.isGray = isGray
        self.luma = luma
        self.rgb = rgb
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

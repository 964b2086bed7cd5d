import CTurboJPEG
import Foundation

@testable import ImagePrep

/// A JPEG decoded at full size by libjpeg-turbo, through the package's own `JPEGDecoder`, so that
/// tests compare pixels after decoding and never JPEG bytes.
///
/// Decoding refuses any warning that loses pixels (`acceptsIncompleteData` is off), so a value
/// of this type with no `warnings` is a JPEG that libjpeg-turbo decodes cleanly.
struct DecodedJPEG {
    /// One plane of samples, without TurboJPEG's padding.
    struct Plane {
        let width: Int
        let height: Int
        let samples: [UInt8]

        subscript(x: Int, y: Int) -> UInt8 { samples[y * width + x] }

        /// The rectangle at (`x`, `y`) of `width` x `height`.
        func cropped(x: Int, y: Int, width: Int, height: Int) -> Plane {
            var out: [UInt8] = []
            out.reserveCapacity(width * height)
            for row in y..<(y + height) { out += samples[(row * self.width + x)..<(row * self.width + x + width)] }
            return Plane(width: width, height: height, samples: out)
        }

        /// The mean of the samples in the part of the plane that covers `cell` of an image split
        /// into `grid` x `grid` cells (cells are in image proportions, so planes of any
        /// subsampling give comparable averages).
        func average(cell: (x: Int, y: Int), grid: Int) -> Double {
            let x0 = cell.x * width / grid
            let x1 = (cell.x + 1) * width / grid
            let y0 = cell.y * height / grid
            let y1 = (cell.y + 1) * height / grid
            var sum = 0
            for y in y0..<y1 {
                for x in x0..<x1 { sum += Int(self[x, y]) }
            }
            return Double(sum) / Double((x1 - x0) * (y1 - y0))
        }
    }

    /// The decoded size (the frame header's).
    let size: PixelSize
    /// The number of components in the frame header: 1 for gray, 3 for colour, 4 for CMYK.
    let componentCount: Int
    /// The frame header's marker (0xC0 baseline, 0xC2 progressive...).
    let frameMarker: UInt8
    /// Y (or gray), then Cb and Cr at their own sizes; CMYK and RGB files come out as 4:4:4 YCbCr.
    let planes: [Plane]
    /// Interleaved RGB (or gray) pixels, made only when asked for, by libjpeg-turbo's own
    /// `tjDecompress2` (independently of the package's planar decoder).
    let rgb: [UInt8]?
    /// libjpeg-turbo's warnings that lost no pixels.
    let warnings: [PhotoWarning]

    var luma: Plane { planes[0] }

    /// Decodes `data`; throws what the pipeline would throw for the same problem.
    init(_ data: Data, name: String = "decoded copy", makingRGB: Bool = false) throws {
        let image = PlanarImage()
        let scratch = ScratchBuffer()
        var frame: FrameHeader?
        var warnings: [PhotoWarning] = []
        var rgb: [UInt8]?
        try data.withUnsafeBytes { bytes in
            let layout = SegmentWalker.walk(bytes)
            frame = layout.frame
            let decompressor = try Decompressor(file: name)
            let header = try JPEGDecoder.readHeader(bytes, decompressor: decompressor, file: name)
            let options = JPEGDecoder.Options(
                scaleDenominator: 1, acceptsIncompleteData: false, cmykProfile: nil)
            let outcome = try JPEGDecoder.decode(
                bytes, header: header, options: options, decompressor: decompressor, into: image, scratch: scratch,
                file: name)
            image.fillRows(from: outcome.rowsWritten)
            warnings = outcome.warnings
            if makingRGB { rgb = try Self.decodeRGB(bytes, size: image.size, isGray: image.isGray) }
        }
        guard let frame else { throw ImagePrepError.corruptJPEG(file: name, detail: "no frame header") }
        size = image.size
        componentCount = frame.componentCount
        frameMarker = frame.marker
        let subsampling = image.subsampling
        planes = image.activePlanes.enumerated().map { index, plane in
            let across = index == 0 ? 1 : subsampling.horizontal
            let down = index == 0 ? 1 : subsampling.vertical
            let width = (image.size.width + across - 1) / across
            let height = (image.size.height + down - 1) / down
            var samples: [UInt8] = []
            samples.reserveCapacity(width * height)
            for y in 0..<height { samples += UnsafeBufferPointer(start: plane.row(y), count: width) }
            return Plane(width: width, height: height, samples: samples)
        }
        self.rgb = rgb
        self.warnings = warnings
    }

    private static func decodeRGB(_ bytes: UnsafeRawBufferPointer, size: PixelSize, isGray: Bool) throws -> [UInt8] {
        guard let handle = tjInitDecompress() else {
            throw ImagePrepError.corruptJPEG(file: "test", detail: "no decompressor")
        }
        defer { tjDestroy(handle) }
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * (isGray ? 1 : 3))
        let status = pixels.withUnsafeMutableBufferPointer { output in
            tjDecompress2(
                handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), output.baseAddress,
                Int32(size.width), 0, Int32(size.height), Int32((isGray ? TJPF_GRAY : TJPF_RGB).rawValue), 0)
        }
        guard status == 0 else {
            throw ImagePrepError.corruptJPEG(file: "test", detail: String(cString: tjGetErrorStr2(handle)))
        }
        return pixels
    }

    /// The luma shrunk to `columns` x `rows` with a Lanczos3 filter, as ImageMagick's
    /// `-resize` does, row by row.
    func lumaGrid(columns: Int, rows: Int) -> [Double] {
        let source = PixelPlane()
        try! source.reshape(width: size.width, height: size.height)
        luma.samples.withUnsafeBufferPointer { source.pixels.update(from: $0.baseAddress!, count: $0.count) }
        let target = PixelPlane()
        try! target.reshape(width: columns, height: rows)
        Resampler().resample(
            source, size: size, into: target, size: PixelSize(width: columns, height: rows),
            scaleX: Double(size.width) / Double(columns), scaleY: Double(size.height) / Double(rows))
        return (0..<(columns * rows)).map { Double(target.pixels[$0]) }
    }

    /// The mean RGB of a rectangle (needs `rgb`).
    func meanRGB(x: Int, y: Int, width: Int, height: Int) -> [Double] {
        guard let rgb else { preconditionFailure("decode with makingRGB: true") }
        var total = [0.0, 0.0, 0.0]
        for row in y..<(y + height) {
            for column in x..<(x + width) {
                for channel in 0..<3 { total[channel] += Double(rgb[(row * size.width + column) * 3 + channel]) }
            }
        }
        return total.map { $0 / Double(width * height) }
    }

    /// The average R, G and B of each of `grid` x `grid` cells, row by row (needs `rgb`).
    func rgbCellAverages(grid: Int) -> [[Double]] {
        guard let rgb else { preconditionFailure("decode with makingRGB: true") }
        var cells: [[Double]] = []
        for cellY in 0..<grid {
            for cellX in 0..<grid {
                let x0 = cellX * size.width / grid
                let x1 = (cellX + 1) * size.width / grid
                let y0 = cellY * size.height / grid
                let y1 = (cellY + 1) * size.height / grid
                var sums = [0, 0, 0]
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        for channel in 0..<3 { sums[channel] += Int(rgb[(y * size.width + x) * 3 + channel]) }
                    }
                }
                cells.append(sums.map { Double($0) / Double((x1 - x0) * (y1 - y0)) })
            }
        }
        return cells
    }
}

/// Peak signal-to-noise ratio in dB of `candidate` against `reference` (8-bit range), the same
/// formula as the benchmark's quality.py: 10 log10(255² / mean squared error).
func psnr(_ reference: [Double], _ candidate: [Double]) -> Double {
    precondition(reference.count == candidate.count && !reference.isEmpty)
    var squares = 0.0
    for index in reference.indices {
        let difference = reference[index] - candidate[index]
        squares += difference * difference
    }
    let meanSquare = squares / Double(reference.count)
    return meanSquare == 0 ? .infinity : 10 * log10(255 * 255 / meanSquare)
}

extension DecodedJPEG.Plane {
    var values: [Double] { samples.map(Double.init) }

    /// The plane at half its width and height (rounded up), each sample the mean of the 2x2
    /// block it covers (of the samples that exist at an odd edge): how 4:2:0 chroma sits on
    /// 4:4:4 chroma.
    func halved() -> DecodedJPEG.Plane {
        let (w, h) = ((width + 1) / 2, (height + 1) / 2)
        var out: [UInt8] = []
        out.reserveCapacity(w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0
                var count = 0
                for dy in 0..<2 where 2 * y + dy < height {
                    for dx in 0..<2 where 2 * x + dx < width {
                        sum += Int(self[2 * x + dx, 2 * y + dy])
                        count += 1
                    }
                }
                out.append(UInt8((sum + count / 2) / count))
            }
        }
        return DecodedJPEG.Plane(width: w, height: h, samples: out)
    }

    /// The plane moved half a pixel left (or up): each sample is the mean of itself and its right
    /// (or lower) neighbour, so the result is one column (or row) smaller.
    func shiftedHalfPixel(horizontally: Bool) -> [Double] {
        var out: [Double] = []
        let (w, h) = horizontally ? (width - 1, height) : (width, height - 1)
        out.reserveCapacity(w * h)
        for y in 0..<h {
            for x in 0..<w {
                let next = horizontally ? self[x + 1, y] : self[x, y + 1]
                out.append((Double(self[x, y]) + Double(next)) / 2)
            }
        }
        return out
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// The pixel kernels are compiled twice on x86-64, for every CPU and for AVX2 with FMA, and the
/// faster build is picked at run time. Both must make the same picture: the resampler's passes
/// over bytes are integers and give the same bytes; where floats come in (the box stage's
/// averages, the colour transform) the AVX2 build may fuse a multiply and an add that the
/// portable one rounds apart, never more than one level apart.
@Suite("Run-time kernel dispatch")
struct KernelDispatchTests {
    /// A plane of random samples, reproducible from `seed`.
    static func randomPlane(width: Int, height: Int, seed: UInt64) -> PixelPlane {
        var generator = SplitMix64(seed: seed)
        let plane = PixelPlane()
        try! plane.reshape(width: width, height: height)
        for index in 0..<width * height { plane.pixels[index] = UInt8(truncatingIfNeeded: generator.next()) }
        return plane
    }

    /// The largest difference between two planes' top-left `size` regions.
    static func largestDifference(_ a: PixelPlane, _ b: PixelPlane, size: PixelSize) -> Int {
        var largest = 0
        for y in 0..<size.height {
            for x in 0..<size.width { largest = max(largest, abs(Int(a.row(y)[x]) - Int(b.row(y)[x]))) }
        }
        return largest
    }

    @Test("this x86-64 machine picks the AVX2 kernels when it has AVX2 and FMA")
    func picksTheFastestBuild() {
        #if arch(x86_64)
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = Set(cpu.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init))
        if flags.contains("avx2") && flags.contains("fma") { #expect(PixelKernels.best.name == "avx2") }
        #endif
        #expect(PixelKernels.portable.name == "portable")
    }

    @Test(
        "the dispatched resampler and the portable one agree on random planes: exactly, or within one level after a box stage",
        arguments: [
            (4032, 24, 2048, 12),  // the upload reduction
            (2048, 40, 400, 8),  // the thumbnail
            (1001, 33, 517, 17),  // odd sizes, a partial last block
            (3000, 64, 30, 2),  // the box stage first
            (37, 9, 80, 19),  // enlarging
        ])
    func resamplersAgree(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) {
        let source = Self.randomPlane(width: sourceWidth, height: sourceHeight, seed: UInt64(sourceWidth))
        let sourceSize = PixelSize(width: sourceWidth, height: sourceHeight)
        let targetSize = PixelSize(width: targetWidth, height: targetHeight)
        let targets = [PixelKernels.best, .portable].map { kernels in
            let target = PixelPlane()
            try! target.reshape(width: targetWidth, height: targetHeight)
            Resampler(kernels: kernels).resample(
                source, size: sourceSize, into: target, size: targetSize,
                scaleX: Double(sourceWidth) / Double(targetWidth), scaleY: Double(sourceHeight) / Double(targetHeight))
            return target
        }
        let hasBoxStage =
            Double(sourceWidth) / Double(targetWidth) >= Resampler.boxReductionThreshold
            || Double(sourceHeight) / Double(targetHeight) >= Resampler.boxReductionThreshold
        #expect(Self.largestDifference(targets[0], targets[1], size: targetSize) <= (hasBoxStage ? 1 : 0))
    }

    @Test("the dispatched colour conversion and the portable one make the same bytes on random planes")
    func colorConversionsAgree() throws {
        let profile = try ColorConverterTests.profile(of: "gps-north-west-display-p3-nikon.jpg")
        let (conversion, _) = ColorConverter.displayConversion(for: profile, isGray: false)
        guard case .matrixShaper(let transform) = conversion else {
            Issue.record("Display P3 converts through the matrix-and-curves transform")
            return
        }
        let size = PixelSize(width: 333, height: 47)
        let images = [PixelKernels.best, .portable].map { kernels in
            let image = PlanarImage()
            try! image.reshape(size: size, isGray: false, subsampling: .quarter, file: "test")
            for (index, plane) in image.planes.enumerated() {
                let random = Self.randomPlane(width: plane.width, height: plane.height, seed: UInt64(index + 7))
                plane.pixels.update(from: random.pixels, count: plane.width * plane.height)
            }
            transform.apply(
                luma: image.planes[0], cb: image.planes[1], cr: image.planes[2], width: size.width, rows: size.height,
                kernels: kernels)
            return image
        }
        for index in 0..<3 {
            let plane = images[0].planes[index]
            let real = PixelSize(width: plane.width, height: plane.height)
            #expect(Self.largestDifference(plane, images[1].planes[index], size: real) == 0, "plane \(index)")
        }

        var generator = SplitMix64(seed: 3)
        let pixels = (0..<999).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let converted = [PixelKernels.best, .portable].map { kernels in
            var copy = pixels
            copy.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: 333, kernels: kernels) }
            return copy
        }
        #expect(converted[0] == converted[1])
    }

    /// The rows of PNG, GIF, WebP, TIFF and the other row-stream formats go to YCbCr through
    /// `rowToYCbCr`, which composites every pixel (an opaque one comes back unchanged) so that
    /// its loop vectorises: both builds give the bytes of libjpeg's formula, written out here.
    @Test("the dispatched row conversion to YCbCr and the portable one make libjpeg's bytes", arguments: [1, 2, 3, 4])
    func rowConversionsAgree(channels: Int) {
        var generator = SplitMix64(seed: UInt64(channels))
        let width = 1001
        // Every third pixel opaque, as most pixels of a real picture are.
        let row = (0..<width * channels).map { index in
            channels % 2 == 0 && index % channels == channels - 1 && (index / channels) % 3 == 0
                ? 255 : UInt8(truncatingIfNeeded: generator.next())
        }
        for background: [UInt8] in [[255, 255, 255], [12, 200, 77]] {
            func composite(_ sample: Int, _ alpha: Int, _ under: Int) -> Int {
                let mixed = sample * alpha + under * (255 - alpha) + 128
                return (mixed + (mixed >> 8)) >> 8
            }
            let gray =
                (19595 * Int(background[0]) + 38470 * Int(background[1]) + 7471 * Int(background[2]) + 32768) >> 16
            var expected = [[UInt8]](repeating: [UInt8](repeating: 0, count: width), count: 3)
            for x in 0..<width {
                let pixel = row[(x * channels)...].prefix(channels).map(Int.init)
                if channels <= 2 {
                    expected[0][x] = UInt8(channels == 2 ? composite(pixel[0], pixel[1], gray) : pixel[0])
                    continue
                }
                let (r, g, b): (Int, Int, Int) =
                    channels == 4
                    ? (
                        composite(pixel[0], pixel[3], Int(background[0])),
                        composite(pixel[1], pixel[3], Int(background[1])),
                        composite(pixel[2], pixel[3], Int(background[2]))
                    ) : (pixel[0], pixel[1], pixel[2])
                let chroma: Int = (128 << 16) + 32767
                let luma: Int = 19595 * r + 38470 * g + 7471 * b + 32768
                let blue: Int = -11059 * r - 21709 * g + 32768 * b + chroma
                let red: Int = 32768 * r - 27439 * g - 5329 * b + chroma
                expected[0][x] = UInt8(luma >> 16)
                expected[1][x] = UInt8(blue >> 16)
                expected[2][x] = UInt8(red >> 16)
            }
            for kernels in [PixelKernels.best, .portable] {
                var luma = [UInt8](repeating: 0, count: width)
                var cb = luma
                var cr = luma
                luma.withUnsafeMutableBufferPointer { luma in
                    cb.withUnsafeMutableBufferPointer { cb in
                        cr.withUnsafeMutableBufferPointer { cr in
                            kernels.rowToYCbCr(
                                row, width: width, channels: channels, background: background,
                                luma: luma.baseAddress!, cb: cb.baseAddress!, cr: cr.baseAddress!)
                        }
                    }
                }
                let planes = channels <= 2 ? [luma, expected[1], expected[2]] : [luma, cb, cr]
                #expect(planes == expected, "\(kernels.name), \(channels) channels, background \(background)")
            }
        }
    }

    /// The planar kernel converts whole blocks of 16x2 pixels where they lie and the right and
    /// bottom edges through a padded copy, and folds the matrix into its curve tables. All of it
    /// must compute what the strip path computes: libjpeg-turbo's decode to RGB, the interleaved
    /// transform, libjpeg-turbo's encode. Odd sizes put every kind of edge in the picture.
    @Test(
        "the planar colour conversion makes the bytes of libjpeg-turbo's conversions around the RGB transform",
        arguments: [(333, 47), (32, 2), (48, 17), (31, 33), (17, 5), (2, 3), (1, 1)])
    func planarConversionIsTheStripPath(width: Int, height: Int) throws {
        let profile = try ColorConverterTests.profile(of: "gps-north-west-display-p3-nikon.jpg")
        let (conversion, _) = ColorConverter.displayConversion(for: profile, isGray: false)
        guard case .matrixShaper(let transform) = conversion else {
            Issue.record("Display P3 converts through the matrix-and-curves transform")
            return
        }
        let size = PixelSize(width: width, height: height)
        func randomImage() -> PlanarImage {
            let image = PlanarImage()
            try! image.reshape(size: size, isGray: false, subsampling: .quarter, file: "test")
            for (index, plane) in image.planes.enumerated() {
                let random = Self.randomPlane(width: plane.width, height: plane.height, seed: UInt64(width + index))
                plane.pixels.update(from: random.pixels, count: plane.width * plane.height)
            }
            return image
        }
        let expected = randomImage()
        try conversion.convertThroughRGB(
            expected, rows: 0..<height, stripBuffer: ScratchBuffer(), compressor: Compressor(file: "random"),
            decompressor: Decompressor(file: "random"), file: "random")
        let chroma = PixelSize(width: (width + 1) / 2, height: (height + 1) / 2)
        for kernels in [PixelKernels.best, .portable] {
            let image = randomImage()
            transform.apply(
                luma: image.planes[0], cb: image.planes[1], cr: image.planes[2], width: width, rows: height,
                kernels: kernels)
            for (index, real) in [size, chroma, chroma].enumerated() {
                #expect(
                    Self.largestDifference(image.planes[index], expected.planes[index], size: real) == 0,
                    "\(kernels.name), plane \(index)")
            }
        }
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Every kind of JPEG the issue says must work prepares, at the right size and with its
/// colours, through each decode path (planar YCbCr at every subsampling, gray, CMYK/YCCK).
@Suite("Every kind of JPEG the issue lists prepares")
struct DecodeInputTests {
    /// Small photos (all under the 2048 limit): the same 224x150 picture (223x149 for the odd
    /// ones) in each chroma subsampling and coding, plus real progressive and arithmetic-coded files.
    static let smallPhotos = [
        "decode/ycc444-224x150.jpg", "decode/ycc422-224x150.jpg", "decode/ycc420-224x150.jpg",
        "decode/ycc440-224x150.jpg", "decode/ycc444-odd-223x149.jpg", "decode/ycc422-odd-223x149.jpg",
        "decode/ycc420-odd-223x149.jpg", "decode/ycc440-odd-223x149.jpg", "decode/gray-224x150.jpg",
        "decode/progressive-444-224x150.jpg", "decode/restart-every-row-224x150.jpg", "corpus/progressive.jpg",
        "corpus/arithmetic-coded.jpg", "corpus/no-exif.jpg", "corpus/grayscale-gray-gamma-icc.jpg",
    ]

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    /// How far (in 8-bit levels) the average of Y, Cb or Cr over a 4x4 grid cell of a copy may be
    /// from the original's. Measured at most 0.67 at quality 85; a swapped or misaligned plane
    /// is off by tens.
    static let cellTolerance = 2.0

    /// Checks that `copy` holds the same picture as `original`, cell by cell and plane by plane.
    static func expectSameColors(
        _ copy: DecodedJPEG, as original: DecodedJPEG, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(copy.planes.count == original.planes.count, sourceLocation: sourceLocation)
        for (index, (ours, theirs)) in zip(copy.planes, original.planes).enumerated() {
            for cellY in 0..<4 {
                for cellX in 0..<4 {
                    let difference =
                        ours.average(cell: (cellX, cellY), grid: 4) - theirs.average(cell: (cellX, cellY), grid: 4)
                    #expect(
                        abs(difference) <= cellTolerance, "plane \(index) cell (\(cellX), \(cellY)): \(difference)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test(
        "a photo under the limit keeps its size in every copy, decodes cleanly and keeps its colours",
        arguments: smallPhotos)
    func underTheLimit(path: String) throws {
        let original = try DecodedJPEG(Fixtures.data(path))
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(path), name: Self.name(path))
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        #expect(photo.upload.size == original.size, "never upscaled, never shrunk")
        #expect(photo.display?.size == original.size)
        #expect(photo.thumbnail?.size == original.size.fitting(longEdge: 400))

        let upload = try DecodedJPEG(photo.upload.data)
        #expect(upload.size == original.size && upload.warnings.isEmpty)
        #expect(upload.componentCount == (original.componentCount == 1 ? 1 : 3))
        Self.expectSameColors(upload, as: original)
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size && decoded.warnings.isEmpty)
        }
    }

    /// Measured at quality 85 and 64x43 for the 224x150 files: luma 35.1 dB for every
    /// subsampling, Cb 36.5-36.6 dB, Cr 38.0-38.1 dB. The same upload half a pixel off scores
    /// 26.8 dB, and its Cr against the reference's Cb 18.5 dB.
    static let downscaledLumaPSNR = 34.0, downscaledChromaPSNR = 35.0

    @Test(
        "a photo over the limit is decoded in strips at the DCT scale that leaves the resampler half the reduction, then resized close to a float Lanczos3 reference",
        arguments: smallPhotos.filter { $0.hasPrefix("decode/ycc") })
    func overTheLimit(path: String) throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 64
        let original = try DecodedJPEG(Fixtures.data(path))
        let workspace = PreparationWorkspace()
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data(path), name: Self.name(path), workspace: workspace)
        // 224 / 2 = 112 leaves the resampler less than 2x to reduce, so the strips are full size.
        #expect(workspace.lastDecode.size == original.size)
        #expect(workspace.lastDecode.isStripWise)
        // 150 * 64 / 224 = 42.9 and 149 * 64 / 223 = 42.8.
        #expect(photo.upload.size == PixelSize(width: 64, height: 43))
        let upload = try DecodedJPEG(photo.upload.data)
        #expect(upload.size == photo.upload.size && upload.warnings.isEmpty)

        // The 4:4:4 file's reference serves all four: they share their luma coefficients.
        let source = path.contains("odd") ? "ycc444-odd-223x149" : "ycc444-224x150"
        let reference = try DecodedJPEG(Fixtures.data("decode/references/\(source).64px.jpg"))
        try #require(reference.size == upload.size && upload.planes.count == 3)
        let luma = psnr(reference.luma.values, upload.luma.values)
        // A side that 2 does not divide (223) decodes to 112 columns that span 111.5 of the photo;
        // resampled as if they spanned 112, the picture stretched (29.8 dB instead of 35.1).
        #expect(luma >= Self.downscaledLumaPSNR, "luma \(luma) dB")
        for index in 1...2 {
            let chroma = psnr(reference.planes[index].halved().values, upload.planes[index].values)
            #expect(chroma >= Self.downscaledChromaPSNR, "plane \(index): \(chroma) dB")
        }
        // The metric can fail.
        let wanted = reference.luma.cropped(x: 0, y: 0, width: 63, height: 43).values
        #expect(psnr(wanted, upload.luma.shiftedHalfPixel(horizontally: true)) < Self.downscaledLumaPSNR - 3)
        #expect(psnr(reference.planes[1].halved().values, upload.planes[2].values) < Self.downscaledChromaPSNR - 3)
    }

    @Test(
        "gray stays gray: every copy of a one-component JPEG has one component",
        arguments: [
            "decode/gray-224x150.jpg", "corpus/grayscale-gray-gamma-icc.jpg",
        ])
    func grayStaysGray(path: String) throws {
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(path), name: Self.name(path))
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.componentCount == 1 && decoded.planes.count == 1)
        }
    }

    @Test(
        "restart markers and progressive coding give exactly the pixels of the same baseline file",
        arguments: [
            ("decode/restart-every-row-224x150.jpg", "decode/ycc420-224x150.jpg"),
            ("decode/progressive-444-224x150.jpg", "decode/ycc444-224x150.jpg"),
        ])
    func sameCoefficientsSamePixels(path: String, baselinePath: String) throws {
        let source = try DecodedJPEG(Fixtures.data(path))
        let baseline = try DecodedJPEG(Fixtures.data(baselinePath))
        // The fixtures hold the same coefficients, only coded differently...
        try #require(source.planes.map(\.samples) == baseline.planes.map(\.samples))
        let markers = try Fixtures.data(path).withUnsafeBytes { SegmentWalker.walk($0).segments.map(\.marker) }
        #expect(markers.contains(0xDD) || source.frameMarker == 0xC2, "the fixture has a DRI or is progressive")
        // ...so the pipeline must make the same upload of them.
        let upload = try DecodedJPEG(
            PhotoPreparer().prepareBlocking(Fixtures.data(path), name: Self.name(path)).upload.data)
        let expected = try DecodedJPEG(
            PhotoPreparer().prepareBlocking(Fixtures.data(baselinePath), name: "baseline").upload.data)
        #expect(upload.planes.map(\.samples) == expected.planes.map(\.samples))
    }

    /// `references.json` in `Tests/Fixtures/decode/references`.
    static let references: JSONValue = {
        let data = try! Fixtures.data("decode/references/references.json")
        return try! JSONDecoder().decode(JSONValue.self, from: data)
    }()

    /// How far each channel of a cell's average RGB may be from Pillow's conversion of the same
    /// CMYK file. Measured at most 0.8 (CMYK) and 5.6 (YCCK, a saturated test chart whose 4:2:0
    /// quality 85 copy moves cell averages that far: Pillow's own round trip of its RGB through
    /// such a JPEG moves them 5.7). Reading the CMYK as not inverted would put the median cell
    /// channel 113 (CMYK) and 167 (YCCK) levels off.
    static let cmykTolerance = 8.0

    @Test(
        "CMYK and YCCK (Adobe inverted) come out as the RGB that Pillow and ImageMagick make of them",
        arguments: ["cmyk-adobe-no-icc.jpg", "ycck-adobe-pillow.jpg"])
    func cmyk(name: String) throws {
        let golden = try #require(Self.references["cmyk"]?[name])
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data("corpus/" + name), name: name)
        let upload = try DecodedJPEG(photo.upload.data)
        #expect(upload.componentCount == 3)
        #expect(
            photo.upload.data.withUnsafeBytes { bytes in
                SegmentWalker.walk(bytes).segments.allSatisfy { $0.marker != JPEGSegment.app14 }
            }, "no Adobe marker: the copy is YCbCr")

        let display = try DecodedJPEG(try #require(photo.display).data, makingRGB: true)
        let grid = try #require(golden["grid"]?.int)
        #expect(golden["size"] == .array([.number(Double(display.size.width)), .number(Double(display.size.height))]))
        let wanted = try #require(golden["cells_rgb"]?.array).map { cell in cell.array?.compactMap { $0.number } ?? [] }
        let got = display.rgbCellAverages(grid: grid)
        try #require(got.count == wanted.count)
        for (index, (ours, theirs)) in zip(got, wanted).enumerated() {
            try #require(theirs.count == 3)
            for channel in 0..<3 {
                #expect(
                    abs(ours[channel] - theirs[channel]) <= Self.cmykTolerance,
                    "cell \(index) channel \(channel): \(ours) vs \(theirs)")
            }
        }
    }

    @Test(
        "EXIF in either byte order, with or without an IFD1 thumbnail, is carried with the new size",
        arguments: [
            "comment-kodak-dc210-bigendian.jpg",  // big-endian, no thumbnail, no PixelX/YDimension
            "exif-little-endian-canon-40d.jpg",  // little-endian, IFD1 thumbnail, 100x68
            "gps-north-west-display-p3-nikon.jpg",  // big-endian, IFD1 thumbnail, 600x400
        ])
    func exifByteOrders(name: String) throws {
        // Shrunk, so that the patched dimensions differ from the original ones.
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 50
        let original = try Fixtures.data("corpus/" + name)
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(original, name: name)
        // The Nikon's GPSAltitude has no AltitudeRef, which the metadata reader reports; nothing
        // about the EXIF block's structure may be reported.
        #expect(photo.warnings.allSatisfy { $0.kind == .metadata && $0.message.contains("GPSAltitudeRef") })
        #expect(photo.upload.size.longEdge == 50)
        let before = try #require(UploadGoldenTests.exifSegment(of: original))
        let after = try #require(UploadGoldenTests.exifSegment(of: photo.upload.data))
        let fields = try #require(EXIFDimensionFields(segment: before))
        #expect((fields.width != nil) == !name.contains("kodak"))
        UploadGoldenTests.expectOnlyPixelDimensionsChanged(from: before, to: after, size: photo.upload.size)
    }
}

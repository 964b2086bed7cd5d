import Foundation
import Testing

@testable import ImagePrep

/// What a HEIF photo's upload carries and what its metadata says: the Exif item byte for byte
/// apart from the documented patches, the ICC profile in APP2 chunks, wide-gamut colour turned
/// into sRGB for the stripped copies, and the same `PhotoMetadata` as reading the file alone.
@Suite("HEIF metadata: the Exif item and the colour profile carried, read as for a JPEG")
struct HEIFMetadataTests {
    @Test(
        "the upload's EXIF is the Exif item's TIFF block byte for byte but the two dimensions and the Orientation",
        arguments: Fixtures.HEIF.preparable)
    func exifBytes(path: String) throws {
        let photo = try Fixtures.prepared(path)
        let carried = UploadSegments.exifSegment(of: photo.upload.data)
        guard let tiff = try Fixtures.HEIF.exifBlock(of: path) else {
            // No Exif item, one that is not carried (its offset leads nowhere), or one carried
            // rebuilt because it is too large for APP1.
            #expect((carried != nil) == Fixtures.HEIF.rebuiltEXIF.contains(path), "\(path)")
            return
        }
        let before = EXIFDimensionFields.segment(aroundTIFF: tiff)
        let after = try #require(carried, "\(path) carries no EXIF")
        try #require(after.count == before.count, "\(path): \(before.count) bytes became \(after.count)")
        let fields = try #require(EXIFDimensionFields(segment: before))
        let patched = Set([fields.width, fields.height, fields.orientation].compactMap { $0?.valueBytes }.joined())
        let changed = Set(before.indices.filter { before[$0] != after[$0] })
        #expect(changed.isSubset(of: patched), "\(path): bytes changed at \(changed.subtracting(patched).sorted())")
        if let width = fields.width { #expect(width.value(in: after) == photo.upload.size.width) }
        if let height = fields.height { #expect(height.value(in: after) == photo.upload.size.height) }
        if let orientation = fields.orientation { #expect(orientation.value(in: after) == 1) }
    }

    @Test(
        "preparing a HEIF photo gives the metadata PhotoMetadata.read(from:) gives", arguments: Fixtures.HEIF.preparable
    )
    func sameMetadataEitherWay(path: String) throws {
        let photo = try Fixtures.prepared(path)
        let (metadata, warnings) = PhotoMetadata.read(from: try Fixtures.data(path))
        #expect(photo.metadata == metadata)
        #expect(warnings.allSatisfy(photo.warnings.contains), "\(warnings) not in \(photo.warnings)")
    }

    @Test("an iPhone-like photo: time with its offset and sub-seconds, GPS and camera from the Exif item")
    func iPhoneMetadata() throws {
        let metadata = try Fixtures.prepared("heic/iphone-like-grid-p3-rotated.heic").metadata
        #expect(metadata.cameraMake == "Apple" && metadata.cameraModel == "iPhone 14 Pro Max")
        #expect(metadata.captureTime?.iso8601 == "2025-09-07T14:16:43.472-04:00")
        #expect(metadata.captureTime?.source == .dateTimeOriginal)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 37.334606) < 1e-6 && abs(location.longitude + 122.009102) < 1e-6)
        #expect(location.altitude.map { abs($0 - 32.5) < 0.01 } == true)
    }

    @Test("exiftool's writing into a HEIC: a quarter-hour offset, sub-seconds, south-east below sea level")
    func exiftoolWrittenItem() throws {
        let metadata = try Fixtures.prepared("heic/time-offset-gps-exiftool.heic").metadata
        #expect(metadata.captureTime?.iso8601 == "2024-11-02T06:15:30.25+05:45")
        #expect(metadata.location?.latitude ?? 0 < 0 && metadata.location?.longitude ?? 0 > 0)
        #expect(metadata.location?.altitude.map { abs($0 + 14.5) < 0.01 } == true)
    }

    @Test("a HEIC without an Exif item prepares with no EXIF and empty metadata")
    func noExif() throws {
        let photo = try Fixtures.prepared("heic/no-exif.heic")
        #expect(photo.metadata == PhotoMetadata(originalSize: PixelSize(width: 250, height: 188)))
        #expect(UploadSegments.exifSegment(of: photo.upload.data) == nil && photo.warnings.isEmpty)
    }

    @Test("an Exif item whose offset points past its end gives a warning and no EXIF, and the photo prepares")
    func exifOffsetPastEnd() throws {
        let photo = try Fixtures.prepared("heic/exif-offset-past-end.heic")
        #expect(photo.metadata == PhotoMetadata(originalSize: PixelSize(width: 250, height: 188)))
        #expect(UploadSegments.exifSegment(of: photo.upload.data) == nil)
        #expect(photo.warnings.map(\.kind) == [.metadata])
    }

    @Test(
        "the ICC profile of the colr box is carried whole in APP2 chunks: the iPhone's and heif-enc's copy of the JPEG's"
    )
    func iccProfileCarried() throws {
        for (heif, jpeg) in [
            ("heic/iphone-like-grid-p3-rotated.heic", "corpus/offset-minus0400-iphone14promax-p3-mpf.jpg"),
            ("heic/display-p3-gps.heic", "corpus/gps-north-west-display-p3-nikon.jpg"),
        ] {
            let photo = try Fixtures.prepared(heif)
            let expected = try #require(UploadSegments.iccProfile(of: try Fixtures.data(jpeg)))
            #expect(UploadSegments.iccProfile(of: photo.upload.data) == expected, "\(heif)")
            // Stripped copies carry no profile: they are sRGB.
            #expect(UploadSegments.iccProfile(of: try #require(photo.display).data) == nil)
        }
        #expect(UploadSegments.iccProfile(of: try Fixtures.prepared("heic/no-exif.heic").upload.data) == nil)
    }

    /// The mean RGB of each of 4x4 cells of a copy.
    static func cells(_ copy: EncodedJPEG?) throws -> [[Double]] {
        try DecodedJPEG(try #require(copy).data, makingRGB: true).rgbCellAverages(grid: 4)
    }

    static func largestDifference(_ a: [[Double]], _ b: [[Double]]) -> Double {
        zip(a, b).flatMap { zip($0, $1).map { abs($0 - $1) } }.max() ?? .infinity
    }

    @Test("Display P3, by ICC profile (HEIC) or by nclx (AVIF), goes to sRGB as the same photo's JPEG does")
    func displayP3ToSRGB() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.displayEdge = 300
        let jpeg = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("corpus/gps-north-west-display-p3-nikon.jpg"), name: "jpeg")
        let converted = try Self.cells(jpeg.display)
        // The conversion moves colours: P3's numbers shown as sRGB would be this far off.
        let unconverted = try DecodedJPEG(jpeg.upload.data, makingRGB: true).rgbCellAverages(grid: 4)
        #expect(Self.largestDifference(converted, unconverted) > 8)
        for path in ["heic/display-p3-gps.heic", "heic/av1-nclx-display-p3.avif"] {
            let photo = try Fixtures.prepared(path, configuration: configuration)
            let difference = Self.largestDifference(try Self.cells(photo.display), converted)
            // Two lossy codecs at low quality between them, on cell means.
            #expect(difference < 3, "\(path): \(difference) levels from the JPEG's display copy")
            #expect(photo.warnings.allSatisfy { $0.kind != .colorProfile }, "\(photo.warnings)")
        }
        // The nclx colours are carried as an ICC profile that viewers understand.
        let avif = try Fixtures.prepared("heic/av1-nclx-display-p3.avif")
        #expect(UploadSegments.iccProfile(of: avif.upload.data) != nil)
    }

    @Test(
        "a profile made from an nclx description bears a fixed date, not the clock's, so that a photo's copies never differ by when they are made"
    )
    func nclxProfileDate() throws {
        let displayP3 = NCLXColor(
            primaries: 12, transfer: 13, matrix: 6, isFullRange: true, red: (0.68, 0.32), green: (0.265, 0.69),
            blue: (0.15, 0.06), white: (0.3127, 0.3290))
        let profile = try #require(ICCProfile.make(describing: displayP3).0)
        #expect(Array(profile.bytes[24..<36]) == ICCProfile.fixedCreationDate)
    }

    @Test("an nclx description that is sRGB in all but name, or an HDR curve, makes no profile")
    func nclxWithoutProfile() {
        let sRGB = NCLXColor(
            primaries: 1, transfer: 13, matrix: 6, isFullRange: true, red: (0.64, 0.33), green: (0.30, 0.60),
            blue: (0.15, 0.06), white: (0.3127, 0.3290))
        #expect(ICCProfile.make(describing: sRGB).0 == nil && ICCProfile.make(describing: sRGB).1 == nil)
        var pq = sRGB
        pq.primaries = 9
        pq.transfer = 16
        let (profile, warning) = ICCProfile.make(describing: pq)
        #expect(profile == nil && warning?.kind == .colorProfile)
    }

    @Test(
        "samples that are not JPEG's YCbCr (BT.709 limited range, 10 bits, monochrome) come out as heif-convert decodes them",
        arguments: ["heic/bt709-limited-range.heic", "heic/ten-bit.heic", "heic/gray.heic"])
    func otherSamples(path: String) throws {
        let isGray = path.hasSuffix("gray.heic")
        let photo = try Fixtures.prepared(path)
        let upload = try DecodedJPEG(photo.upload.data, makingRGB: !isGray)
        let reference = try DecodedJPEG(Fixtures.data(Fixtures.HEIF.reference(of: path)), makingRGB: !isGray)
        #expect(upload.size == reference.size)
        #expect(upload.componentCount == (isGray ? 1 : 3))
        func cells(_ image: DecodedJPEG) -> [[Double]] {
            guard isGray else { return image.rgbCellAverages(grid: 4) }
            return (0..<16).map { [image.luma.average(cell: ($0 % 4, $0 / 4), grid: 4)] }
        }
        let difference = Self.largestDifference(cells(upload), cells(reference))
        #expect(difference < 2, "\(path): \(difference) levels from heif-convert")
    }

    @Test(
        "a large reduction starts with an average of whole blocks, the blocks at the edges over the samples they have")
    func blockAverage() throws {
        // 5x3 samples, averaged 2x2: blocks of 4, 2 (right edge), 2 (bottom edge) and 1 sample.
        let samples: [UInt8] = [
            10, 20, 30, 40, 50,
            30, 40, 50, 60, 70,
            100, 110, 120, 130, 141,
        ]
        let plane = PixelPlane()
        try plane.reshape(width: 3, height: 2)
        samples.withUnsafeBufferPointer {
            HEIFDecoder.average($0.baseAddress!, stride: 5, size: PixelSize(width: 5, height: 3), by: 2, into: plane)
        }
        #expect(Array(UnsafeBufferPointer(start: plane.row(0), count: 3)) == [25, 45, 60])
        #expect(Array(UnsafeBufferPointer(start: plane.row(1), count: 3)) == [105, 125, 141])
        // With more than twice the samples the upload needs, the resampler takes a quarter of
        // them: averaged row by row in the direct decode (display-p3-gps.heic, 600x400), and in
        // the copy of libheif's decode (gray.heic, 224x150, monochrome, which libheif decodes).
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 250
        let workspace = PreparationWorkspace()
        let photo = try? PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("heic/display-p3-gps.heic"), name: "x", workspace: workspace)
        #expect(photo?.upload.size == PixelSize(width: 250, height: 167))
        #expect(workspace.lastDecode.size == PixelSize(width: 300, height: 200) && workspace.lastDecode.isStripWise)
        configuration.maxEdge = 100
        let gray = try? PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("heic/gray.heic"), name: "x", workspace: workspace)
        #expect(gray?.upload.size == PixelSize(width: 100, height: 67))
        #expect(workspace.inspectKeptBuffers { $0.decoded.size } == PixelSize(width: 112, height: 75))
        #expect(!workspace.lastDecode.isStripWise)
    }

    @Test("an AVIF file prepares through libheif's AV1 decoder, turned by its irot")
    func avif() throws {
        let photo = try Fixtures.prepared("heic/av1-orientation-6.avif")
        #expect(photo.upload.size == PixelSize(width: 224, height: 150) && photo.metadata.orientation == .right)
    }

    @Test("a HEIC named .jpg is prepared by its content, from a file and from bytes")
    func namedJPEG() throws {
        try TemporaryFolder.with(label: "heic") { temporary in
            let folder = temporary.url
            let url = folder.appendingPathComponent("IMG_0001.jpg")
            let data = try Fixtures.data("heic/iphone-like-grid-p3-rotated.heic")
            try data.write(to: url)
            let fromFile = try PhotoPreparer().prepareBlocking(contentsOf: url)
            let fromBytes = try PhotoPreparer().prepareBlocking(data, name: "IMG_0001.jpg")
            #expect(fromFile.upload.data == fromBytes.upload.data)
            #expect(fromFile.upload.size == PixelSize(width: 750, height: 1000))
        }
    }
}

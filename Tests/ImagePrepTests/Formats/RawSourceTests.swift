import Foundation
import Testing

@testable import ImagePrep

/// Camera raw and DNG on the three DNGs `Tests/Fixtures/formats/make-dng-fixtures.py` makes from
/// a real photo: the embedded preview when it is large enough, LibRaw's rendering of the raw data
/// otherwise (a Bayer mosaic demosaicked, at half size when that is enough), the raw's own EXIF
/// read and carried, a header
/// that lies about its size refused before LibRaw unpacks anything.
@Suite("Camera raw and DNG source")
struct RawSourceTests {
    static func prepare(
        _ file: String, configuration: PhotoPreparer.Configuration = .init(),
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) throws -> PreparedPhoto {
        try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("formats/" + file), name: file, workspace: workspace)
    }

    /// What exiftool reads from both DNGs (and the script writes).
    static func expectFixtureMetadata(_ metadata: PhotoMetadata) {
        #expect(metadata.orientation == .right)
        #expect(metadata.captureTime?.local.iso8601 == "2024-05-17T10:21:33")
        #expect(metadata.captureTime?.utcOffset?.description == "+02:00")
        #expect(abs((metadata.location?.latitude ?? 0) - (48 + 51 / 60.0 + 29.64 / 3600)) < 1e-9)
        #expect(abs((metadata.location?.longitude ?? 0) - (2 + 17 / 60.0 + 40.20 / 3600)) < 1e-9)
        #expect(metadata.cameraMake == "ImagePrep" && metadata.cameraModel == "Fixture DNG")
    }

    @Test("a DNG whose preview is at least the upload's size is prepared from the preview, with the raw's EXIF")
    func preview() throws {
        let photo = try Self.prepare("dng-preview-2048.dng")
        #expect(photo.cameraRawPixels == .embeddedPreview)
        #expect(photo.upload.size == PixelSize(width: 2048, height: 1536))
        Self.expectFixtureMetadata(photo.metadata)
        // The upload carries the raw's EXIF, rebuilt, with its Orientation; the copies are upright.
        let carried = PhotoMetadata.read(fromJPEG: photo.upload.data).metadata
        Self.expectFixtureMetadata(carried)
        #expect(photo.display?.size == PixelSize(width: 1536, height: 2048))
    }

    @Test("a DNG whose previews are smaller than the upload is rendered from its raw data by LibRaw")
    func rawData() throws {
        let photo = try Self.prepare("dng-linear-raw-400x300.dng")
        #expect(photo.cameraRawPixels == .rawData)
        #expect(photo.upload.size == PixelSize(width: 400, height: 300))
        Self.expectFixtureMetadata(photo.metadata)
        Self.expectFixtureMetadata(PhotoMetadata.read(fromJPEG: photo.upload.data).metadata)
        let reference = try DecodedJPEG(Fixtures.data("formats/references/dng-linear-raw-400x300.jpg"), makingRGB: true)
        let upload = try DecodedJPEG(photo.upload.data, makingRGB: true)
        // LibRaw brightens a little (its automatic exposure); the picture is the photo's.
        let measured = psnr(try #require(reference.rgb).map(Double.init), try #require(upload.rgb).map(Double.init))
        #expect(measured >= 24, "\(measured) dB")
    }

    @Test(
        "a Bayer mosaic is demosaicked by LibRaw, whole and at half size, in the colours of the photo it was made from",
        arguments: [(2048, PixelSize(width: 480, height: 360)), (200, PixelSize(width: 240, height: 180))])
    func bayerMosaic(maxEdge: Int, decoded: PixelSize) throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = maxEdge
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
        let photo = try Self.prepare("dng-cfa-bayer-480x360.dng", configuration: configuration, workspace: workspace)
        #expect(photo.cameraRawPixels == .rawData)
        #expect(workspace.lastDecode.size == decoded)
        #expect(photo.upload.size == PixelSize(width: 480, height: 360).fitting(longEdge: maxEdge))
        Self.expectFixtureMetadata(photo.metadata)
        Self.expectFixtureMetadata(PhotoMetadata.read(fromJPEG: photo.upload.data).metadata)
        // 8 x 8 cells of the upload against the photo's: each channel's mean within 10 of 255
        // (a red and blue swapped by a wrong CFA pattern is 30 off), and the cells on average
        // within 10 (LibRaw's automatic brightening lifts the highlights a little).
        let reference = try DecodedJPEG(Fixtures.data("formats/references/dng-cfa-bayer-480x360.jpg"), makingRGB: true)
        let upload = try DecodedJPEG(photo.upload.data, makingRGB: true)
        let ours: [[Double]] = upload.rgbCellAverages(grid: 8)
        let theirs: [[Double]] = reference.rgbCellAverages(grid: 8)
        var cellDifference = 0.0
        for channel in 0..<3 {
            var difference = 0.0
            for (cell, referenceCell) in zip(ours, theirs) {
                difference += cell[channel] - referenceCell[channel]
                cellDifference += abs(cell[channel] - referenceCell[channel])
            }
            #expect(abs(difference / 64) <= 10, "channel \(channel): \(difference / 64)")
        }
        #expect(cellDifference / (64 * 3) <= 10, "\(cellDifference / (64 * 3))")
    }

    @Test("raw data that is not a mosaic is rendered whole, since LibRaw's half size takes a mosaic's 2x2 cells")
    func linearRawStaysWhole() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 200  // over the 160 x 120 preview, under half the raw data's 400 x 300
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
        let photo = try Self.prepare("dng-linear-raw-400x300.dng", configuration: configuration, workspace: workspace)
        #expect(photo.cameraRawPixels == .rawData)
        #expect(workspace.lastDecode.size == PixelSize(width: 400, height: 300))
        #expect(photo.upload.size == PixelSize(width: 200, height: 150))
    }

    @Test("with an upload larger than every preview, even the preview DNG is rendered from its raw data")
    func previewTooSmall() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 4096
        let photo = try Self.prepare("dng-preview-2048.dng", configuration: configuration)
        #expect(photo.cameraRawPixels == .rawData)
        #expect(photo.upload.size == PixelSize(width: 64, height: 48))
    }

    @Test("a raw whose header lies about its size is refused before LibRaw unpacks it")
    func lyingHeader() throws {
        var bytes = try [UInt8](Fixtures.data("formats/dng-linear-raw-400x300.dng"))
        // The SubIFD's ImageWidth and ImageLength (LONG values, little-endian) made 30000 x 20000.
        let subIFD = bytes.withUnsafeBytes { raw -> Int? in
            guard let structure = TIFFStructure(raw), let ifd0 = structure.entries(ofIFDAt: structure.ifd0Offset) else {
                return nil
            }
            return ifd0.first(tag: 330).flatMap(structure.integer).map { Int($0) }
        }
        let sub = try #require(subIFD)
        for (tag, value) in [(UInt16(256), UInt32(30000)), (257, 20000)] {
            let count = Int(bytes[sub]) | Int(bytes[sub + 1]) << 8
            let entry = try #require(
                (0..<count).map { sub + 2 + $0 * 12 }.first { (UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) == tag })
            bytes.replaceSubrange((entry + 8)..<(entry + 12), with: withUnsafeBytes(of: value.littleEndian, Array.init))
        }
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 4096
        configuration.maxPixels = 1_000_000_000
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(Data(bytes), name: "lying.dng")
        }
        #expect(["too_much_memory", "corrupt_raw"].contains(error.code), "\(error)")
        configuration.maxPixels = 100_000_000
        let limited = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(Data(bytes), name: "lying.dng")
        }
        #expect(["too_many_pixels", "corrupt_raw"].contains(limited.code), "\(limited)")
    }
}

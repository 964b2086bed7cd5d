import Foundation
import Testing

@testable import ImagePrep

/// A WebP's EXIF, ICCP and XMP chunks: read as a JPEG's EXIF is and agreeing with exiftool
/// (`formats/webp-exiftool.json`), carried into the upload (EXIF with its Orientation, the ICC
/// profile in APP2 chunks, the XMP packet in an APP1), none of them in the stripped copies.
@Suite("WebP metadata: EXIF, ICCP and XMP chunks read as exiftool reads them and carried")
struct WebPMetadataTests {
    static let readings: [String: ExiftoolTags] = {
        guard let data = try? Fixtures.data("formats/webp-exiftool.json"),
            let files = try? JSONDecoder().decode(JSONValue.self, from: data).array
        else { return [:] }
        var readings: [String: ExiftoolTags] = [:]
        for case .object(let object) in files {
            if let name = object["SourceFile"]?.string { readings[name] = ExiftoolTags(object) }
        }
        return readings
    }()

    @Test(
        "capture time with its offset, GPS, camera and orientation agree with exiftool",
        arguments: Fixtures.GIFWebP.webps)
    func agreesWithExiftool(name: String) throws {
        let tags = try #require(Self.readings[name], "\(name) has no exiftool reading")
        let photo = try Fixtures.preparedFormat(name)
        var expected = MetadataReading(exiftool: tags)
        expected.width = tags["RIFF:ImageWidth"]?.int ?? 0
        expected.height = tags["RIFF:ImageHeight"]?.int ?? 0
        let ours = MetadataReading(photo.metadata)
        for field in MetadataReading.Field.allCases {
            #expect(ours.agrees(field, with: expected), "\(name) \(field): ours \(ours), exiftool \(expected)")
        }
    }

    @Test("the phones' GPS and capture times are read: an iPhone X's and an HTC Desire's")
    func phoneValues() throws {
        let iPhone = try Fixtures.preparedFormat("webp-exif-gps-xmp-metadata-extractor.webp").metadata
        #expect(iPhone.cameraModel == "iPhone X" && iPhone.orientation == .right)
        #expect(iPhone.captureTime?.iso8601.hasPrefix("2018-08-27T12:20:23.738") == true)
        #expect(
            iPhone.location.map { abs($0.latitude - 37.39268) < 1e-4 && abs($0.longitude + 122.04097) < 1e-4 } == true)
        let htc = try Fixtures.preparedFormat("webp-iccp-exif-gps-htc-phone-metadata-extractor.webp").metadata
        #expect(htc.cameraMake == "HTC" && htc.location.map { abs($0.latitude - 45.50067) < 1e-4 } == true)
    }

    @Test(
        "the upload carries the EXIF (Orientation kept), the XMP packet and the ICC profile; the stripped copies none")
    func carried() throws {
        let name = "webp-exif-gps-xmp-metadata-extractor.webp"
        let photo = try Fixtures.preparedFormat(name)
        let segments = Self.segments(of: photo.upload.data)
        let exif = try #require(
            segments.first { $0.starts(with: [0xFF, 0xE1]) && $0.dropFirst(4).starts(with: JPEGLayout.exifSignature) })
        let xmp = try #require(segments.first { $0.dropFirst(4).starts(with: GainMapMetadata.xmpSignature) })
        // The upload is stored as the WebP is (sideways): the Orientation (6) is carried, and
        // the stripped copies are turned upright.
        let again = try PhotoPreparer().prepareBlocking(photo.upload.data, name: "upload")
        #expect(again.metadata.orientation == .right && again.metadata.location == photo.metadata.location)
        #expect(photo.display?.size == PixelSize(width: 240, height: 320) && photo.upload.size.width == 320)
        #expect(exif.count > 1000)
        let packet = String(decoding: xmp.dropFirst(4 + GainMapMetadata.xmpSignature.count), as: UTF8.self)
        #expect(packet.contains("x:xmpmeta"))
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            #expect(
                Self.segments(of: copy.data).allSatisfy {
                    !$0.starts(with: [0xFF, 0xE1]) && !$0.starts(with: [0xFF, 0xE2])
                })
        }

        // The Adobe RGB profile in APP2 byte for byte; the display copy converted to sRGB.
        let adobe = try Fixtures.preparedFormat("webp-iccp-adobergb-twelvemonkeys.webp")
        let profile = try Fixtures.data("formats/webp-iccp-adobergb-twelvemonkeys.webp").withUnsafeBytes { bytes in
            try WebPContainer(bytes, file: "adobe").chunk("ICCP").map { Array($0) }
        }
        let carriedProfile = Self.segments(of: adobe.upload.data).filter {
            $0.dropFirst(4).starts(with: JPEGLayout.iccSignature)
        }.flatMap { $0.dropFirst(4 + JPEGLayout.iccSignature.count + 2) }
        #expect(profile != nil && carriedProfile == profile)
        let upload = try DecodedJPEG(adobe.upload.data, makingRGB: true).rgbCellAverages(grid: 4)
        let display = try DecodedJPEG(try #require(adobe.display).data, makingRGB: true).rgbCellAverages(grid: 4)
        #expect(upload != display, "the display copy is converted from Adobe RGB to sRGB")
    }

    static func segments(of jpeg: Data) -> [Data] {
        jpeg.withUnsafeBytes { bytes in SegmentWalker.walk(bytes).segments.map { bytes.data(in: $0.bytes) } }
    }
}

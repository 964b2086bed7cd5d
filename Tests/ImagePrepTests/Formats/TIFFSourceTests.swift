import Foundation
import Testing

@testable import ImagePrep

@Suite("TIFF and BigTIFF photos")
struct TIFFSourceTests {
    @Test(
        "each TIFF and BMP prepares, and its upright copy is vipsthumbnail's picture",
        arguments: Fixtures.TIFFBMP.preparable)
    func matchesVipsthumbnail(name: String) throws {
        let photo = try Fixtures.preparedFormat(name)
        let stem = (name as NSString).deletingPathExtension
        let reference = try DecodedJPEG(Fixtures.data("formats/references-tiff-bmp/\(stem).jpg"))
        // vipsthumbnail turns the picture upright and keeps its profile: the upload is the stored
        // pixels with the profile, the display copy upright and in sRGB.
        let isTurned = (photo.metadata.orientation ?? .up) != .up
        let ours = try DecodedJPEG((isTurned ? photo.display! : photo.upload).data)
        try #require(ours.size == reference.size, "\(name): \(ours.size) against \(reference.size)")
        let score = psnr(reference.luma.values, ours.luma.values)
        #expect(score >= Fixtures.TIFFBMP.minimumPSNR[name] ?? 30, "\(name): \(score) dB")
        #expect(!photo.warnings.contains { $0.kind == .imageData && !$0.message.contains("page") }, "\(photo.warnings)")
    }

    @Test("capture time, offset, GPS and orientation agree with exiftool -n on every TIFF")
    func exiftoolAgreement() throws {
        let readings =
            try JSONSerialization.jsonObject(with: Fixtures.data("formats/exiftool-tiff.json")) as! [[String: Any]]
        try #require(readings.count >= 17)
        for reading in readings {
            let name = reading["SourceFile"] as! String
            guard name != "tiff-dngversion-marked.tif" else { continue }
            let metadata = try Fixtures.preparedFormat(name).metadata
            let date =
                (reading["Composite:SubSecDateTimeOriginal"] ?? reading["ExifIFD:DateTimeOriginal"]
                ?? reading["IFD0:ModifyDate"]) as? String
            // exiftool's `2019:10:02 15:12:43.27+02:00` as ours `2019-10-02T15:12:43.27`, offset apart.
            let expectedLocal = date.map { text -> String in
                var local = Array(text.prefix { $0 != "+" && $0 != "Z" })
                if local.count > 19, let minus = local[19...].firstIndex(of: "-") { local = Array(local[..<minus]) }
                local[4] = "-"
                local[7] = "-"
                local[10] = "T"
                return String(local)
            }
            // A date that does not exist (second 70) gives no time here, as for JPEG (docs/metadata.md).
            let isImpossible = date?.hasSuffix(":70") == true
            #expect(metadata.captureTime?.local.iso8601 == (isImpossible ? nil : expectedLocal), "\(name)")
            let offset = reading["ExifIFD:OffsetTimeOriginal"] as? String
            #expect(metadata.captureTime?.utcOffset?.description == offset, "\(name)")
            let latitude = (reading["Composite:GPSLatitude"] ?? reading["GPS:GPSLatitude"]) as? Double
            let longitude = (reading["Composite:GPSLongitude"] ?? reading["GPS:GPSLongitude"]) as? Double
            // exiftool's JSON prints 15 significant digits.
            #expect(abs((metadata.location?.latitude ?? 0) - (latitude ?? 0)) < 1e-9, "\(name)")
            #expect(abs((metadata.location?.longitude ?? 0) - (longitude ?? 0)) < 1e-9, "\(name)")
            #expect((metadata.location == nil) == (latitude == nil), "\(name)")
            if latitude != nil {
                let altitude = (reading["Composite:GPSAltitude"] ?? reading["GPS:GPSAltitude"]) as? Double
                #expect(metadata.location?.altitude == altitude, "\(name)")
            }
            #expect(metadata.orientation?.rawValue == reading["IFD0:Orientation"] as? Int, "\(name)")
        }
    }

    @Test("the upload's EXIF is rebuilt by libexif: the camera tags, Exif and GPS IFDs, no strip or tile offsets")
    func uploadEXIF() throws {
        let photo = try Fixtures.preparedFormat("tiff-exif-gps-16bit-gray-flir-drone-pillow.tiff")
        let again = try PhotoPreparer().prepareBlocking(photo.upload.data, name: "upload")
        #expect(again.metadata.location == photo.metadata.location && photo.metadata.location != nil)
        #expect(again.metadata.captureTime == photo.metadata.captureTime && photo.metadata.captureTime != nil)
        #expect(again.metadata.cameraMake == "FLIR" && again.metadata.cameraModel == "Duo Pro R")
        let tags = try Self.ifd0Tags(of: photo.upload.data)
        #expect(tags.isDisjoint(with: [273, 279, 324, 325, 700, 34675]), "\(tags.sorted())")
        #expect(tags.isSuperset(of: [0x010F, 0x0110, 0x8769, 0x8825]), "\(tags.sorted())")
    }

    @Test("Orientation is carried: the upload keeps the stored pixels and the tag, the display copy is turned")
    func orientation() throws {
        let photo = try Fixtures.preparedFormat("tiff-orientation-6.tif")
        #expect(photo.metadata.orientation == .right)
        #expect(photo.upload.size == PixelSize(width: 278, height: 374))
        #expect(photo.display?.size == PixelSize(width: 374, height: 278))
        #expect(photo.metadata.captureTime?.utcOffset == UTCOffset(minutes: 120))
        let again = try PhotoPreparer().prepareBlocking(photo.upload.data, name: "upload")
        #expect(again.metadata.orientation == .right)
    }

    @Test("a file of several pages gives its first, with a warning; one of a single page gives none")
    func pages() throws {
        let two = try Fixtures.preparedFormat("tiff-multipage-two-pages.tif")
        #expect(two.metadata.originalSize == PixelSize(width: 278, height: 374))
        #expect(two.warnings.map(\.message) == ["the file holds more than one page; only the first is prepared."])
        #expect(try Fixtures.preparedFormat("tiff-lzw-rgb-galaxy-twelvemonkeys.tif").warnings.isEmpty)
    }

    @Test("a TIFF whose IFD0 has DNGVersion goes to the camera raw source, never read as a plain TIFF")
    func dngGoesToRaw() throws {
        // An RGB TIFF marked with DNGVersion: no raw data LibRaw knows, and no preview, so it is
        // refused in the raw source's words, with the file named.
        #expect {
            try Fixtures.preparedFormat("tiff-dngversion-marked.tif")
        } throws: { error in
            guard let error = error as? ImagePrepError, case .corruptRaw = error else { return false }
            return error.code == "corrupt_raw" && error.description.contains("'tiff-dngversion-marked.tif'")
        }
    }

    @Test("the pixel limit is checked from the directory before anything is decoded")
    func pixelLimit() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxPixels = 900_000
        #expect(
            throws: ImagePrepError.tooManyPixels(
                file: "tiff-lzw-rgb-galaxy-twelvemonkeys.tif", size: PixelSize(width: 965, height: 965), limit: 900_000)
        ) {
            try Fixtures.preparedFormat("tiff-lzw-rgb-galaxy-twelvemonkeys.tif", configuration: configuration)
        }
    }

    @Test("a TIFF cut short is prepared with a warning, or refused as incomplete when incomplete data is refused")
    func truncated() throws {
        let bytes = try Fixtures.data("formats/tiff-16bit-rgb-exif-icc-fujifilm-sharp.tiff")
        // Its directory comes first, then its strips: cut them in the middle. (libtiff reads
        // nothing of a strip that is cut, so a file of one strip has no rows to accept.)
        let cut = bytes.prefix(bytes.count / 2)
        var refusing = PhotoPreparer.Configuration()
        refusing.acceptsIncompleteData = false
        #expect {
            try PhotoPreparer(configuration: refusing).prepareBlocking(cut, name: "cut.tif")
        } throws: { error in
            (error as? ImagePrepError)?.code == "incomplete"
        }
        let photo = try PhotoPreparer().prepareBlocking(cut, name: "cut.tif")
        #expect(photo.warnings.contains { $0.kind == .incompleteImageData }, "\(photo.warnings)")
    }

    /// The tags of the upload's IFD0, read by `TIFFBlock` from its EXIF APP1.
    static func ifd0Tags(of jpeg: Data) throws -> Set<Int> {
        try jpeg.withUnsafeBytes { bytes in
            let layout = SegmentWalker.walk(bytes)
            let segment = try #require(layout.exifSegment(in: bytes))
            let tiff = UnsafeRawBufferPointer(
                rebasing: bytes[
                    (segment.payload.lowerBound + JPEGLayout.exifSignature.count)..<segment.payload.upperBound])
            let block = try #require(TIFFBlock(tiff))
            return Set(try #require(block.entries(ofIFDAt: block.ifd0Offset)).map { Int($0.tag) })
        }
    }
}

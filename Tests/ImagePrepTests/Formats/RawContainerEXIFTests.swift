import Foundation
import Testing

@testable import ImagePrep

/// The EXIF of camera raws that are not plain TIFF: an ORF and an RW2 (TIFF directories behind
/// another version number), a RAF (its JPEG preview's APP1) and a CR3 (its `CMT1`, `CMT2` and
/// `CMT4` boxes), made by `Tests/Fixtures/formats/make-raw-containers.py`. Each one's capture
/// time with its offset, GPS, orientation and camera are read as exiftool reads them
/// (`formats/exiftool-raw.json`), and the upload LibRaw renders carries them.
@Suite("Camera raw containers: ORF, RW2, RAF and CR3 EXIF read and carried as exiftool reads it")
struct RawContainerEXIFTests {
    static let prepared = ["raw-orf-olympus-made.orf", "raw-rw2-panasonic-made.rw2", "raw-raf-fujifilm-made.raf"]
    static let fields: [MetadataReading.Field] = [
        .orientation, .make, .model, .captureLocal, .captureOffset, .latitude, .longitude,
    ]

    static func exiftool(_ name: String) throws -> MetadataReading {
        MetadataReading(exiftool: try #require(MetadataReadTests.readings["formats/" + name], "\(name)"))
    }

    static func expectAgreement(_ metadata: PhotoMetadata, _ name: String, _ what: String) throws {
        let expected = try exiftool(name)
        let ours = MetadataReading(metadata)
        #expect(ours.captureLocal != nil && ours.latitude != nil, "\(name) \(what): \(ours)")
        for field in fields {
            #expect(ours.agrees(field, with: expected), "\(name) \(what) \(field): ours \(ours), exiftool \(expected)")
        }
    }

    @Test("LibRaw renders the raw data, and the photo and its upload have the container's EXIF", arguments: prepared)
    func preparedWithEXIF(name: String) throws {
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data("formats/" + name), name: name)
        #expect(photo.cameraRawPixels == .rawData)
        try Self.expectAgreement(photo.metadata, name, "prepared")
        // The upload keeps the pixels as stored and carries the Orientation, as for a DNG.
        try Self.expectAgreement(PhotoMetadata.read(fromJPEG: photo.upload.data).metadata, name, "upload")
    }

    @Test("a CR3's CMT boxes give its EXIF; LibRaw refuses the made file, which has no CRX data")
    func cr3() throws {
        let name = "raw-cr3-canon-made.cr3"
        let data = try Fixtures.data("formats/" + name)
        let block = try #require(data.withUnsafeBytes { RawEXIF.block(of: $0) })
        var metadata = PhotoMetadata(originalSize: PixelSize(width: 1, height: 1))
        let (segment, warnings) = block.withUnsafeBytes {
            EmbeddedEXIF.read($0, into: &metadata, uploadSize: PixelSize(width: 1, height: 1))
        }
        #expect(segment != nil && warnings.isEmpty, "\(warnings)")
        try Self.expectAgreement(metadata, name, "CMT boxes")
        let error = try #require(throws: ImagePrepError.self) { try PhotoPreparer().prepareBlocking(data, name: name) }
        #expect(error.code == "corrupt_raw", "\(error)")
    }

    @Test("a CR3 whose CMT boxes are damaged or missing gives no EXIF block and no crash")
    func damagedCR3() throws {
        let original = [UInt8](try Fixtures.data("formats/raw-cr3-canon-made.cr3"))
        // CMT1 renamed: no IFD0, so no block; every length byte of the boxes set to 0xFF in turn.
        var renamed = original
        let cmt1 = try #require(original.indices.first { original[$0...].starts(with: Array("CMT1".utf8)) })
        renamed[cmt1 + 3] = UInt8(ascii: "9")
        #expect(renamed.withUnsafeBytes { RawEXIF.block(of: $0) } == nil)
        for offset in 0..<original.count where original[offset...].starts(with: Array("CMT".utf8)) {
            for length in (offset - 4)..<offset {
                var damaged = original
                damaged[length] = 0xFF
                _ = damaged.withUnsafeBytes { RawEXIF.block(of: $0) }
            }
        }
    }
}

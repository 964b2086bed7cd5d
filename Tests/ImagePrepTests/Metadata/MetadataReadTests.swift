import Foundation
import Testing

@testable import ImagePrep

/// `PhotoMetadata.read(from:)` reads every format `PhotoPreparer` prepares, not only JPEG and
/// HEIF: for each format fixture that exiftool has a reading of (the JSON files below, made with
/// `exiftool -j -n -G1:4 -a` and the tag list of `Tests/Fixtures/exiftool-readings.sh`), the
/// metadata it reads is what `prepare` gives for the same bytes, and its capture time with its
/// offset, GPS, orientation and camera are exiftool's.
@Suite("PhotoMetadata.read(from:) reads every format as prepare and exiftool read it")
struct MetadataReadTests {
    /// exiftool's readings, and the folder the files they name are in.
    static let readingFiles = [
        ("formats/png/exiftool.json", "formats/png/"), ("formats/webp-exiftool.json", "formats/"),
        ("formats/exiftool-tiff.json", "formats/"), ("formats/exiftool-raw.json", "formats/"),
        ("formats/exiftool-other.json", "formats/"),
    ]
    static let readings: [String: ExiftoolTags] = {
        var readings: [String: ExiftoolTags] = [:]
        for (file, folder) in readingFiles {
            guard let data = try? Fixtures.data(file),
                let files = try? JSONDecoder().decode(JSONValue.self, from: data).array
            else { continue }
            for case .object(let object) in files {
                if let name = object["SourceFile"]?.string { readings[folder + name] = ExiftoolTags(object) }
            }
        }
        return readings
    }()
    static let paths = readings.keys.sorted()
    /// Files prepare refuses, and this read gives no metadata for: a CR3 LibRaw can open needs
    /// CRX raw data, which no open encoder writes (`RawContainerEXIFTests` reads its EXIF); a
    /// TIFF marked as a DNG without raw data is a raw LibRaw cannot read (`TIFFSourceTests`).
    static let refused: Set = ["formats/raw-cr3-canon-made.cr3", "formats/tiff-dngversion-marked.tif"]
    /// A date that does not exist (second 70), which exiftool prints as it is and ImagePrep takes
    /// for no time, as for a JPEG (docs/metadata.md).
    static let impossibleDates: Set = ["formats/tiff-16bit-rgb-deflate-tiled-pillow.tiff"]
    static let comparedFields: [MetadataReading.Field] = [
        .orientation, .make, .model, .captureLocal, .captureOffset, .latitude, .longitude, .altitude,
    ]

    @Test("every format's fixtures have a reading: PNG, GIF, WebP, TIFF, BMP, JPEG XL, JPEG 2000, PSD, DNG and raws")
    func everyFormat() {
        let extensions = Set(Self.paths.map { URL(fileURLWithPath: $0).pathExtension })
        let expected: Set = [
            "png", "gif", "webp", "tif", "bmp", "jxl", "jp2", "j2k", "psd", "dng", "orf", "rw2", "raf",
        ]
        #expect(expected.isSubset(of: extensions), "\(extensions)")
    }

    @Test(
        "the metadata read is the metadata prepare gives, or none with a warning where prepare refuses",
        arguments: paths)
    func sameAsPrepare(path: String) throws {
        let data = try Fixtures.data(path)
        let (metadata, warnings) = PhotoMetadata.read(from: data)
        do {
            let photo = try PhotoPreparer().prepareBlocking(data, name: path)
            #expect(!Self.refused.contains(path))
            #expect(metadata == photo.metadata, "\(path)")
        } catch {
            #expect(Self.refused.contains(path), "\(path): \(error)")
            #expect(metadata.originalSize.pixelCount == 0)
            #expect(
                warnings.last?.message.hasPrefix("it gives no metadata, since it cannot be read: 'photo' is ") == true)
        }
    }

    @Test("capture time and offset, GPS, orientation and camera agree with exiftool", arguments: paths)
    func agreesWithExiftool(path: String) throws {
        guard !Self.refused.contains(path) else { return }
        let ours = MetadataReading(PhotoMetadata.read(from: try Fixtures.data(path)).metadata)
        var expected = MetadataReading(exiftool: try #require(Self.readings[path]))
        // A JPEG XL codestream always has an orientation field, which turns the upload and is its
        // orientation here; exiftool 12.57 reads only an Exif box's.
        if path.hasSuffix(".jxl"), expected.orientation == nil { expected.orientation = ours.orientation }
        if Self.impossibleDates.contains(path) {
            #expect(expected.captureLocal?.hasSuffix(":70") == true && ours.captureLocal == nil)
            expected.captureLocal = nil
            expected.captureSource = nil
        }
        for field in Self.comparedFields {
            #expect(ours.agrees(field, with: expected), "\(path) \(field): ours \(ours), exiftool \(expected)")
        }
    }

    @Test("formats other than PNG with a time and a place have them read, so the comparison is not idle")
    func notIdle() throws {
        let placed = try Self.paths.filter { path in
            guard !path.hasPrefix("formats/png/"), !Self.refused.contains(path) else { return false }
            return PhotoMetadata.read(from: try Fixtures.data(path)).metadata.location != nil
        }
        let extensions = Set(placed.map { URL(fileURLWithPath: $0).pathExtension })
        #expect(extensions.isSuperset(of: ["webp", "tiff", "dng", "orf", "rw2", "raf"]), "\(placed)")
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Every PNG of `Tests/Fixtures/formats/png` reads as exiftool reads it (the `exiftool.json`
/// beside them, made by `Tests/Fixtures/exiftool-readings.sh formats/png`), field by field: its
/// eXIf chunk, wherever it is, or ImageMagick's raw EXIF text.
@Suite("PNG metadata agrees with exiftool")
struct PNGExiftoolAgreementTests {
    static let readings: [String: ExiftoolTags] = {
        guard let data = try? Fixtures.data("formats/png/exiftool.json"),
            let files = try? JSONDecoder().decode(JSONValue.self, from: data).array
        else { return [:] }
        var readings: [String: ExiftoolTags] = [:]
        for case .object(let object) in files {
            if let name = object["SourceFile"]?.string { readings["formats/png/" + name] = ExiftoolTags(object) }
        }
        return readings
    }()

    @Test("every PNG fixture has exiftool's reading beside it")
    func everyPNGHasAReading() {
        #expect(Set(Self.readings.keys) == Set(Fixtures.PNG.all))
    }

    @Test("every PNG reads as exiftool reads it, field by field", arguments: Fixtures.PNG.all)
    func agrees(path: String) throws {
        let tags = try #require(Self.readings[path])
        var expected = MetadataReading(exiftool: tags)
        // exiftool names a PNG's size PNG:ImageWidth, not File:ImageWidth.
        expected.width = tags["PNG:ImageWidth"]?.int ?? 0
        expected.height = tags["PNG:ImageHeight"]?.int ?? 0
        let ours = MetadataReading(try Fixtures.prepared(path).metadata)
        for field in MetadataReading.Field.allCases {
            #expect(ours.agrees(field, with: expected), "\(path) \(field): ours \(ours), expected \(expected)")
        }
    }

    @Test("the files with a time and a place have them, so the comparison is not idle")
    func notIdle() throws {
        let withPlace = try Fixtures.PNG.all.filter { try Fixtures.prepared($0).metadata.location != nil }
        #expect(withPlace.count >= 3, "\(withPlace)")
    }
}

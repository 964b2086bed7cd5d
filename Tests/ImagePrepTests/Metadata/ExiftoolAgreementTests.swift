import Foundation
import Testing

@testable import ImagePrep

/// A file that we read differently from exiftool on purpose: the README's line for it, and what
/// we read instead. Each one must still change what is expected, so a stale entry fails too.
struct Disagreement: Sendable {
    let why: String
    let adjust: @Sendable (inout MetadataReading) -> Void
}

@Suite("Every fixture agrees with exiftool, field by field")
struct ExiftoolAgreementTests {
    /// Every photo (JPEG, HEIC, AVIF) under Tests/Fixtures, as a path relative to it, except
    /// those inside the outbox stores of `stores/` (files of a store as an older release left it,
    /// not photos whose metadata is read) and the references that `heic/make.sh` writes with
    /// heif-convert.
    static let jpegs: [String] = {
        let root = Fixtures.root.standardizedFileURL.path + "/"
        let walker = FileManager.default.enumerator(atPath: root)
        return ((walker?.allObjects as? [String]) ?? []).filter {
            ($0.hasSuffix(".jpg") || $0.hasSuffix(".heic") || $0.hasSuffix(".avif")) && !$0.hasPrefix("stores/")
                && !$0.hasPrefix("heic/references/")
                // Peers' copies of the other formats' fixtures, which the format tests compare with.
                && !$0.hasPrefix("formats/references")
                // What an attacker makes, not a photo: HEIFHostileInputTests holds each to its refusal.
                && !$0.hasPrefix("heic/hostile/") && !$0.hasPrefix("heic/gainmap/hostile/")
        }.sorted()
    }()

    /// exiftool's readings, by the same relative path.
    static let readings: [String: ExiftoolTags] = {
        var readings: [String: ExiftoolTags] = [:]
        for folder in Set(jpegs.map { ($0 as NSString).deletingLastPathComponent }) {
            guard let data = try? Fixtures.data(folder + "/exiftool.json"),
                let files = try? JSONDecoder().decode(JSONValue.self, from: data).array
            else { continue }
            for case .object(let object) in files {
                guard let name = object["SourceFile"]?.string else { continue }
                readings[folder + "/" + name] = ExiftoolTags(object)
            }
        }
        return readings
    }()

    /// Every difference from exiftool's reading of our fixtures: the README's list of deliberate
    /// differences, one entry for each file that shows one.
    static let disagreements: [String: Disagreement] = [
        // exiftool prints the tag as it is; February 29th 2023 does not exist, so we do not place
        // the photo on a timeline with it and take the next date tag instead.
        "crafted/impossible-date.jpg": Disagreement(why: "a date that does not exist") {
            $0.captureLocal = "2023-02-28T23:59:59"
            $0.captureOffset = "+01:00"
            $0.captureSource = "DateTimeDigitized"
        },
        // exiftool's Composite GPSLatitude signs anything that is not /^S/i as north. A reference
        // of "X" says nothing about the hemisphere, and a wrong sign puts the photo on another
        // continent, so we give no location.
        "crafted/gps-latitude-ref-invalid.jpg": Disagreement(why: "a hemisphere that is neither N nor S") {
            $0.noLocation()
        },
        // exiftool prints 95 degrees north and 190 east, which are not places on Earth.
        "crafted/gps-latitude-out-of-range.jpg": Disagreement(why: "a latitude over 90°") { $0.noLocation() },
        "crafted/gps-longitude-out-of-range.jpg": Disagreement(why: "a longitude over 180°") { $0.noLocation() },
        // EXIF's coordinates are unsigned (the sign is the Ref's); exiftool reads -36° 27' as
        // 35.55 N.
        "crafted/gps-latitude-negative.jpg": Disagreement(why: "a negative coordinate") { $0.noLocation() },
        // exiftool's Composite GPSAltitude negates any reference but 0; EXIF 2.3 defines 0 and 1.
        "crafted/gps-altitude-ref-2.jpg": Disagreement(why: "a GPSAltitudeRef other than 0 or 1") {
            $0.altitude = nil
        },
        // exiftool pulls the numbers out of the text and misreads the decimal commas.
        "crafted/gps-coordinates-text-comma-decimals.jpg": Disagreement(why: "a coordinate stored as text") {
            $0.noLocation()
        },
        // exiftool reads "6" as 6; a tag in a type that is not its own is not trusted.
        "crafted/orientation-text.jpg": Disagreement(why: "an Orientation stored as text") { $0.orientation = nil },
        // We read EXIF and the COM segments only.
        "crafted/gps-altitude-in-xmp.jpg": Disagreement(why: "an altitude from XMP") { $0.altitude = nil },
        "crafted/comment-app10-photostudio.jpg": Disagreement(why: "a comment from APP10") { $0.comment = nil },
        // PhotoMetadata holds an altitude only as part of a position.
        "crafted/gps-altitude-without-position.jpg": Disagreement(why: "an altitude without a position") {
            $0.altitude = nil
        },
        // An iPhone photo resized by macOS Preview, which kept the GPS altitude and references and
        // dropped the coordinates.
        "phones/iphone-jpeg-apple-gainmap-v1.jpg": Disagreement(why: "an altitude without a position") {
            $0.altitude = nil
        },
        "crafted/iphone-jpeg-apple-gainmap-v2.jpg": Disagreement(why: "an altitude without a position") {
            $0.altitude = nil
        },
        // exiftool's SubSecDateTimeOriginal appends OffsetTimeOriginal after the Z ("Z+02:00").
        "crafted/datetimeoriginal-utc-z-and-offset-tag.jpg": Disagreement(why: "a Z and an OffsetTime tag") {
            $0.captureOffset = "+00:00"
        },
        // exiftool prints any number; EXIF defines 1–8, and PhotoMetadata.orientation is an
        // Orientation, so anything else is absent (the photo is shown as stored), with a warning.
        "crafted/orientation-invalid.jpg": Disagreement(why: "an Orientation outside 1–8") { $0.orientation = nil },
        // exiftool's JSON turns each byte that is not UTF-8 into "?"; the comment is Latin-1, so
        // the 0xE9 is "é" (our documented fallback), and no character is lost.
        "crafted/comment-latin1-nul.jpg": Disagreement(why: "a Latin-1 comment") {
            $0.comment = "Café au lait\nsecond line"
        },
        // libheif 1.15 refuses an Exif item whose cdsc names the photo twice; the bytes the
        // rewritten reference frees are too few for a free box and the file has no thumbnail
        // reference to drop, so the reference is hidden and libheif gives no Exif item.
        "heic/gainmap/cdsc-primary-twice.heic": Disagreement(why: "an Exif item linked to the photo twice") {
            let size = ($0.width, $0.height)
            $0 = MetadataReading(PhotoMetadata(originalSize: PixelSize(width: size.0, height: size.1)))
        },
    ]

    /// The files whose reading must give warnings; every other one must give none.
    static let filesWithWarnings: Set<String> = [
        "corpus/corrupt-exif-ifd1-offsets.jpg", "corpus/corrupt-exif-malformed-app1.jpg", "corpus/corrupt-header.jpg",
        "corpus/gps-north-west-display-p3-nikon.jpg",  // GPSAltitude without GPSAltitudeRef
        "crafted/impossible-date.jpg", "crafted/gps-latitude-ref-invalid.jpg",
        "crafted/gps-latitude-out-of-range.jpg", "crafted/gps-longitude-out-of-range.jpg",
        "crafted/gps-latitude-negative.jpg", "crafted/gps-altitude-ref-2.jpg", "crafted/orientation-invalid.jpg",
        "crafted/orientation-text.jpg",
        "crafted/gps-missing-latitude-ref.jpg", "crafted/gps-zero-denominator.jpg",
        "crafted/gps-altitude-zero-denominator.jpg", "crafted/gps-coordinates-text-comma-decimals.jpg",
        "crafted/datetimeoriginal-own-parts-win.jpg", "crafted/datetimeoriginal-utc-z-and-offset-tag.jpg",
        "crafted/ifd0-bad-thumbnail-length.jpg", "crafted/exif-pointer-ascii.jpg",
        "crafted/marker-walk-stops-at-bad-length.jpg", "decode/empty.jpg",
        // HEIF: what cannot be read (a loop of images, no primary image, an Exif offset past its
        // end, a file cut after its ftyp), an Exif Orientation that is not the file's own turn.
        "heic/bad-identity-loop.heic", "heic/bad-no-primary-item.heic", "heic/exif-offset-past-end.heic",
        "decode/not-a-jpeg-heic.heic", "heic/exif-orientation-6-without-irot.heic", "heic/exif-larger-than-app1.heic",
        "heic/display-p3-gps.heic",  // GPSAltitude without GPSAltitudeRef, as its JPEG
        // libexif reads 64 KB of a block: the 185 KB one's IFD1 thumbnail runs past that.
        "heic/exif-185k-with-thumbnail.heic",
        // Its EXIF (an iPhone 5 JPEG's) says Orientation 3, which the HEIF file's own turn does not.
        "peers/iphone8-like-ispe-100x74-coded-100x76.heic",
    ]

    static func ours(_ path: String) throws -> (reading: MetadataReading, warnings: [PhotoWarning]) {
        let (metadata, warnings) = PhotoMetadata.read(from: try Fixtures.data(path))
        return (MetadataReading(metadata), warnings)
    }

    /// exiftool's reading, and the same with our documented difference applied, if any.
    static func expected(_ path: String) throws -> (exiftool: MetadataReading, expected: MetadataReading) {
        let exiftool = MetadataReading(exiftool: try #require(readings[path], "no exiftool reading of \(path)"))
        var expected = exiftool
        disagreements[path]?.adjust(&expected)
        return (exiftool, expected)
    }

    @Test("every JPEG in Tests/Fixtures reads as exiftool reads it, field by field", arguments: jpegs)
    func agreesWithExiftool(path: String) throws {
        let (ours, warnings) = try Self.ours(path)
        let (exiftool, expected) = try Self.expected(path)
        for field in MetadataReading.Field.allCases {
            #expect(ours.agrees(field, with: expected), "\(path) \(field): ours \(ours), expected \(expected)")
        }
        if let disagreement = Self.disagreements[path] {
            #expect(expected != exiftool, "stale disagreement for \(path): \(disagreement.why)")
        }
        #expect(warnings.isEmpty != Self.filesWithWarnings.contains(path), "\(path): \(warnings)")
    }

    @Test("every JPEG in Tests/Fixtures has exiftool's reading beside it, and nothing else does")
    func everyJPEGHasAReading() {
        #expect(Self.jpegs.count > 100)
        #expect(Set(Self.readings.keys) == Set(Self.jpegs))
        #expect(Set(Self.disagreements.keys).isSubset(of: Set(Self.jpegs)))
        #expect(Self.filesWithWarnings.isSubset(of: Set(Self.jpegs)))
    }

    /// The figures for the README and the closing note: over every fixture, how often
    /// each field agrees with exiftool before and after the documented differences.
    @Test("per field, every fixture agrees once the documented differences are applied")
    func perFieldAgreement() throws {
        var table = ["field          compared  agree raw  agree documented  either has a value"]
        for field in MetadataReading.Field.allCases {
            var raw = 0
            var documented = 0
            var withValue = 0
            for path in Self.jpegs {
                let ours = try Self.ours(path).reading
                let (exiftool, expected) = try Self.expected(path)
                raw += ours.agrees(field, with: exiftool) ? 1 : 0
                documented += ours.agrees(field, with: expected) ? 1 : 0
                withValue += ours.hasValue(field, or: exiftool) ? 1 : 0
            }
            table.append(
                field.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)
                    + "\(Self.jpegs.count)".padding(toLength: 10, withPad: " ", startingAt: 0)
                    + "\(raw)".padding(toLength: 11, withPad: " ", startingAt: 0)
                    + "\(documented)".padding(toLength: 18, withPad: " ", startingAt: 0) + "\(withValue)")
            #expect(documented == Self.jpegs.count, "\(field)")
        }
        print(table.joined(separator: "\n"))
    }

    @Test("reading many photos at once gives what reading them one at a time gives")
    func concurrentReads() async throws {
        let oneAtATime = try Self.jpegs.map { try Self.ours($0).reading }
        let atOnce = try await withThrowingTaskGroup(of: (Int, MetadataReading).self) { group in
            for (index, path) in Self.jpegs.enumerated() {
                group.addTask { (index, try Self.ours(path).reading) }
            }
            var results = [MetadataReading?](repeating: nil, count: Self.jpegs.count)
            for try await (index, reading) in group { results[index] = reading }
            return results
        }
        #expect(atOnce == oneAtATime)
    }
}

extension MetadataReading {
    mutating func noLocation() {
        latitude = nil
        longitude = nil
        altitude = nil
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// exiftool's reading of one file: an object of the `exiftool.json` beside it, which
/// `Tests/Fixtures/exiftool-readings.sh` makes with `exiftool -j -n -G1:4 -a` and a fixed tag list.
struct ExiftoolTags {
    /// "IFD0:Orientation" → the value; of the copies of one tag in one group (`-G1:4` names the
    /// second "IFD0:Copy1:Orientation"), the first one found.
    private var values: [String: (copy: Int, value: JSONValue)] = [:]

    init(_ object: [String: JSONValue]) {
        for (key, value) in object {
            let parts = key.split(separator: ":")
            guard parts.count >= 2 else { continue }
            let copy = parts.count == 3 ? Int(parts[1].dropFirst("Copy".count)) ?? 0 : 0
            let name = "\(parts[0]):\(parts[parts.count - 1])"
            if let existing = values[name], existing.copy < copy { continue }
            values[name] = (copy, value)
        }
    }

    subscript(_ name: String) -> JSONValue? { values[name]?.value }

    /// A text value; exiftool's JSON prints text that looks like a number as a number.
    func text(_ name: String) -> String? {
        switch self[name] {
        case .string(let text)?: text
        case .number(let number)?: number == number.rounded() ? String(Int(number)) : String(number)
        default: nil
        }
    }
}

/// The fields of `PhotoMetadata`, in a form that exiftool's reading can be put in too.
struct MetadataReading: Equatable, CustomStringConvertible {
    enum Field: String, CaseIterable {
        case width, height, orientation, make, model, comment
        case captureLocal, captureOffset, captureSource
        case latitude, longitude, altitude
    }

    var width = 0
    var height = 0
    var orientation: Int?
    var make: String?
    var model: String?
    var comment: String?
    /// ISO 8601 without the offset, fraction included: "2018-06-26T17:46:33.847".
    var captureLocal: String?
    /// `±HH:MM`.
    var captureOffset: String?
    /// `CaptureTime.Source`'s raw value: "DateTimeOriginal", "IFD0:DateTimeOriginal", ...
    var captureSource: String?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?

    init(_ metadata: PhotoMetadata) {
        width = metadata.originalSize.width
        height = metadata.originalSize.height
        orientation = metadata.orientation?.rawValue
        make = metadata.cameraMake
        model = metadata.cameraModel
        comment = metadata.comment
        captureLocal = metadata.captureTime?.local.iso8601
        captureOffset = metadata.captureTime?.utcOffset?.description
        captureSource = metadata.captureTime?.source.rawValue
        latitude = metadata.location?.latitude
        longitude = metadata.location?.longitude
        altitude = metadata.location?.altitude
    }

    /// What exiftool reads, in PhotoMetadata's terms: IFD0's Orientation, Make and Model, the
    /// first COM's text (File:Comment), the frame size (File:ImageWidth), exiftool's own signed
    /// Composite GPS position, and the capture time below.
    init(exiftool tags: ExiftoolTags) {
        width = tags["File:ImageWidth"]?.int ?? 0
        height = tags["File:ImageHeight"]?.int ?? 0
        orientation = tags["IFD0:Orientation"]?.number.flatMap { $0 == $0.rounded() ? Int($0) : nil }
        make = tags.text("IFD0:Make")
        model = tags.text("IFD0:Model")
        comment = tags.text("File:Comment")
        // exiftool prints "" for a coordinate with a zero denominator: no number, no position.
        if let latitude = tags["Composite:GPSLatitude"]?.number, let longitude = tags["Composite:GPSLongitude"]?.number
        {
            self.latitude = latitude
            self.longitude = longitude
        }
        altitude = tags["Composite:GPSAltitude"]?.number
        readCaptureTime(tags)
    }

    /// The first date tag with a real date in it, in PhotoMetadata's order (DateTimeOriginal,
    /// then CreateDate, each from the Exif IFD and then IFD0, then ModifyDate), as exiftool's
    /// Composite SubSec… tag combines it with its SubSecTime and OffsetTime tags (exiftool
    /// makes one only when there is something to add); then, without an offset, the one
    /// inferred from exiftool's GPSDateStamp and GPSTimeStamp (README: deliberate differences).
    private mutating func readCaptureTime(_ tags: ExiftoolTags) {
        let chain = [
            ("ExifIFD:DateTimeOriginal", "Composite:SubSecDateTimeOriginal", "DateTimeOriginal"),
            ("IFD0:DateTimeOriginal", "Composite:SubSecDateTimeOriginal", "IFD0:DateTimeOriginal"),
            ("ExifIFD:CreateDate", "Composite:SubSecCreateDate", "DateTimeDigitized"),
            ("IFD0:CreateDate", "Composite:SubSecCreateDate", "IFD0:DateTimeDigitized"),
            ("IFD0:ModifyDate", "Composite:SubSecModifyDate", "DateTime"),
        ]
        // exiftool prints EXIF's "unknown" placeholders (zeros, blanks) as they are.
        guard
            let (tag, composite, source) = chain.first(where: {
                tags.text($0.0)?.contains(where: { ("1"..."9").contains($0) }) == true
            }), let raw = tags.text(tag)
        else { return }
        guard let (local, offset) = Self.iso8601Parts(tags.text(composite) ?? raw) else {
            captureLocal = raw  // not a date: cannot agree
            return
        }
        captureLocal = local
        captureSource = source
        captureOffset = offset ?? Self.offsetFromGPS(local: local, tags)
    }

    /// A date as exiftool prints it, `YYYY:MM:DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS` and whatever
    /// follows, cut into ISO 8601's local part (with the fraction) and its zone; `Z` is +00:00.
    /// A zone that is neither is kept as it is, so that it can only disagree.
    static func iso8601Parts(_ text: String) -> (local: String, offset: String?)? {
        let characters = Array(text)
        guard characters.count >= 19 else { return nil }
        let date = String(characters[0..<10]).replacingOccurrences(of: ":", with: "-")
        var local = date + "T" + String(characters[11..<19])
        var rest = characters[19...]
        if rest.first == "." {
            let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }
            local += "." + String(digits)
            rest = rest.dropFirst(1 + digits.count)
        }
        var zone = String(rest)
        if zone == "Z" { zone = "+00:00" }
        if zone.count == 5, zone.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
            zone = zone.prefix(3) + ":" + zone.suffix(2)
        }
        return (local, zone.isEmpty ? nil : zone)
    }

    /// The local time minus exiftool's GPSDateStamp and GPSTimeStamp (UTC), rounded to 15
    /// minutes; nil without both, or outside -12:00…+14:00.
    static func offsetFromGPS(local: String, _ tags: ExiftoolTags) -> String? {
        guard let date = tags.text("GPS:GPSDateStamp"), let time = tags.text("GPS:GPSTimeStamp"),
            let localSeconds = secondsSince1970(String(local.prefix(19))),
            let gpsSeconds = secondsSince1970(date.replacingOccurrences(of: ":", with: "-") + "T" + time)
        else { return nil }
        let minutes = Int(((localSeconds - gpsSeconds) / 900).rounded()) * 15
        guard (-720...840).contains(minutes) else { return nil }
        return UTCOffset(minutes: minutes).description
    }

    static func secondsSince1970(_ iso8601: String) -> Double? {
        let parts = iso8601.split(whereSeparator: { "-T:".contains($0) }).compactMap { Double($0) }
        guard parts.count == 6 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: Int(parts[0]), month: Int(parts[1]), day: Int(parts[2]), hour: Int(parts[3]), minute: Int(parts[4]))
        return calendar.date(from: components).map { $0.timeIntervalSince1970 + parts[5] }
    }

    /// Equal, with GPS within 1e-6 degrees and altitude within 0.01 m (exiftool prints 15 digits).
    func agrees(_ field: Field, with other: MetadataReading) -> Bool {
        func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= tolerance
            default: false
            }
        }
        switch field {
        case .width: return width == other.width
        case .height: return height == other.height
        case .orientation: return orientation == other.orientation
        case .make: return make == other.make
        case .model: return model == other.model
        case .comment: return comment == other.comment
        case .captureLocal: return captureLocal == other.captureLocal
        case .captureOffset: return captureOffset == other.captureOffset
        case .captureSource: return captureSource == other.captureSource
        case .latitude: return close(latitude, other.latitude, 1e-6)
        case .longitude: return close(longitude, other.longitude, 1e-6)
        case .altitude: return close(altitude, other.altitude, 0.01)
        }
    }

    /// Whether either side has a value: a field that both leave out agrees trivially.
    func hasValue(_ field: Field, or other: MetadataReading) -> Bool {
        func value(_ reading: MetadataReading) -> Any? {
            switch field {
            case .width: reading.width == 0 ? nil : reading.width
            case .height: reading.height == 0 ? nil : reading.height
            case .orientation: reading.orientation
            case .make: reading.make
            case .model: reading.model
            case .comment: reading.comment
            case .captureLocal: reading.captureLocal
            case .captureOffset: reading.captureOffset
            case .captureSource: reading.captureSource
            case .latitude: reading.latitude
            case .longitude: reading.longitude
            case .altitude: reading.altitude
            }
        }
        return value(self) != nil || value(other) != nil
    }

    var description: String {
        Field.allCases.map { field in
            let mirror = Mirror(reflecting: self).children.first { $0.label == field.rawValue }
            return "\(field.rawValue)=\(mirror.map { String(describing: $0.value) } ?? "?")"
        }.joined(separator: " ")
    }
}

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

import Foundation
import Testing

@testable import ImagePrep

/// What exiftool reads from a file (`corpus/expected.json` or `crafted/expected.json`, which use
/// the same field names), put in the shape of `PhotoMetadata`.
struct ExiftoolReading: Equatable, Sendable {
    struct Capture: Equatable, Sendable {
        var iso8601: String
        var source: CaptureTime.Source
        var offsetSource: CaptureTime.OffsetSource?
    }

    struct Location: Equatable, Sendable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    var captureTime: Capture?
    var location: Location?
    var orientation: Int?
    var comment: String?
    var make: String?
    var model: String?
    var size: PixelSize

    init(_ file: JSONValue) {
        // EXIF's fallback chain, each date with its own sub-second and offset tags (exiftool names
        // DateTimeDigitized "CreateDate" and DateTime "ModifyDate").
        let chain: [(date: String, subSecond: String, offset: String, CaptureTime.Source, CaptureTime.OffsetSource)] = [
            ("DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal", .dateTimeOriginal, .offsetTimeOriginal),
            ("CreateDate", "SubSecTimeDigitized", "OffsetTimeDigitized", .dateTimeDigitized, .offsetTimeDigitized),
            ("ModifyDate", "SubSecTime", "OffsetTime", .dateTime, .offsetTime),
        ]
        for (dateKey, subSecondKey, offsetKey, source, offsetSource) in chain {
            // exiftool prints EXIF's "unknown" placeholders (zeros, blanks) as they are.
            guard let date = file[dateKey]?.string, date.contains(where: { ("1"..."9").contains($0) }) else { continue }
            var iso8601 = date.replacingOccurrences(of: " ", with: "T")
            iso8601 = String(iso8601.prefix(10)).replacingOccurrences(of: ":", with: "-") + iso8601.dropFirst(10)
            if let subSecond = file[subSecondKey]?.string { iso8601 += "." + subSecond }
            var capture = Capture(iso8601: iso8601, source: source, offsetSource: nil)
            if let offset = file[offsetKey]?.string {
                capture.iso8601 += offset
                capture.offsetSource = offsetSource
            } else if let inferred = file["inferred_offset_from_gps"]?.string {
                // The corpus's own hint: DateTimeOriginal minus GPSDateStamp+GPSTimeStamp, rounded
                // to 15 minutes. Its `inferred_offset_from_gps_time_only` (no GPSDateStamp) is not
                // used: a clock time without its date cannot place a photo taken near midnight.
                capture.iso8601 += inferred
                capture.offsetSource = .gpsDateTime
            }
            captureTime = capture
            break
        }
        // Composite GPSLatitude/GPSLongitude/GPSAltitude: signed, and null without a Ref. For a
        // zero denominator exiftool prints "" (not a number), which is no coordinate either.
        if let latitude = file["GPSLatitude"]?.number, let longitude = file["GPSLongitude"]?.number {
            location = Location(latitude: latitude, longitude: longitude, altitude: file["GPSAltitude"]?.number)
        }
        orientation = file["orientation"]?.int
        comment = file["Comment"]?.string
        make = file["Make"]?.string
        model = file["Model"]?.string
        size = PixelSize(width: file["width"]?.int ?? 0, height: file["height"]?.int ?? 0)
    }

    init(_ metadata: PhotoMetadata) {
        captureTime = metadata.captureTime.map {
            Capture(iso8601: $0.iso8601, source: $0.source, offsetSource: $0.offsetSource)
        }
        location = metadata.location.map {
            Location(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude)
        }
        orientation = metadata.orientation?.rawValue
        comment = metadata.comment
        make = metadata.cameraMake
        model = metadata.cameraModel
        size = metadata.originalSize
    }

    /// Equal, with GPS within 1e-6 degrees and altitude within 0.01 m (exiftool prints 15 digits).
    func agrees(with other: ExiftoolReading) -> Bool {
        func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let a?, let b?): abs(a - b) <= tolerance
            default: false
            }
        }
        var rest = self
        var otherRest = other
        rest.location = nil
        otherRest.location = nil
        guard rest == otherRest, (location == nil) == (other.location == nil) else { return false }
        guard let location, let otherLocation = other.location else { return true }
        return close(location.latitude, otherLocation.latitude, 1e-6)
            && close(location.longitude, otherLocation.longitude, 1e-6)
            && close(location.altitude, otherLocation.altitude, 0.01)
    }
}

/// A file that we read differently from exiftool on purpose: what we expect instead, and why.
struct Disagreement: Sendable {
    let why: String
    let adjust: @Sendable (inout ExiftoolReading) -> Void
}

@Suite("EXIF metadata agrees with exiftool")
struct EXIFReaderTests {
    static func read(_ relativePath: String) throws -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        PhotoMetadata.read(fromJPEG: try Fixtures.data(relativePath))
    }

    /// Every difference from exiftool's reading of our fixtures. Each one must still change what
    /// is expected, so a stale entry fails too.
    static let disagreements: [String: Disagreement] = [
        // exiftool prints the tag as it is; February 29th 2023 does not exist, so we do not place
        // the photo on a timeline with it and take the next date tag instead.
        "impossible-date.jpg": Disagreement(why: "DateTimeOriginal names a day that does not exist") {
            $0.captureTime = .init(
                iso8601: "2023-02-28T23:59:59+01:00", source: .dateTimeDigitized, offsetSource: .offsetTimeDigitized)
        },
        // exiftool's Composite GPSLatitude signs anything that is not /^S/i as north. A reference
        // of "X" says nothing about the hemisphere, and a wrong sign puts the photo on another
        // continent, so we give no location.
        "gps-latitude-ref-invalid.jpg": Disagreement(why: "GPSLatitudeRef is neither N nor S") { $0.location = nil },
        // exiftool prints 95 degrees north, which is not a place on Earth.
        "gps-latitude-out-of-range.jpg": Disagreement(why: "GPSLatitude is more than 90 degrees") { $0.location = nil },
        // exiftool prints any number; EXIF defines 1–8, and PhotoMetadata.orientation is an
        // Orientation, so anything else is absent (the photo is shown as stored), with a warning.
        "orientation-invalid.jpg": Disagreement(why: "Orientation 9 is not one of 1–8") { $0.orientation = nil },
        // exiftool's JSON turns each byte that is not UTF-8 into "?"; the comment is Latin-1, so
        // the 0xE9 is "é" (our documented fallback), and no character is lost.
        "comment-latin1-nul.jpg": Disagreement(why: "exiftool's JSON replaces Latin-1 bytes with '?'") {
            $0.comment = "Café au lait\nsecond line"
        },
    ]

    /// The files whose reading must give warnings; every other file must give none.
    static let filesWithWarnings: Set<String> = [
        "corrupt-exif-ifd1-offsets.jpg", "corrupt-exif-malformed-app1.jpg", "corrupt-header.jpg", "not-a-jpeg.png",
        "gps-north-west-display-p3-nikon.jpg",  // GPSAltitude without GPSAltitudeRef
        "impossible-date.jpg", "gps-latitude-ref-invalid.jpg", "gps-latitude-out-of-range.jpg",
        "orientation-invalid.jpg", "gps-missing-latitude-ref.jpg", "gps-zero-denominator.jpg",
        "gps-altitude-zero-denominator.jpg",
    ]

    func check(_ name: String, in folder: String, expected file: JSONValue) throws {
        let (metadata, warnings) = try Self.read(folder + "/" + name)
        var expected = ExiftoolReading(file)
        if let disagreement = Self.disagreements[name] {
            let exiftool = expected
            disagreement.adjust(&expected)
            #expect(expected != exiftool, "stale disagreement for \(name): \(disagreement.why)")
        }
        let ours = ExiftoolReading(metadata)
        #expect(ours.agrees(with: expected), "\(name): ours \(ours), expected \(expected)")
        #expect(warnings.isEmpty != Self.filesWithWarnings.contains(name), "\(name): \(warnings)")
    }

    @Test("every corpus file reads as exiftool reads it", arguments: Fixtures.corpusNames)
    func corpusFile(name: String) throws {
        try check(name, in: "corpus", expected: try #require(ExpectedValues.file(name)))
    }

    static let crafted: [String: JSONValue] = {
        let root = try! JSONDecoder().decode(JSONValue.self, from: try! Fixtures.data("crafted/expected.json"))
        guard case .object(let files)? = root["files"] else { fatalError("crafted/expected.json has no 'files'") }
        return files
    }()

    @Test("every crafted file reads as exiftool reads it", arguments: crafted.keys.sorted())
    func craftedFile(name: String) throws {
        try check(name, in: "crafted", expected: try #require(Self.crafted[name]))
    }

    @Test("reading many photos at once gives what reading them one at a time gives")
    func concurrentReads() async throws {
        let names = Fixtures.corpusNames.map { "corpus/" + $0 } + Self.crafted.keys.map { "crafted/" + $0 }
        let oneAtATime = try names.map { try Self.read($0).metadata }
        let atOnce = try await withThrowingTaskGroup(of: (Int, PhotoMetadata).self) { group in
            for (index, name) in names.enumerated() {
                group.addTask { (index, try Self.read(name).metadata) }
            }
            var results = [PhotoMetadata?](repeating: nil, count: names.count)
            for try await (index, metadata) in group { results[index] = metadata }
            return results
        }
        #expect(atOnce == oneAtATime)
    }

    @Test("the crafted files are all there and all checked")
    func craftedFilesAreListed() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("crafted").path)
        #expect(Set(names.filter { $0.hasSuffix(".jpg") }) == Set(Self.crafted.keys))
        #expect(Set(Self.disagreements.keys).isSubset(of: Set(Self.crafted.keys).union(Fixtures.corpusNames)))
    }
}

@Suite("Capture time")
struct CaptureTimeTests {
    @Test(
        "an offset that is not a whole hour is kept to the minute, with its sub-seconds",
        arguments: [
            ("offset-plus0545-subsec.jpg", 345, "2024-11-02T06:15:30.25+05:45", 1_730_507_430.25),  // 00:30:30.25Z
            ("offset-minus0330.jpg", -210, "2024-01-20T23:45:00-03:30", 1_705_806_900),  // 2024-01-21 03:15:00Z
        ])
    func offsets(name: String, minutes: Int, iso8601: String, secondsSince1970: Double) throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/" + name)
        let capture = try #require(metadata.captureTime)
        #expect(capture.utcOffset == UTCOffset(minutes: minutes))
        #expect(capture.iso8601 == iso8601)
        #expect(capture.source == .dateTimeOriginal)
        // offset-minus0330.jpg also has DateTime with OffsetTime +00:00: never borrowed.
        #expect(capture.offsetSource == .offsetTimeOriginal)
        #expect(!capture.isOffsetInferred)
        let instant = try #require(capture.instant)
        #expect(abs(instant.timeIntervalSince1970 - secondsSince1970) < 0.001)
        #expect(warnings.isEmpty)
    }

    @Test("sub-second digits are kept exactly, leading zeros included")
    func subSecondDigits() throws {
        let capture = try #require(
            try EXIFReaderTests.read("crafted/subsec-digitized-fallback.jpg").metadata.captureTime)
        #expect(capture.local.fractionDigits == "007")
        #expect(capture.source == .dateTimeDigitized)
        #expect(capture.offsetSource == .offsetTimeDigitized)
        #expect(capture.iso8601 == "2020-02-29T12:00:00.007+09:00")
        let samsung = try #require(
            try EXIFReaderTests.read("corpus/phone-orientation6-samsung-j3.jpg").metadata.captureTime)
        #expect(samsung.local.fractionDigits == "0532")
    }

    @Test("DateTime is the last fallback, with its own SubSecTime and OffsetTime")
    func dateTimeFallback() throws {
        let capture = try #require(try EXIFReaderTests.read("crafted/datetime-fallback.jpg").metadata.captureTime)
        #expect(capture.source == .dateTime)
        #expect(capture.offsetSource == .offsetTime)
        #expect(capture.iso8601 == "2021-06-01T08:00:00.5-07:00")
    }

    @Test("with no offset tag, the offset is inferred from the GPS clock and marked so")
    func inferredOffset() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/offset-inferred-from-gps.jpg")
        let capture = try #require(metadata.captureTime)
        // Local 01:52:10 on the 16th, GPS 20:05:03 UTC on the 15th: +5:47:07, rounded to +05:45.
        #expect(capture.utcOffset == UTCOffset(minutes: 345))
        #expect(capture.offsetSource == .gpsDateTime)
        #expect(capture.isOffsetInferred)
        #expect(capture.iso8601 == "2023-03-16T01:52:10+05:45")
        #expect(warnings.isEmpty)
    }

    @Test("a local time without an offset has no instant")
    func localTimeOnly() throws {
        let capture = try #require(
            try EXIFReaderTests.read("corpus/exif-little-endian-canon-40d.jpg").metadata.captureTime)
        #expect(capture.utcOffset == nil)
        #expect(capture.offsetSource == nil)
        #expect(capture.instant == nil)
        #expect(capture.iso8601 == "2008-05-30T15:56:01.00")
    }

    @Test("a GPS time without a GPS date infers nothing")
    func gpsTimeWithoutDate() throws {
        // The iPhone 5 has GPSTimeStamp but no GPSDateStamp.
        let capture = try #require(
            try EXIFReaderTests.read("corpus/gps-north-west-iphone5-orientation3.jpg").metadata.captureTime)
        #expect(capture.utcOffset == nil)
    }

    @Test("zero and blank dates give no capture time and no warning, even with an offset tag")
    func zeroDate() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/zero-date.jpg")
        #expect(metadata.captureTime == nil)
        #expect(warnings.isEmpty)
    }

    @Test("an impossible date warns, quoting it, and the next tag is used")
    func impossibleDate() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/impossible-date.jpg")
        #expect(metadata.captureTime?.source == .dateTimeDigitized)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "DateTimeOriginal '2023:02:29 12:00:00' names a date or time that does not exist, so it is ignored."
                )
            ])
    }

    @Test(
        "EXIF date text",
        arguments: [
            ("2024:02:29 23:59:59", "2024-02-29T23:59:59"),
            ("0000:00:00 00:00:00", "unknown"),
            ("    :  :     :  :  ", "unknown"),
            ("2023:02:29 12:00:00", "invalid"),
            ("2024:13:01 00:00:00", "invalid"),
            ("2024:01:01 24:00:00", "invalid"),
            ("2024:01:01 12:60:00", "invalid"),
            ("2024-01-01 12:00:00", "invalid"),
            ("2024:01:01T12:00:00", "invalid"),
            ("2024:01:01", "invalid"),
            ("1900:02:29 00:00:00", "invalid"),
            ("2000:02:29 00:00:00", "2000-02-29T00:00:00"),
        ])
    func dateText(text: String, expected: String) {
        #expect(Self.describe(LocalDateTime.reading(exif: text)) { $0.iso8601 } == expected)
    }

    @Test(
        "EXIF offset text",
        arguments: [
            ("+05:45", "345"), ("-03:30", "-210"), ("+00:00", "0"), ("-12:00", "-720"), ("+14:00", "840"),
            ("   :  ", "unknown"), ("+14:15", "invalid"), ("-12:30", "invalid"), ("05:45", "invalid"),
            ("+5:45", "invalid"), ("+05:60", "invalid"), ("Z", "invalid"),
        ])
    func offsetText(text: String, expected: String) {
        #expect(Self.describe(UTCOffset.reading(exif: text)) { String($0.minutes) } == expected)
    }

    /// (local time, GPS seconds after midnight of 2023-10-06 UTC, the offset in minutes or nil)
    static let inferenceCases: [(String, Double, Int?)] = [
        ("2023:10:06 22:53:51", 75130, 120),  // the Pixel 8 Pro's clocks: 7301 s apart
        ("2023:10:06 11:12:31", 29552, 180),  // the Nokia's: 10799 s apart
        ("2023:10:06 12:07:29", 43200, 0),  // 7 min 29 s rounds down
        ("2023:10:06 12:07:30", 43200, 15),  // 7 min 30 s rounds up
        ("2023:10:06 00:00:00", 43200, -720),
        ("2023:10:07 02:00:00", 43200, 840),
        ("2023:10:05 23:00:00", 43200, nil),  // -13:00
        ("2023:10:07 03:00:00", 43200, nil),  // +15:00
        ("2023:10:09 12:00:00", 43200, nil),  // a stale fix, days away
    ]

    @Test(
        "the inferred offset is local minus GPS UTC, rounded to 15 minutes, within -12:00…+14:00",
        arguments: inferenceCases)
    func inference(local: String, gpsSeconds: Double, minutes: Int?) throws {
        guard case .value(let localTime) = LocalDateTime.reading(exif: local) else {
            Issue.record("not a date: \(local)")
            return
        }
        let clock = GPSClock(
            date: LocalDateTime(year: 2023, month: 10, day: 6, hour: 0, minute: 0, second: 0),
            secondsSinceMidnight: gpsSeconds)
        #expect(UTCOffset(local: localTime, gpsClock: clock)?.minutes == minutes)
    }

    @Test("a GPS clock is read only from a real date and a time of day with non-zero denominators")
    func gpsClock() {
        func rationals(_ values: [(Int64, Int64)]) -> [EXIFRational] {
            values.map { EXIFRational(numerator: $0.0, denominator: $0.1) }
        }
        let time = rationals([(20, 1), (5, 1), (303, 100)])
        #expect(
            Self.describe(GPSClock.reading(dateStamp: "2023:03:15", timeStamp: time)) {
                "\($0.date.iso8601) \($0.secondsSinceMidnight)"
            } == "2023-03-15T00:00:00 72303.03")
        #expect(Self.describe(GPSClock.reading(dateStamp: nil, timeStamp: time)) { _ in "" } == "unknown")
        #expect(Self.describe(GPSClock.reading(dateStamp: "0000:00:00", timeStamp: time)) { _ in "" } == "unknown")
        #expect(Self.describe(GPSClock.reading(dateStamp: "2023:02:29", timeStamp: time)) { _ in "" } == "invalid")
        let zeroDenominator = rationals([(20, 1), (5, 0), (3, 1)])
        #expect(
            Self.describe(GPSClock.reading(dateStamp: "2023:03:15", timeStamp: zeroDenominator)) { _ in "" }
                == "invalid")
        let hour24 = rationals([(24, 1), (0, 1), (0, 1)])
        #expect(Self.describe(GPSClock.reading(dateStamp: "2023:03:15", timeStamp: hour24)) { _ in "" } == "invalid")
    }

    static func describe<Value>(_ reading: EXIFReading<Value>, _ value: (Value) -> String) -> String {
        switch reading {
        case .value(let result): value(result)
        case .unknown: "unknown"
        case .invalid: "invalid"
        }
    }
}

@Suite("Location")
struct LocationTests {
    @Test(
        "all four hemispheres give signed degrees; AltitudeRef 1 is below sea level",
        arguments: [
            ("gps-north-east.jpg", 35.658611, 139.745556, 150.0 as Double?),
            ("gps-north-west-below-sea-level.jpg", 36.448333, -116.855, -14.28),
            ("gps-south-east.jpg", -33.856778, 151.215361, nil),
            ("gps-south-west.jpg", -34.603694, -58.381611, 25),
        ])
    func hemispheres(name: String, latitude: Double, longitude: Double, altitude: Double?) throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/" + name)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - latitude) < 1e-6)
        #expect(abs(location.longitude - longitude) < 1e-6)
        #expect(location.altitude.map { abs($0 - altitude!) < 0.01 } ?? (altitude == nil))
        #expect(warnings.isEmpty)
    }

    @Test(
        "an untrustworthy position gives no location and a warning without the values",
        arguments: [
            ("gps-missing-latitude-ref.jpg", "GPSLatitude has no GPSLatitudeRef to give its sign"),
            ("gps-zero-denominator.jpg", "GPSLatitude has a zero denominator"),
            ("gps-latitude-out-of-range.jpg", "GPSLatitude is more than 90 degrees"),
            ("gps-latitude-ref-invalid.jpg", "GPSLatitude has a GPSLatitudeRef that is neither N nor S"),
        ])
    func untrustworthyPosition(name: String, reason: String) throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/" + name)
        #expect(metadata.location == nil)
        #expect(warnings == [PhotoWarning(.metadata, reason + ", so the location is left out.")])
    }

    @Test("an altitude with a zero denominator is left out of a good position")
    func altitudeZeroDenominator() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-altitude-zero-denominator.jpg")
        #expect(metadata.location == GeoPoint(latitude: 46.5, longitude: 7.5, altitude: nil))
        #expect(
            warnings == [PhotoWarning(.metadata, "GPSAltitude has a zero denominator, so the altitude is left out.")])
    }

    @Test("an altitude without AltitudeRef is left out, as exiftool leaves it out")
    func altitudeWithoutRef() throws {
        // The Nikon D800E writes GPSAltitude 904.1 with no GPSAltitudeRef.
        let (metadata, _) = try EXIFReaderTests.read("corpus/gps-north-west-display-p3-nikon.jpg")
        let location = try #require(metadata.location)
        #expect(location.altitude == nil)
    }

    @Test(
        "degrees, minutes and seconds",
        arguments: [
            ([(36, 1), (26, 1), (5400, 100)], "N", "36.45"),
            ([(36, 1), (26, 1), (5400, 100)], "S", "-36.45"),
            ([(3645, 100)], "s", "-36.45"),  // decimal degrees alone, lower-case ref
            ([(36, 1), (27, 1)], "N", "36.45"),
            ([(36, 1), (26, 1), (54, 0)], "N", "invalid"),
            ([(91, 1), (0, 1), (0, 1)], "N", "invalid"),
            ([(36, 1), (26, 1), (54, 1), (0, 1)], "N", "invalid"),
            ([(36, 1), (26, 1), (54, 1)], "W", "invalid"),
            ([(36, 1), (-26, 1), (54, 1)], "N", "invalid"),
        ] as [([(Int64, Int64)], String, String)])
    func degrees(parts: [(Int64, Int64)], ref: String, expected: String) {
        let dms = parts.map { EXIFRational(numerator: $0.0, denominator: $0.1) }
        let reading = GeoPoint.signedDegrees(.latitude, dms: dms, ref: ref)
        #expect(CaptureTimeTests.describe(reading) { String(format: "%.2f", $0) } == expected)
    }
}

@Suite("Orientation, camera, comment and size")
struct PhotoDetailsTests {
    @Test("a Latin-1 comment with NUL terminators reads as its text; every line is kept")
    func latin1Comment() throws {
        let (metadata, _) = try EXIFReaderTests.read("crafted/comment-latin1-nul.jpg")
        #expect(metadata.comment == "Café au lait\nsecond line")
        #expect(EXIFReader.text(commentBytes: Array("naïve\u{0}".utf8)) == "naïve")
    }

    @Test("Make and Model are trimmed of padding")
    func cameraNames() throws {
        // The GoPro pads Make and Model to 30 bytes.
        let (metadata, _) = try EXIFReaderTests.read("corpus/offset-plus0200-gopro-6digit-subsec-mpf.jpg")
        #expect(metadata.cameraMake == "GoPro")
        #expect(metadata.cameraModel == "HERO11 Black")
    }

    @Test("an Orientation outside 1–8 is absent, with a warning")
    func invalidOrientation() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/orientation-invalid.jpg")
        #expect(metadata.orientation == nil)
        #expect(
            warnings == [PhotoWarning(.metadata, "Orientation 9 is not one of 1–8, so the photo is shown as stored.")])
    }
}

@Suite("Damaged EXIF")
struct DamagedEXIFTests {
    @Test("libexif's reports of skipped entries become one warning per kind")
    func libexifLogBecomesWarnings() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("corpus/corrupt-exif-ifd1-offsets.jpg")
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "libexif could not read all of the EXIF block: Tag starts past end of buffer (18481157 > 1166) "
                        + "(and 2 more like it).")
            ])
        // IFD0 is intact.
        #expect(metadata.orientation == .up)
        #expect(metadata.captureTime?.iso8601 == "2017-03-13T23:03:09")
    }

    @Test("a block libexif cannot parse gives a warning and no values")
    func malformedBlock() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("corpus/corrupt-exif-malformed-app1.jpg")
        #expect(
            warnings == [PhotoWarning(.metadata, "libexif could not read all of the EXIF block: Unknown encoding.")])
        #expect(metadata == PhotoMetadata(originalSize: PixelSize(width: 200, height: 200)))
    }

    @Test("a block that libexif drops without a word still gives a warning")
    func silentlyDroppedBlock() {
        // A TIFF header whose magic number is 43, not 42: libexif 0.6.24 returns without logging.
        let tiff: [UInt8] = Array("Exif\0\0II".utf8) + [0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, UInt8(tiff.count + 2)] + tiff + [0xFF, 0xDA, 0x00, 0x02]
        let (metadata, warnings) = PhotoMetadata.read(fromJPEG: Data(jpeg))
        #expect(warnings == [PhotoWarning(.metadata, "The EXIF block holds no tag that libexif could read.")])
        #expect(metadata == PhotoMetadata(originalSize: PixelSize(width: 0, height: 0)))
    }

    @Test("every truncation of a real EXIF block reads without a crash, and without GPS values in warnings")
    func truncatedBlocks() throws {
        let original = try Fixtures.data("corpus/offset-plus0200-gopro-6digit-subsec-mpf.jpg")
        let payload = try original.withUnsafeBytes { bytes in
            let segment = try #require(SegmentWalker.walk(bytes).exifSegment(in: bytes))
            return Array(bytes[segment.payload])
        }
        for length in stride(from: 0, through: payload.count, by: 61) {
            // SOI, an APP1 holding the first `length` bytes, then an empty SOS.
            var jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8((length + 2) >> 8), UInt8((length + 2) & 0xFF)]
            jpeg += payload.prefix(length)
            jpeg += [0xFF, 0xDA, 0x00, 0x02]
            let (_, warnings) = PhotoMetadata.read(fromJPEG: Data(jpeg))
            for warning in warnings {
                // The GoPro's position is 46.8968° N, 1.3397° W.
                #expect(!warning.message.contains("46.89") && !warning.message.contains("1.339"), "\(warning)")
            }
        }
    }
}

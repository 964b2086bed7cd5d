import Foundation
import Testing

@testable import ImagePrep

/// Reading one fixture as `PhotoMetadata.read(fromJPEG:)` reads it.
enum EXIFReaderTests {
    static func read(_ relativePath: String) throws -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        PhotoMetadata.read(fromJPEG: try Fixtures.data(relativePath))
    }
}

@Suite("Capture time")
struct CaptureTimeTests {
    @Test("a date with a newline in it is quoted in its warning as \\x0A, so that it breaks no log line")
    func controlCharactersInAWarning() throws {
        var bytes = try [UInt8](Fixtures.data("crafted/ultrahdr-320x240.jpg"))
        let date = try #require(bytes.firstRange(of: Array("2024:06:01 12:00:00".utf8)))
        bytes[date.lowerBound + 3] = 0x0A
        bytes[date.lowerBound + 4] = 0x1B
        let warnings = PhotoMetadata.read(fromJPEG: Data(bytes)).warnings
        let warning = try #require(warnings.first { $0.message.hasPrefix("DateTimeOriginal") }).message
        #expect(warning.hasPrefix("DateTimeOriginal '202\\x0A\\x1B06:01 12:00:00' is not of the form"), "\(warning)")
        #expect(!warning.unicodeScalars.contains { $0.value < 0x20 })
    }

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

    /// The instant is counted in the proleptic Gregorian calendar; Foundation's Calendar, which
    /// made it before, must agree with it to the bit wherever it is Gregorian too (from 1583).
    @Test("a wall-clock time's instant is Foundation's Calendar's from 1583 on, and proleptic Gregorian before")
    func instantsAgreeWithFoundation() throws {
        var random = SplitMix64(seed: 1583)
        for _ in 0..<2_000 {
            let year = 1583 + Int(random.next() % 8_417)
            let month = 1 + Int(random.next() % 12)
            let day = 1 + Int(random.next() % 28)
            let (hour, minute, second) = (Int(random.next() % 24), Int(random.next() % 60), Int(random.next() % 60))
            let offset = (Int(random.next() % (28 * 60)) - 14 * 60) * 60
            let digits = random.next() % 2 == 0 ? nil : String(random.next() % 1_000)
            let local = LocalDateTime(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, fractionDigits: digits)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try #require(TimeZone(secondsFromGMT: offset))
            let whole = try #require(
                calendar.date(
                    from: DateComponents(
                        year: year, month: month, day: day, hour: hour, minute: minute, second: second)))
            let expected = whole.addingTimeInterval(digits.flatMap { Double("0." + $0) } ?? 0)
            #expect(local.date(atOffsetSeconds: offset) == expected, "\(local)")
        }
        // Python's datetime, which is proleptic Gregorian: (date(1000, 1, 1) - date(1970, 1, 1)).
        let old = LocalDateTime(year: 1000, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        #expect(old.date(atOffsetSeconds: 0)?.timeIntervalSince1970 == -30_610_224_000)
        let first = LocalDateTime(year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0)
        #expect(first.date(atOffsetSeconds: 0)?.timeIntervalSince1970 == -62_135_596_800)
        #expect(
            LocalDateTime(year: 2024, month: 13, day: 1, hour: 0, minute: 0, second: 0).date(atOffsetSeconds: 0) == nil)
        #expect(
            LocalDateTime(year: .max, month: 1, day: 1, hour: 0, minute: 0, second: 0).date(atOffsetSeconds: 0) == nil)
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
        "EXIF date text: EXIF's layout or ISO 8601's, then an optional fraction and time zone",
        arguments: [
            ("2024:02:29 23:59:59", "2024-02-29T23:59:59"),
            ("0000:00:00 00:00:00", "unknown"),
            ("    :  :     :  :  ", "unknown"),
            ("0000-00-00T00:00:00", "unknown"),
            ("2023:02:29 12:00:00", "invalid"),
            ("2024:13:01 00:00:00", "invalid"),
            ("2024:01:01 24:00:00", "invalid"),
            ("2024:01:01 12:60:00", "invalid"),
            ("2024:01:01", "invalid"),
            ("1900:02:29 00:00:00", "invalid"),
            ("2000:02:29 00:00:00", "2000-02-29T00:00:00"),
            // Fractions and zones in the date itself (issue 13, cases 1 and 4).
            ("2018:06:26 17:46:33.847", "2018-06-26T17:46:33.847"),
            ("2018:06:26 17:46:33.0", "2018-06-26T17:46:33.0"),
            ("2018:06:26 17:46:33.847Z", "2018-06-26T17:46:33.847+00:00"),
            ("2018:06:26 17:46:33+05:45", "2018-06-26T17:46:33+05:45"),
            ("2018:06:26 17:46:33.5-0330", "2018-06-26T17:46:33.5-03:30"),
            ("2004-07-13T21:23:44Z", "2004-07-13T21:23:44+00:00"),
            ("2004-07-13T21:23:44", "2004-07-13T21:23:44"),
            ("2004-07-13 21:23:44", "2004-07-13T21:23:44"),
            ("2018:06:26 17:46:33.", "invalid"),
            ("2018:06:26 17:46:33 ", "invalid"),
            ("2018:06:26 17:46:33.847 PM", "invalid"),
            ("2018:06:26 17:46:33+15:00", "invalid"),
            ("2018:06:26 17:46:33+5:45", "invalid"),
            ("2018-06:26 17:46:33", "invalid"),
            ("2004-07-13T24:00:00Z", "invalid"),
        ])
    func dateText(text: String, expected: String) {
        #expect(
            Self.describe(LocalDateTime.reading(exif: text)) { $0.local.iso8601 + ($0.utcOffset?.description ?? "") }
                == expected)
    }

    @Test("a date's own fraction of a second is the sub-second when SubSecTimeOriginal is absent")
    func fractionInTheDate() throws {
        // The real file had DateTimeDigitized in 2011, seven years off.
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/datetimeoriginal-fraction.jpg")
        let capture = try #require(metadata.captureTime)
        #expect(capture.source == .dateTimeOriginal)
        #expect(capture.local.fractionDigits == "847")
        #expect(capture.iso8601 == "2018-06-26T17:46:33.847")
        #expect(warnings.isEmpty)
    }

    @Test("a date's own time zone is the offset when no OffsetTime tag is present, and gives an instant")
    func zoneInTheDate() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/datetimeoriginal-fraction-zone.jpg")
        let capture = try #require(metadata.captureTime)
        #expect(capture.iso8601 == "2018-06-26T17:46:33.847+02:00")
        #expect(capture.offsetSource == .dateTag)
        #expect(!capture.isOffsetInferred)
        #expect(abs(try #require(capture.instant).timeIntervalSince1970 - 1_530_027_993.847) < 0.001)
        #expect(warnings.isEmpty)
    }

    @Test("what the date carries wins over SubSecTime and OffsetTime, as in exiftool, with a warning")
    func datesOwnPartsWin() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/datetimeoriginal-own-parts-win.jpg")
        #expect(metadata.captureTime?.iso8601 == "2018-06-26T17:46:33.847-05:00")
        #expect(metadata.captureTime?.offsetSource == .dateTag)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "DateTimeOriginal carries its own fraction of a second, which SubSecTimeOriginal contradicts; "
                        + "the date's own is used, as exiftool uses it."),
                PhotoWarning(
                    .metadata,
                    "DateTimeOriginal carries its own time zone, which OffsetTimeOriginal contradicts; the date's own "
                        + "is used, as exiftool uses it."),
            ])
    }

    @Test("a date's own Z wins over OffsetTimeOriginal (exiftool appends the offset after the Z)")
    func zAndOffsetTag() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/datetimeoriginal-utc-z-and-offset-tag.jpg")
        #expect(metadata.captureTime?.iso8601 == "2004-07-13T21:23:44+00:00")
        #expect(metadata.captureTime?.offsetSource == .dateTag)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "DateTimeOriginal carries its own time zone, which OffsetTimeOriginal contradicts; the date's own "
                        + "is used, as exiftool uses it.")
            ])
    }

    @Test("an ISO 8601 date with Z reads as UTC")
    func iso8601Date() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/datetimeoriginal-iso8601.jpg")
        let capture = try #require(metadata.captureTime)
        #expect(capture.iso8601 == "2004-07-13T21:23:44+00:00")
        #expect(capture.utcOffset == UTCOffset(minutes: 0))
        #expect(capture.source == .dateTimeOriginal)
        #expect(warnings.isEmpty)
    }

    @Test(
        "DateTimeOriginal or DateTimeDigitized in IFD0 is read when the Exif IFD has none, and says so",
        arguments: [
            ("crafted/datetimeoriginal-in-ifd0.jpg", CaptureTime.Source.ifd0DateTimeOriginal),
            ("crafted/createdate-in-ifd0.jpg", .ifd0DateTimeDigitized),
        ])
    func dateInIFD0(path: String, source: CaptureTime.Source) throws {
        let (metadata, warnings) = try EXIFReaderTests.read(path)
        let capture = try #require(metadata.captureTime)
        // Not IFD0's DateTime (2010-01-01), when the file was last changed.
        #expect(capture.iso8601 == "2009-10-11T12:13:14")
        #expect(capture.source == source)
        #expect(source.rawValue.hasPrefix("IFD0:"))
        #expect(warnings.isEmpty)
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
        #expect(UTCOffset(local: localTime.local, gpsClock: clock)?.minutes == minutes)
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
            ("gps-longitude-out-of-range.jpg", "GPSLongitude is more than 180 degrees"),
            ("gps-latitude-negative.jpg", "GPSLatitude is negative where the sign belongs to GPSLatitudeRef"),
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

    @Test("a GPSAltitudeRef with count 0 is above sea level, as exiftool reads it")
    func altitudeRefWithoutValue() throws {
        // As the Pixel 7 writes it; libexif drops such an entry without a word.
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-altitude-ref-count-zero.jpg")
        let location = try #require(metadata.location)
        #expect(abs(try #require(location.altitude) - 31.5) < 1e-9)
        #expect(location.longitude < 0)
        #expect(warnings.isEmpty)
    }

    @Test("a GPSAltitudeRef that is neither 0 nor 1 gives no altitude (exiftool puts it below sea level)")
    func altitudeRefTwo() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-altitude-ref-2.jpg")
        #expect(metadata.location.map { $0.latitude > 35 && $0.altitude == nil } == true)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "GPSAltitude has a GPSAltitudeRef that is neither 0 (above sea level) nor 1 (below), so the "
                        + "altitude is left out.")
            ])
    }

    @Test("coordinates stored as text are not read, even where exiftool pulls numbers out of them")
    func coordinatesAsText() throws {
        // "52,00000,50,00000,34,01180": exiftool reads 52.0139 N; the photo was taken at 52.8428 N.
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-coordinates-text-comma-decimals.jpg")
        #expect(metadata.location == nil)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata, "GPSLatitude is stored as ASCII rather than RATIONAL, so the location is left out."),
                PhotoWarning(
                    .metadata, "GPSLongitude is stored as ASCII rather than RATIONAL, so the location is left out."),
            ])
    }

    @Test("an altitude without a latitude and longitude gives no location (exiftool prints the altitude)")
    func altitudeWithoutPosition() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-altitude-without-position.jpg")
        #expect(metadata.location == nil)
        #expect(warnings.isEmpty)
    }

    @Test("an altitude that only XMP has is not read (EXIF and COM only)")
    func altitudeFromXMP() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/gps-altitude-in-xmp.jpg")
        #expect(metadata.location == GeoPoint(latitude: 46.5584, longitude: 7.9853, altitude: nil))
        #expect(warnings.isEmpty)
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

    @Test("an Orientation stored as SLONG is read, as exiftool reads it")
    func orientationAsSLONG() throws {
        // As some Fuji cameras and Pillow write it.
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/orientation-slong.jpg")
        #expect(metadata.orientation == .right)
        #expect(warnings.isEmpty)
    }

    @Test("an Orientation stored as text is ignored with a warning, though exiftool reads the number")
    func orientationAsText() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/orientation-text.jpg")
        #expect(metadata.orientation == nil)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "Orientation is stored as ASCII rather than an integer type, so the photo is shown as stored.")
            ])
    }

    @Test("a comment in APP10 (PhotoStudio) is not read: comments come from COM segments")
    func commentInAPP10() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/comment-app10-photostudio.jpg")
        #expect(metadata.comment == nil)
        #expect(metadata.captureTime?.iso8601 == "2003-03-03T03:03:03")
        #expect(warnings.isEmpty)
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
                    "libexif could not read all of the EXIF block: a tag's value lies outside the block, so the tag "
                        + "is left out (and 2 more like it).")
            ])
        // IFD0 is intact.
        #expect(metadata.orientation == .up)
        #expect(metadata.captureTime?.iso8601 == "2017-03-13T23:03:09")
    }

    @Test("a thumbnail length past the end of the block costs only itself: the Exif and GPS IFDs are read")
    func badThumbnailLengthInIFD0() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/ifd0-bad-thumbnail-length.jpg")
        #expect(metadata.cameraMake == "ExampleCam")
        #expect(metadata.orientation == .right)
        #expect(metadata.captureTime?.iso8601 == "2015-07-31T18:20:05+02:00")
        #expect(metadata.captureTime?.source == .dateTimeOriginal)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 45.4371) < 1e-9 && abs(location.longitude - 12.3326) < 1e-9)
        #expect(location.altitude == 2)
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "IFD0 had a damaged entry (JPEGInterchangeFormatLength points past the end of the EXIF block), "
                        + "skipped so that the rest of IFD0 could be read.")
            ])
    }

    @Test("the upload copy carries a repaired block's APP1 byte for byte")
    func repairedBlockIsCarriedUnchanged() throws {
        for name in ["ifd0-bad-thumbnail-length.jpg", "exif-pointer-ascii.jpg", "gps-altitude-ref-count-zero.jpg"] {
            let original = try Fixtures.data("crafted/" + name)
            let photo = try PhotoPreparer().prepareBlocking(original, name: name)
            let segments = [original, photo.upload.data].map { data in
                data.withUnsafeBytes { bytes in
                    SegmentWalker.walk(bytes).exifSegment(in: bytes).map { Array(bytes[$0.bytes]) }
                }
            }
            // Neither has PixelXDimension or PixelYDimension to patch.
            #expect(segments[0] != nil && segments[0] == segments[1], "\(name)")
        }
    }

    @Test("a pointer stored as ASCII is not followed, as exiftool does not follow it")
    func pointerAsText() throws {
        // Its four bytes are the Exif IFD's offset, which libexif would follow whatever the type.
        let (metadata, warnings) = try EXIFReaderTests.read("crafted/exif-pointer-ascii.jpg")
        #expect(metadata.captureTime?.source == .dateTime)
        #expect(metadata.captureTime?.iso8601 == "2016-02-04T00:00:00")
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "IFD0's pointer to the Exif IFD does not hold an integer offset, so the Exif IFD is not read; the "
                        + "rest of IFD0 is.")
            ])
    }

    @Test("a block libexif cannot parse gives a warning and no values")
    func malformedBlock() throws {
        let (metadata, warnings) = try EXIFReaderTests.read("corpus/corrupt-exif-malformed-app1.jpg")
        #expect(
            warnings == [
                PhotoWarning(
                    .metadata,
                    "libexif could not read all of the EXIF block: its byte order is neither II nor MM, so no tag is read."
                )
            ])
        #expect(metadata == PhotoMetadata(originalSize: PixelSize(width: 200, height: 200)))
    }

    @Test("a block that libexif drops without a word still gives a warning")
    func silentlyDroppedBlock() {
        // A TIFF header whose magic number is 43, not 42: libexif 0.6.24 returns without logging.
        let tiff: [UInt8] = Array("Exif\0\0II".utf8) + [0x2B, 0x00, 0x08, 0x00, 0x00, 0x00]
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, UInt8(tiff.count + 2)] + tiff + [0xFF, 0xDA, 0x00, 0x02]
        let (metadata, warnings) = PhotoMetadata.read(fromJPEG: Data(jpeg))
        #expect(warnings == [PhotoWarning(.metadata, "the EXIF block holds no tag that libexif could read.")])
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

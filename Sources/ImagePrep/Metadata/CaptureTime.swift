#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When a photo was taken, as the camera's clock showed it, and how far that clock was from UTC.
///
/// The local time and the offset are kept apart on purpose: a time without an offset is a local
/// time, and no UTC instant is invented for it (`instant` is nil then).
public struct CaptureTime: Sendable, Hashable, Codable {
    /// The EXIF tag the date and time came from, in the order they are tried.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The Exif IFD's DateTimeOriginal (0x9003), when the photo was taken.
        case dateTimeOriginal = "DateTimeOriginal"
        /// DateTimeOriginal in IFD0, where TIFF/EP puts it, when the Exif IFD has none.
        case ifd0DateTimeOriginal = "IFD0:DateTimeOriginal"
        /// The Exif IFD's DateTimeDigitized (0x9004; exiftool's CreateDate).
        case dateTimeDigitized = "DateTimeDigitized"
        /// DateTimeDigitized in IFD0, where TIFF/EP puts it, when the Exif IFD has none.
        case ifd0DateTimeDigitized = "IFD0:DateTimeDigitized"
        /// IFD0's DateTime (0x0132; exiftool's ModifyDate), when the file was last changed.
        case dateTime = "DateTime"
    }

    /// Where the UTC offset came from.
    public enum OffsetSource: String, Sendable, Hashable, Codable {
        /// The EXIF OffsetTimeOriginal tag, beside DateTimeOriginal.
        case offsetTimeOriginal = "OffsetTimeOriginal"
        /// The EXIF OffsetTimeDigitized tag, beside DateTimeDigitized.
        case offsetTimeDigitized = "OffsetTimeDigitized"
        /// The EXIF OffsetTime tag, beside DateTime.
        case offsetTime = "OffsetTime"
        /// Written after the time in the date tag itself (`Z`, `±HH:MM` or `±HHMM`), as some tools
        /// write it.
        case dateTag = "date tag"
        /// Inferred: the local time minus the GPS receiver's UTC date and time
        /// (GPSDateStamp + GPSTimeStamp), rounded to the nearest 15 minutes.
        case gpsDateTime = "GPSDateStamp+GPSTimeStamp"
    }

    /// The wall-clock date and time, with fractional seconds from the date tag itself or, when it
    /// has none, from the matching SubSecTime tag.
    public var local: LocalDateTime
    /// The offset of `local` from UTC, or nil when the photo does not say and it cannot be inferred.
    public var utcOffset: UTCOffset?
    /// The tag `local` came from.
    public var source: Source
    /// The tag `utcOffset` came from; nil when there is no offset.
    public var offsetSource: OffsetSource?

    /// A capture time as its parts: for tests, and for an app that keeps its own.
    ///
    /// - Parameters:
    ///   - local: The wall-clock date and time.
    ///   - utcOffset: Its offset from UTC, or nil when unknown.
    ///   - source: The tag it came from.
    ///   - offsetSource: The tag the offset came from, or nil when there is none.
    public init(local: LocalDateTime, utcOffset: UTCOffset?, source: Source, offsetSource: OffsetSource?) {
        self.local = local
        self.utcOffset = utcOffset
        self.source = source
        self.offsetSource = offsetSource
    }

    /// Whether the offset was worked out from the GPS clock rather than recorded by the camera.
    public var isOffsetInferred: Bool { offsetSource == .gpsDateTime }

    /// The moment in UTC, or nil when the offset is unknown.
    public var instant: Date? {
        // Checked: a decoded (Codable) offset can hold any Int; one past a day is refused below.
        guard let utcOffset, case (let seconds, false) = utcOffset.minutes.multipliedReportingOverflow(by: 60) else {
            return nil
        }
        return local.date(atOffsetSeconds: seconds)
    }

    /// ISO 8601, with the offset when it is known: `2024-04-30T14:02:05.495+02:00` or
    /// `2012-09-29T16:11:25`.
    public var iso8601: String {
        guard let utcOffset else { return local.iso8601 }
        return local.iso8601 + utcOffset.description
    }
}

/// A calendar date and time of day with no time zone, as EXIF records it.
public struct LocalDateTime: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The year, as written (four digits in EXIF).
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59 (60 for a leap second).
    public var second: Int
    /// The fractional second exactly as recorded (SubSecTime digits): "0532" means 0.0532 s.
    /// Nil when the camera did not record one.
    public var fractionDigits: String?

    /// A date and time as its parts: for tests, and for an app that keeps its own.
    ///
    /// - Parameters:
    ///   - year: The year.
    ///   - month: The month, 1 to 12.
    ///   - day: The day of the month.
    ///   - hour: The hour, 0 to 23.
    ///   - minute: The minute.
    ///   - second: The second.
    ///   - fractionDigits: The fractional second's digits as recorded ("0532"), or nil.
    public init(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fractionDigits: String? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.fractionDigits = fractionDigits
    }

    /// ISO 8601 without an offset, with the fractional second when it is known.
    public var iso8601: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
        if let fractionDigits { text += "." + fractionDigits }
        return text
    }

    /// The same as `iso8601`, so that the value prints as it reads.
    public var description: String { iso8601 }

    /// The instant this wall-clock time names at a fixed offset from UTC, in the proleptic
    /// Gregorian calendar that `EXIFDateTime` checks dates in.
    ///
    /// Counted here rather than by Foundation's `Calendar`, whose first use in a process reads the
    /// system's time zone (1 ms of every one-photo `prep-photo`), and which counts Julian days
    /// before 1582 for dates that were checked as Gregorian. From 1583 on both agree to the bit
    /// (`CaptureTimeTests`).
    ///
    /// - Returns: nil for a value made with a field out of its range (month 13, hour 24).
    func date(atOffsetSeconds offset: Int) -> Date? {
        guard (-86_399...86_399).contains(offset), Self.isDate(year: year, month: month, day: day),
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        let seconds =
            Self.daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
            - offset
        let whole = Date(timeIntervalSinceReferenceDate: Double(seconds - Self.referenceDateSince1970))
        let fraction = fractionDigits.flatMap { Double("0." + $0) } ?? 0
        return whole.addingTimeInterval(fraction)
    }

    /// 2001-01-01, Foundation's reference date, in seconds since 1970.
    private static let referenceDateSince1970 = 978_307_200

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`: years of 400 that start on March 1st, so that February is last).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// An offset from UTC in whole minutes, east positive: +05:45 is 345, -03:30 is -210.
public struct UTCOffset: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Minutes east of UTC: +05:45 is 345, -03:30 is -210.
    public var minutes: Int

    /// An offset of `minutes` east of UTC (negative west).
    ///
    /// - Parameter minutes: Minutes east of UTC.
    public init(minutes: Int) { self.minutes = minutes }

    /// `±HH:MM`, as EXIF's OffsetTime tags and ISO 8601 write it.
    public var description: String {
        // `magnitude`, not `abs`: a decoded (Codable) offset may be `Int.min`, whose `abs` traps.
        let magnitude = minutes.magnitude
        let hours = magnitude / 60
        let rest = magnitude % 60
        return (minutes < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}

// MARK: - Reading EXIF

extension CaptureTime {
    /// One of EXIF's date-and-time tags with the sub-second and offset tags recorded for it, as text.
    struct EXIFFields {
        var source: Source
        var dateTime: String?
        var subSecond: String?
        var offset: String?
    }

    /// The first usable date and time among `fields` (DateTimeOriginal, then DateTimeDigitized,
    /// each from the Exif IFD and then IFD0, then DateTime), with the sub-second and offset tags of
    /// that same date only: DateTime and its OffsetTime say when the file was last changed,
    /// possibly somewhere else, so they never lend their offset to DateTimeOriginal.
    ///
    /// A fraction of a second or a time zone written into the date tag itself wins over the
    /// SubSecTime and OffsetTime tags, as it does in exiftool's SubSecDateTimeOriginal; when the
    /// two disagree, a warning says so. Placeholders (zeros, blanks) fall through to the next tag
    /// silently; malformed or impossible values fall through with a warning. When the chosen date
    /// has no usable offset, the offset is inferred from `gpsClock` if that is plausible.
    init?(exif fields: [EXIFFields], gpsClock: EXIFReading<GPSClock>, warnings: inout [PhotoWarning]) {
        for field in fields {
            guard let text = field.dateTime else { continue }
            let date: EXIFDateTime
            switch LocalDateTime.reading(exif: text) {
            case .unknown:
                continue
            case .invalid(let reason):
                warnings.append(
                    PhotoWarning(
                        .metadata, "\(field.source.rawValue) '\(EXIFReader.quoted(text))' \(reason), so it is ignored.")
                )
                continue
            case .value(let value):
                date = value
            }
            var local = date.local

            if let subSecond = field.subSecond {
                switch LocalDateTime.reading(exifSubSecond: subSecond) {
                case .value(let digits) where local.fractionDigits == nil: local.fractionDigits = digits
                case .value(let digits):
                    if digits != local.fractionDigits {
                        warnings.append(
                            Self.contradiction(field.source, "fraction of a second", field.source.subSecondTag))
                    }
                case .unknown: break
                case .invalid(let reason):
                    warnings.append(
                        PhotoWarning(
                            .metadata,
                            "\(field.source.subSecondTag) '\(EXIFReader.quoted(subSecond))' \(reason), so it is ignored."
                        ))
                }
            }

            var offset = date.utcOffset.map { ($0, OffsetSource.dateTag) }
            if let text = field.offset {
                switch UTCOffset.reading(exif: text) {
                case .value(let value) where offset == nil: offset = (value, field.source.offsetSource)
                case .value(let value):
                    if value != date.utcOffset {
                        warnings.append(
                            Self.contradiction(field.source, "time zone", field.source.offsetSource.rawValue))
                    }
                case .unknown: break
                case .invalid(let reason):
                    warnings.append(
                        PhotoWarning(
                            .metadata,
                            "\(field.source.offsetSource.rawValue) '\(EXIFReader.quoted(text))' \(reason), so it is ignored."
                        ))
                }
            }
            if offset == nil {
                switch gpsClock {
                case .value(let clock):
                    if let inferred = UTCOffset(local: local, gpsClock: clock) {
                        offset = (inferred, .gpsDateTime)
                    } else {
                        warnings.append(
                            PhotoWarning(
                                .metadata,
                                "GPSDateStamp and GPSTimeStamp differ from \(field.source.rawValue) by more than any "
                                    + "time zone does, so no offset is inferred from them."))
                    }
                case .unknown: break
                case .invalid(let reason):
                    warnings.append(
                        PhotoWarning(
                            .metadata, "GPSDateStamp or GPSTimeStamp \(reason), so no offset is inferred from them."))
                }
            }
            self.init(local: local, utcOffset: offset?.0, source: field.source, offsetSource: offset?.1)
            return
        }
        return nil
    }

    private static func contradiction(_ source: Source, _ part: String, _ tag: String) -> PhotoWarning {
        PhotoWarning(
            .metadata,
            "\(source.rawValue) carries its own \(part), which \(tag) contradicts; the date's own is used, as "
                + "exiftool uses it.")
    }
}

extension CaptureTime.Source {
    /// The offset tag that EXIF 2.31 records for this date.
    var offsetSource: CaptureTime.OffsetSource {
        switch self {
        case .dateTimeOriginal, .ifd0DateTimeOriginal: .offsetTimeOriginal
        case .dateTimeDigitized, .ifd0DateTimeDigitized: .offsetTimeDigitized
        case .dateTime: .offsetTime
        }
    }

    /// The name of the sub-second tag that goes with this date.
    var subSecondTag: String {
        switch self {
        case .dateTimeOriginal, .ifd0DateTimeOriginal: "SubSecTimeOriginal"
        case .dateTimeDigitized, .ifd0DateTimeDigitized: "SubSecTimeDigitized"
        case .dateTime: "SubSecTime"
        }
    }
}

extension LocalDateTime {
    /// Reads a date tag: EXIF's `YYYY:MM:DD HH:MM:SS`, or ISO 8601's `YYYY-MM-DDTHH:MM:SS` (or
    /// either with the other's separator between date and time), then optionally a fraction of a
    /// second (`.847`) and a time zone (`Z`, `±HH:MM` or `±HHMM`), as some cameras and tools
    /// write them and exiftool and metadata-extractor read them.
    ///
    /// EXIF writes an unknown date as blanks or zeros ("0000:00:00 00:00:00"); that is `.unknown`.
    /// A date or time that cannot exist (February 30th, hour 24) is `.invalid`.
    static func reading(exif text: String) -> EXIFReading<EXIFDateTime> {
        if text.allSatisfy({ " :-T0".contains($0) }) { return .unknown }
        let form = "is not of the form YYYY:MM:DD HH:MM:SS"
        let characters = Array(text.utf8)
        guard characters.count >= 19 else { return .invalid(form) }
        let head = String(decoding: characters[..<19], as: UTF8.self)
        let layouts = ["dddd:dd:dd dd:dd:dd", "dddd-dd-ddTdd:dd:dd", "dddd-dd-dd dd:dd:dd", "dddd:dd:ddTdd:dd:dd"]
        guard let numbers = layouts.lazy.compactMap({ fixedWidthNumbers(in: head, layout: $0) }).first else {
            return .invalid(form)
        }
        var rest = characters[19...]
        var fractionDigits: String?
        if rest.first == UInt8(ascii: ".") {
            let digits = rest.dropFirst().prefix { (0x30...0x39).contains($0) }
            guard !digits.isEmpty else { return .invalid(form) }
            fractionDigits = String(decoding: digits, as: UTF8.self)
            rest = rest.dropFirst(1 + digits.count)
        }
        var utcOffset: UTCOffset?
        if !rest.isEmpty {
            var zone = String(decoding: rest, as: UTF8.self)
            if zone == "Z" { zone = "+00:00" }
            if zone.utf8.count == 5, zone.utf8.dropFirst().allSatisfy({ (0x30...0x39).contains($0) }) {
                zone = zone.prefix(3) + ":" + zone.suffix(2)
            }
            guard case .value(let offset) = UTCOffset.reading(exif: zone) else {
                return .invalid("ends in a time zone that is not Z or ±HH:MM within -12:00…+14:00")
            }
            utcOffset = offset
        }
        let (year, month, day) = (numbers[0], numbers[1], numbers[2])
        let (hour, minute, second) = (numbers[3], numbers[4], numbers[5])
        guard isDate(year: year, month: month, day: day), hour < 24, minute < 60, second < 60 else {
            return .invalid("names a date or time that does not exist")
        }
        let local = LocalDateTime(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            fractionDigits: fractionDigits)
        return .value(EXIFDateTime(local: local, utcOffset: utcOffset))
    }

    /// Reads a SubSecTime tag: the digits of the fraction of a second, kept exactly as written
    /// ("0532" stays "0532", not 0.532).
    static func reading(exifSubSecond text: String) -> EXIFReading<String> {
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return .invalid("is not a string of digits") }
        return .value(text)
    }

    /// Whether the date exists in the proleptic Gregorian calendar, years 1–9999.
    static func isDate(year: Int, month: Int, day: Int) -> Bool {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1 else { return false }
        let isLeapYear = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= days[month - 1]
    }

    /// The numbers in `text` where `layout` has runs of "d", when every other character matches
    /// `layout` exactly; nil otherwise.
    static func fixedWidthNumbers(in text: String, layout: String) -> [Int]? {
        let characters = Array(text.utf8)
        let pattern = Array(layout.utf8)
        guard characters.count == pattern.count else { return nil }
        var numbers: [Int] = []
        var current: Int?
        for (character, expected) in zip(characters, pattern) {
            if expected == UInt8(ascii: "d") {
                guard (0x30...0x39).contains(character) else { return nil }
                current = (current ?? 0) * 10 + Int(character - 0x30)
            } else {
                guard character == expected else { return nil }
                if let number = current { numbers.append(number) }
                current = nil
            }
        }
        if let number = current { numbers.append(number) }
        return numbers
    }
}

/// A date tag once read: the wall-clock time, and the time zone when the tag itself carries one.
struct EXIFDateTime: Equatable, Sendable {
    var local: LocalDateTime
    var utcOffset: UTCOffset?
}

extension UTCOffset {
    /// The offsets in use around the world: from -12:00 (Baker Island) to +14:00 (Kiribati).
    static let plausibleMinutes = -12 * 60...14 * 60

    /// Reads an OffsetTime tag: `+HH:MM` or `-HH:MM`. Blanks mean unknown.
    static func reading(exif text: String) -> EXIFReading<UTCOffset> {
        if text.allSatisfy({ $0 == " " || $0 == ":" }) { return .unknown }
        let sign: Int
        switch text.first {
        case "+": sign = 1
        case "-": sign = -1
        default: return .invalid("is not of the form ±HH:MM")
        }
        guard let numbers = LocalDateTime.fixedWidthNumbers(in: String(text.dropFirst()), layout: "dd:dd"),
            numbers[1] < 60
        else { return .invalid("is not of the form ±HH:MM") }
        let minutes = sign * (numbers[0] * 60 + numbers[1])
        guard plausibleMinutes.contains(minutes) else { return .invalid("is outside -12:00…+14:00") }
        return .value(UTCOffset(minutes: minutes))
    }

    /// The offset inferred by comparing the camera's clock with the GPS receiver's UTC clock:
    /// `local` minus GPS time, rounded to the nearest 15 minutes (every offset in use is a
    /// multiple of 15 minutes, and the two clocks are a few seconds or minutes apart).
    ///
    /// Nil when the result is outside -12:00…+14:00: then one of the clocks is wrong (or the GPS
    /// fix is stale), and no offset is better than a wrong one.
    init?(local: LocalDateTime, gpsClock: GPSClock) {
        guard let localAsUTC = local.date(atOffsetSeconds: 0),
            let gpsMidnight = gpsClock.date.date(atOffsetSeconds: 0)
        else { return nil }
        let seconds = localAsUTC.timeIntervalSince(gpsMidnight) - gpsClock.secondsSinceMidnight
        let minutes = Int((seconds / (15 * 60)).rounded()) * 15
        guard Self.plausibleMinutes.contains(minutes) else { return nil }
        self.init(minutes: minutes)
    }
}

/// The GPS receiver's UTC clock at the fix: GPSDateStamp and GPSTimeStamp.
struct GPSClock: Sendable {
    /// The UTC date, at midnight.
    var date: LocalDateTime
    /// Seconds since that midnight, with the fraction GPSTimeStamp may carry.
    var secondsSinceMidnight: Double

    /// Reads GPSDateStamp (`YYYY:MM:DD`) and GPSTimeStamp (hours, minutes, seconds as rationals).
    ///
    /// Both are needed: a time alone (older iPhones write no GPSDateStamp) cannot say which day it
    /// is, and so which offset, near midnight. Warnings about these tags never quote them.
    static func reading(dateStamp: String?, timeStamp: [EXIFRational]?) -> EXIFReading<GPSClock> {
        guard let dateStamp, let timeStamp else { return .unknown }
        if dateStamp.allSatisfy({ $0 == " " || $0 == ":" || $0 == "0" }) { return .unknown }
        guard let numbers = LocalDateTime.fixedWidthNumbers(in: dateStamp, layout: "dddd:dd:dd"),
            LocalDateTime.isDate(year: numbers[0], month: numbers[1], day: numbers[2])
        else { return .invalid("is not a date and time that exists") }
        guard timeStamp.count == 3, let hours = timeStamp[0].value, let minutes = timeStamp[1].value,
            let seconds = timeStamp[2].value, (0..<24).contains(hours), (0..<60).contains(minutes),
            (0..<61).contains(seconds)
        else { return .invalid("is not a date and time that exists") }
        let date = LocalDateTime(year: numbers[0], month: numbers[1], day: numbers[2], hour: 0, minute: 0, second: 0)
        return .value(GPSClock(date: date, secondsSinceMidnight: hours * 3600 + minutes * 60 + seconds))
    }
}

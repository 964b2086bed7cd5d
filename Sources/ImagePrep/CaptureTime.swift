import Foundation

/// When a photo was taken, as the camera's clock showed it, and how far that clock was from UTC.
///
/// The local time and the offset are kept apart on purpose: a time without an offset is a local
/// time, and no UTC instant is invented for it (`instant` is nil then).
public struct CaptureTime: Sendable, Hashable, Codable {
    /// The EXIF tag the date and time came from, in the order they are tried.
    public enum Source: String, Sendable, Hashable, Codable {
        case dateTimeOriginal = "DateTimeOriginal"
        case dateTimeDigitized = "DateTimeDigitized"
        case dateTime = "DateTime"
    }

    /// Where the UTC offset came from.
    public enum OffsetSource: String, Sendable, Hashable, Codable {
        case offsetTimeOriginal = "OffsetTimeOriginal"
        case offsetTimeDigitized = "OffsetTimeDigitized"
        case offsetTime = "OffsetTime"
        /// Inferred: the local time minus the GPS receiver's UTC date and time
        /// (GPSDateStamp + GPSTimeStamp), rounded to the nearest 15 minutes.
        case gpsDateTime = "GPSDateStamp+GPSTimeStamp"
    }

    /// The wall-clock date and time, with fractional seconds from the matching SubSecTime tag.
    public var local: LocalDateTime
    /// The offset of `local` from UTC, or nil when the photo does not say and it cannot be inferred.
    public var utcOffset: UTCOffset?
    /// The tag `local` came from.
    public var source: Source
    /// The tag `utcOffset` came from; nil when there is no offset.
    public var offsetSource: OffsetSource?

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
        guard let utcOffset else { return nil }
        return local.date(atOffsetSeconds: utcOffset.minutes * 60)
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
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// The fractional second exactly as recorded (SubSecTime digits): "0532" means 0.0532 s.
    /// Nil when the camera did not record one.
    public var fractionDigits: String?

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

    public var description: String { iso8601 }

    /// The instant this wall-clock time names at a fixed offset from UTC.
    func date(atOffsetSeconds offset: Int) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        guard let zone = TimeZone(secondsFromGMT: offset) else { return nil }
        calendar.timeZone = zone
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let whole = calendar.date(from: components) else { return nil }
        let fraction = fractionDigits.flatMap { Double("0." + $0) } ?? 0
        return whole.addingTimeInterval(fraction)
    }
}

/// An offset from UTC in whole minutes, east positive: +05:45 is 345, -03:30 is -210.
public struct UTCOffset: Sendable, Hashable, Codable, CustomStringConvertible {
    public var minutes: Int

    public init(minutes: Int) { self.minutes = minutes }

    /// `±HH:MM`, as EXIF's OffsetTime tags and ISO 8601 write it.
    public var description: String {
        let magnitude = abs(minutes)
        let hours = magnitude / 60
        let rest = magnitude % 60
        return (minutes < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}

import Foundation
import Testing

@testable import ImagePrep

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

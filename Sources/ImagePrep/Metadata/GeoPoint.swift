/// Where a photo was taken, from its EXIF GPS tags.
///
/// Degrees are signed decimal degrees on WGS 84: south latitudes and west longitudes are
/// negative. A photo whose hemisphere reference is missing (or is not N/S, E/W), or whose
/// coordinates have a zero denominator or are out of range, gets no `GeoPoint` at all rather than
/// one with a guessed sign, and a warning that never quotes the values.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Degrees north of the equator, -90...90 (south is negative).
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180 (west is negative).
    public var longitude: Double
    /// Metres above sea level (below sea level is negative: GPSAltitudeRef 1); nil when the photo
    /// does not say, or does not say on which side of sea level (no GPSAltitudeRef; one present
    /// with no value, as the Pixel 7 writes it, counts as above, as exiftool reads it).
    public var altitude: Double?

    /// A position from signed degrees.
    ///
    /// - Parameters:
    ///   - latitude: Degrees north, negative south.
    ///   - longitude: Degrees east, negative west.
    ///   - altitude: Metres above sea level, negative below; nil when unknown.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

// MARK: - Reading EXIF

extension GeoPoint {
    /// One of the two axes of an EXIF GPS position.
    enum Axis {
        case latitude, longitude

        var tag: String { self == .latitude ? "GPSLatitude" : "GPSLongitude" }
        var refTag: String { self == .latitude ? "GPSLatitudeRef" : "GPSLongitudeRef" }
        /// The hemisphere references, positive one first: N/S or E/W.
        var refs: (positive: Character, negative: Character) { self == .latitude ? ("N", "S") : ("E", "W") }
        var maximumDegrees: Double { self == .latitude ? 90 : 180 }
    }

    /// Reads the EXIF GPS IFD's position: unsigned degrees/minutes/seconds plus a hemisphere
    /// reference for each axis, and an unsigned altitude plus AltitudeRef (0 above sea level, 1
    /// below).
    ///
    /// Nil when there is no position, or when it cannot be trusted (a missing or unknown
    /// hemisphere reference, a zero denominator, a value out of range): then a warning says why,
    /// without the values. An altitude that cannot be trusted is left out of an otherwise good
    /// position, with a warning.
    init?(
        exifLatitude latitude: [EXIFRational]?, latitudeRef: String?, longitude: [EXIFRational]?,
        longitudeRef: String?, altitude: [EXIFRational]?, altitudeRef: Int64?, warnings: inout [PhotoWarning]
    ) {
        if latitude == nil && longitude == nil { return nil }
        let readings = [
            Self.signedDegrees(.latitude, dms: latitude, ref: latitudeRef),
            Self.signedDegrees(.longitude, dms: longitude, ref: longitudeRef),
        ]
        var degrees: [Double] = []
        for (axis, reading) in zip([Axis.latitude, .longitude], readings) {
            switch reading {
            case .value(let value): degrees.append(value)
            case .unknown:
                warnings.append(
                    PhotoWarning(.metadata, "\(axis.tag) is missing from a GPS position, so the location is left out."))
            case .invalid(let reason):
                warnings.append(PhotoWarning(.metadata, "\(axis.tag) \(reason), so the location is left out."))
            }
        }
        guard degrees.count == 2 else { return nil }

        var meters: Double?
        switch Self.signedAltitude(altitude, ref: altitudeRef) {
        case .value(let value): meters = value
        case .unknown: break
        case .invalid(let reason):
            warnings.append(PhotoWarning(.metadata, "GPSAltitude \(reason), so the altitude is left out."))
        }
        self.init(latitude: degrees[0], longitude: degrees[1], altitude: meters)
    }

    /// Signed decimal degrees from EXIF's 1–3 unsigned rationals (degrees, minutes, seconds;
    /// writers that store decimal degrees leave the rest out or zero) and the hemisphere reference.
    static func signedDegrees(_ axis: Axis, dms: [EXIFRational]?, ref: String?) -> EXIFReading<Double> {
        guard let dms else { return .unknown }
        guard (1...3).contains(dms.count) else {
            return .invalid("has \(dms.count) values where EXIF has degrees, minutes and seconds")
        }
        var degrees = 0.0
        for (part, divisor) in zip(dms, [1.0, 60, 3600]) {
            guard let value = part.value else { return .invalid("has a zero denominator") }
            guard value >= 0 else { return .invalid("is negative where the sign belongs to \(axis.refTag)") }
            degrees += value / divisor
        }
        guard degrees <= axis.maximumDegrees else {
            return .invalid("is more than \(Int(axis.maximumDegrees)) degrees")
        }
        guard let ref else { return .invalid("has no \(axis.refTag) to give its sign") }
        switch ref.first?.uppercased().first {
        case axis.refs.positive: return .value(degrees)
        case axis.refs.negative: return .value(-degrees)
        default: return .invalid("has a \(axis.refTag) that is neither \(axis.refs.positive) nor \(axis.refs.negative)")
        }
    }

    /// Signed metres from the unsigned GPSAltitude and GPSAltitudeRef (0 above, 1 below sea level).
    /// Without a reference the sign is unknown, so there is no altitude (exiftool agrees). A
    /// reference of 2 or more is not one EXIF 2.3 defines: exiftool reads any such value as below
    /// sea level, we give no altitude.
    static func signedAltitude(_ altitude: [EXIFRational]?, ref: Int64?) -> EXIFReading<Double> {
        guard let altitude else { return .unknown }
        guard altitude.count == 1 else { return .invalid("has \(altitude.count) values where EXIF has one") }
        guard let meters = altitude[0].value else { return .invalid("has a zero denominator") }
        guard meters >= 0 else { return .invalid("is negative where the sign belongs to GPSAltitudeRef") }
        switch ref {
        case nil: return .invalid("has no GPSAltitudeRef to say whether it is above or below sea level")
        case 0: return .value(meters)
        case 1: return .value(-meters)
        default: return .invalid("has a GPSAltitudeRef that is neither 0 (above sea level) nor 1 (below)")
        }
    }
}

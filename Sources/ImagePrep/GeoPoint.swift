/// Where a photo was taken, from its EXIF GPS tags.
///
/// Degrees are signed decimal degrees on WGS 84: south latitudes and west longitudes are
/// negative. A photo whose hemisphere reference is missing gets no `GeoPoint` at all rather than
/// one with a guessed sign.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Degrees north of the equator, -90...90 (south is negative).
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180 (west is negative).
    public var longitude: Double
    /// Metres above sea level (below sea level is negative); nil when the photo does not say.
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

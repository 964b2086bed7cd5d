/// Where a camera raw's or DNG's prepared pixels came from: the JPEG preview the camera (or the
/// raw converter) rendered into the file, used when it is at least the upload's size, or the
/// sensor data rendered by LibRaw.
public enum CameraRawPixels: String, Sendable, Hashable, Codable {
    /// The largest embedded JPEG preview: what the camera rendered, and fast.
    case embeddedPreview = "embedded_preview"
    /// The raw sensor data, demosaicked and rendered to sRGB by LibRaw (at half size when that
    /// is still at least the upload's size).
    case rawData = "raw_data"
}

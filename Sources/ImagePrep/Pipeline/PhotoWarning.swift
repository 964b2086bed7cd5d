/// Something odd about a photo that did not stop it from being prepared.
///
/// Messages never contain GPS values or pixel data: they may end up in logs.
public struct PhotoWarning: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What the warning is about.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// libjpeg-turbo reported a problem that loses no pixels (for example extraneous bytes).
        case imageData
        /// Pixels were missing or corrupt and were filled in; only with `acceptsIncompleteData`.
        case incompleteImageData
        /// The EXIF block or a tag in it is malformed; the values affected are absent.
        case metadata
        /// The ICC profile could not be used; copies keep the original colour numbers.
        case colorProfile
        /// The photo holds an HDR gain map (an Ultra HDR JPEG's, an iPhone's or a Samsung's) that
        /// could not be carried; the upload is SDR only.
        case gainMap
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

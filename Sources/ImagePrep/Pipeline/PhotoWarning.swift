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
        /// The file is animated (an APNG, a GIF, an animated WebP): only one picture of it, the
        /// one a viewer shows first, is carried.
        case animation
    }

    /// What the warning is about, for an app that reacts to some kinds and not others.
    public var kind: Kind
    /// What happened, in one clause that reads after a colon (`prep-photo` prints
    /// `warning: 'a.jpg': MESSAGE`): lower-case unless it starts with a name, ending with a full
    /// stop. Words for people, not a contract: match on `kind`, never on the text.
    public var message: String

    /// A warning of `kind` saying `message`; ImagePrep makes them, tests and apps may too.
    ///
    /// - Parameters:
    ///   - kind: What it is about.
    ///   - message: What happened, in the form `message` describes.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message, so that the warning prints as it reads.
    public var description: String { message }
}

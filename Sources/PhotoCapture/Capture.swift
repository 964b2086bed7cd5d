import Foundation
import ImagePrep

/// A capture ready to be queued: the id it will be known by, the intent, and the bytes of each
/// upload copy. The only way to make one computes the media descriptors from the bytes, so the
/// intent and the files can never disagree.
public struct Capture: Sendable {
    /// The id minted on the device; it is also the request id the engine sees.
    public let id: String
    /// What the user meant, with one media descriptor per upload copy.
    public let intent: CaptureIntent
    /// The upload copies' bytes, in the order of `intent.media`.
    let uploads: [Data]

    /// Creates a capture, hashing each upload copy (SHA-256) for its media descriptor.
    ///
    /// - Parameters:
    ///   - id: 1 to 128 letters, digits, '-' or '_'; usually minted by
    ///     `Outbox.commit` as the caller's prefix followed by a UUID.
    ///   - kind: What was captured, in the app's own vocabulary.
    ///   - note: The user's note, stored as given.
    ///   - capturedAt: ISO 8601 with a UTC offset.
    ///   - timeZone: The device's IANA time zone.
    ///   - place: Where the capture was made, or nil.
    ///   - uploads: The copies for the engine, in order; index `i` is `uploads[i]`.
    /// - Throws: `OutboxError.invalidID` when `id` is not a valid id.
    public init(
        id: String, kind: String, note: String, capturedAt: String, timeZone: String?, place: GeoPoint?,
        uploads: [EncodedJPEG]
    ) throws(OutboxError) {
        try self.init(
            id: id, kind: kind, note: note, capturedAt: capturedAt, timeZone: timeZone, place: place,
            uploads: uploads, media: Self.descriptors(of: uploads))
    }

    /// Creates a capture whose descriptors were already computed (by `descriptors(of:)`, from these uploads).
    init(
        id: String, kind: String, note: String, capturedAt: String, timeZone: String?, place: GeoPoint?,
        uploads: [EncodedJPEG], media: [MediaDescriptor]
    ) throws(OutboxError) {
        try self.init(
            id: id,
            intent: CaptureIntent(
                kind: kind, note: note, capturedAt: capturedAt, timeZone: timeZone, place: place, media: media),
            uploads: uploads)
    }

    /// Creates a capture from an intent whose descriptors were computed from these uploads.
    init(id: String, intent: CaptureIntent, uploads: [EncodedJPEG]) throws(OutboxError) {
        guard Self.isValidID(id) else { throw .invalidID(id) }
        self.id = id
        self.uploads = uploads.map(\.data)
        self.intent = intent
    }

    /// One descriptor per upload copy, in order, each with the SHA-256 of its bytes.
    static func descriptors(of uploads: [EncodedJPEG]) -> [MediaDescriptor] {
        uploads.enumerated().map { index, upload in
            MediaDescriptor(
                index: index, sha256: SHA256.hexDigest(of: upload.data), width: upload.size.width,
                height: upload.size.height, byteCount: Int64(upload.data.count))
        }
    }

    /// The unique part of an id derived from what a capture holds: 32 hexadecimal digits (128
    /// bits) of the SHA-256 of every field of the intent that the engine's record is made from
    /// (kind, note, capture time, time zone, place, and each upload's index, SHA-256, size and
    /// byte count), each length-prefixed so that no two different captures can run together into
    /// the same text. The altitude is left out, as it is left out of what is sent.
    static func contentDigest(of intent: CaptureIntent) -> String {
        func field(_ text: String) -> String { "\(text.utf8.count):\(text)\n" }
        var text = "capture.create/2\n" + field(intent.kind) + field(intent.note) + field(intent.capturedAt)
        text += field(intent.timeZone ?? "") + field(intent.place.map { "\($0.latitude),\($0.longitude)" } ?? "")
        text += intent.media.map { "\($0.index):\($0.sha256):\($0.width)x\($0.height):\($0.byteCount)" }
            .joined(separator: ",")
        return String(SHA256.hexDigest(of: Data(text.utf8)).prefix(32))
    }

    /// Whether `id` can name an entry. The id becomes part of file names and of the engine's URLs,
    /// so only characters that are safe in both are allowed; '.' is left out because it separates
    /// the id from the rest of a media file's name, which makes "the files of id X" unambiguous.
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy(isIDByte)
    }

    /// Whether `prefix` can start an id: the same characters, possibly none, at most 64.
    static func isValidIDPrefix(_ prefix: String) -> Bool {
        prefix.utf8.count <= 64 && prefix.utf8.allSatisfy(isIDByte)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

import Foundation
import ImagePrep
import Outbox

/// A photo capture ready to be queued: the id it will be known by, the intent, and the bytes of
/// each upload copy, as one `capture.create` operation. The only way to make one computes the
/// media descriptors from the bytes, so the intent and the files can never disagree.
public struct Capture: Sendable {
    /// The id minted on the device; it is also the request id the engine sees.
    public let id: String
    /// What the user meant, with one media descriptor per upload copy.
    public let intent: CaptureIntent
    /// The operation the outbox queues.
    public let operation: OutboxOperation

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
    ///   - uploads: The copies for the engine, in order; index `i` is `uploads[i]`. At least one.
    /// - Throws: `OutboxError.request(.invalidOperation)` when `uploads` is empty (see
    ///   `Outbox.commit(idPrefix:kind:note:photos:)`); `OutboxError.request(.invalidID)` when `id` is not a
    ///   valid id.
    public init(
        id: String, kind: String, note: String, capturedAt: String, timeZone: String?, place: GeoPoint?,
        uploads: [EncodedJPEG]
    ) throws(OutboxError) {
        try self.init(
            id: id,
            fields: CaptureIntent(
                kind: kind, note: note, capturedAt: capturedAt, timeZone: timeZone, place: place, media: []),
            attachments: Self.attachments(of: uploads))
    }

    /// Creates a capture from an intent's fields (its media are the attachments' descriptors).
    ///
    /// A photo capture without a photo is refused: an empty list is an app's slip (every photo
    /// failed to prepare, a filter left none) far more often than a wish, and queued it would
    /// reach the engine as a capture the user believes has its photo. What has no photo is an
    /// operation of its own type.
    init(id: String, fields: CaptureIntent, attachments: [OperationAttachment]) throws(OutboxError) {
        guard !attachments.isEmpty else {
            throw .request(
                .invalidOperation(
                    id: id,
                    reason: "a photo capture holds at least one photo, and none was given; queue what has no photo"
                        + " as an operation of its own type"))
        }
        operation = try OutboxOperation(
            id: id, type: OperationType.captureCreate.name, version: 1, payload: fields.payload,
            attachments: attachments)
        self.id = id
        intent = CaptureIntent(
            kind: fields.kind, note: fields.note, capturedAt: fields.capturedAt, timeZone: fields.timeZone,
            place: fields.place, media: operation.media)
    }

    /// One attachment per upload copy, in order, each hashed.
    static func attachments(of uploads: [EncodedJPEG]) -> [OperationAttachment] {
        uploads.map {
            OperationAttachment(data: $0.data, contentType: "image/jpeg", width: $0.size.width, height: $0.size.height)
        }
    }

    /// An id derived from what a capture holds: `idPrefix` and 32 hexadecimal digits (128 bits)
    /// of the SHA-256 of every field of the intent that the engine's record is made from (kind,
    /// note, capture time, time zone, place, and each upload's index, SHA-256, size and byte
    /// count), each length-prefixed so that no two different captures can run together into the
    /// same text. The altitude is left out, as it is left out of what is sent. The text is the
    /// one every version since issue 11 hashes, so that a photo added again after an update gets
    /// the id it was queued under.
    static func derivedID(prefix: String, of intent: CaptureIntent) throws(OutboxError) -> String {
        func field(_ text: String) -> String { "\(text.utf8.count):\(text)\n" }
        var text = "capture.create/2\n" + field(intent.kind) + field(intent.note) + field(intent.capturedAt)
        text += field(intent.timeZone ?? "") + field(intent.place.map { "\($0.latitude),\($0.longitude)" } ?? "")
        text += intent.media.map { "\($0.index):\($0.sha256):\($0.width ?? 0)x\($0.height ?? 0):\($0.byteCount)" }
            .joined(separator: ",")
        return try OutboxOperation.derivedID(prefix: prefix, content: Data(text.utf8))
    }
}

extension Outbox {
    /// Queues a capture: writes its files (flushed to disk) and then its record, in one transaction.
    ///
    /// - Parameter capture: The capture, with its id.
    /// - Returns: `.enqueued`, or `.alreadyQueued` when an entry with this id exists.
    /// - Throws: `OutboxError` when a file or the record cannot be written (no file of this
    ///   capture is left behind then), or `.request(.unknownOperationType)` when this outbox's configuration
    ///   leaves `OperationType.captureCreate` out.
    @discardableResult
    public func enqueue(_ capture: Capture) throws(OutboxError) -> EnqueueResult {
        try enqueue(capture.operation)
    }
}

import Foundation
import ImagePrep
import Outbox

/// What the user meant by a photo capture, in the app's own terms: the arguments of a
/// `capture.create` operation (version 1), with a descriptor for each upload copy. This, not an
/// HTTP request, is what the outbox keeps; `HTTPTransport` turns it into the contract's
/// `POST /v1/captures` when it sends it.
///
/// The payload the outbox stores is `{"capturedAt", "kind", "note", "place", "timeZone"}`, the
/// descriptors beside it as the operation's media; fields a later version adds survive, because
/// a stored payload is never rewritten.
public struct CaptureIntent: Sendable, Hashable {
    /// What was captured, in the app's own vocabulary (for example "plate").
    public var kind: String
    /// The user's note, with surrounding whitespace trimmed by `Outbox.commit`.
    public var note: String
    /// When the capture was made, ISO 8601 with a UTC offset (for example `2024-04-30T14:02:05.495+02:00`);
    /// empty only in a record from a version that did not store it.
    public var capturedAt: String
    /// The device's IANA time zone when the capture was saved (for example "Europe/Berlin").
    public var timeZone: String?
    /// Where the capture was made (signed decimal degrees on WGS 84), or nil when no photo says.
    public var place: GeoPoint?
    /// One descriptor for each upload copy, in upload order.
    public var media: [MediaDescriptor]

    /// Creates an intent.
    public init(
        kind: String, note: String, capturedAt: String, timeZone: String?, place: GeoPoint?, media: [MediaDescriptor]
    ) {
        self.kind = kind
        self.note = note
        self.capturedAt = capturedAt
        self.timeZone = timeZone
        self.place = place
        self.media = media
    }

    /// The stored payload, every field optional so that a record from an older version decodes.
    struct Payload: Codable {
        var kind: String?
        var note: String?
        var capturedAt: String?
        var timeZone: String?
        var place: GeoPoint?
    }

    /// The payload of this intent.
    var payload: Payload {
        Payload(kind: kind, note: note, capturedAt: capturedAt, timeZone: timeZone, place: place)
    }

    /// The intent a stored capture holds, with missing fields as values that claim nothing: an
    /// empty kind, note and capture time, no time zone, no place.
    init(payload: Payload, media: [MediaDescriptor]) {
        self.init(
            kind: payload.kind ?? "", note: payload.note ?? "", capturedAt: payload.capturedAt ?? "",
            timeZone: payload.timeZone, place: payload.place, media: media)
    }
}

extension OutboxEntry {
    /// The photo capture this entry holds; nil when it is another kind of operation.
    public var captureIntent: CaptureIntent? {
        guard type == OperationType.captureCreate.name, version == 1,
            let payload = try? decodedPayload(as: CaptureIntent.Payload.self)
        else { return nil }
        return CaptureIntent(payload: payload, media: media)
    }
}

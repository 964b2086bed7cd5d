import Foundation
import ImagePrep
import Outbox

extension Outbox {
    /// Saves a capture on this device: the one quick, local step behind the app's Save button.
    ///
    /// Builds the intent from the photos (the kind; the note with surrounding whitespace trimmed;
    /// the first photo's own camera time when it carries a UTC offset, else the current time; the
    /// device's IANA time zone; the location of the first photo that has one), mints the id as
    /// `idPrefix` followed by a UUID, and enqueues it. When this returns, the capture and a copy of
    /// each upload (readable by the owner only) are durable; start a drain only then. Nothing is
    /// sent here, so when it throws nothing has left the device, and the error's description
    /// says why in words fit for "Not saved on this phone".
    ///
    /// ```swift
    /// let photo = try await PhotoPreparer().prepare(contentsOf: url)
    /// let id = try await outbox.commit(
    ///     idPrefix: "plate-", kind: "plate", note: "gate left open", photos: [photo])
    /// // Durable now: the scheduler sends it, or `drainNow()` does.
    /// ```
    ///
    /// Hashing the photos runs off the outbox's actor, so saving does not hold up listings.
    ///
    /// Cancelling the calling task does not stop or undo the save: the capture is written whole
    /// (its files and record in one transaction, never half) and stays queued, to be sent; to take
    /// it back, `discard(id:)` it.
    ///
    /// - Parameters:
    ///   - idPrefix: Starts the id, for example "plate-": at most 64 letters, digits, '-' or '_'.
    ///   - kind: What was captured, in the app's own vocabulary.
    ///   - note: The user's note; surrounding whitespace and newlines are trimmed.
    ///   - photos: The prepared photos, in the order the engine should see them; at least one.
    /// - Returns: The new entry's id, which is also the request id the engine sees.
    /// - Throws: `OutboxError.request(.invalidIDPrefix)`; `OutboxError.request(.invalidOperation)` when `photos` is
    ///   empty (a capture without a photo is almost always a slip, and would reach the engine as
    ///   if it had one: queue a note alone as an operation of its own type); or whatever kept the
    ///   capture from being written.
    @concurrent
    public nonisolated func commit(
        idPrefix: String, kind: String, note: String, photos: [PreparedPhoto]
    ) async throws(OutboxError) -> String {
        guard OutboxOperation.isValidIDPrefix(idPrefix) else { throw .request(.invalidIDPrefix(idPrefix)) }
        let capture = try Capture(
            id: idPrefix + UUID().uuidString.lowercased(),
            fields: makeFields(kind: kind, note: note, photos: photos, savedAt: configuration.now()),
            attachments: Capture.attachments(of: photos.map(\.upload)))
        try await enqueue(capture)
        return capture.id
    }

    /// Saves a capture under an id derived from everything the engine will be sent, so that
    /// saving the same thing twice queues it once: for a save that is retried without knowing
    /// whether the first try happened (the app, or `outbox add`, was killed after the capture
    /// became durable but before anyone learned its id).
    ///
    /// The intent is built as by `commit(idPrefix:kind:note:photos:)`, with `savedAt` standing in
    /// for the current time. The id is `idPrefix` followed by 32 hexadecimal digits of a SHA-256
    /// over the kind, the trimmed note, the capture time, the time zone, the place and each upload
    /// copy's SHA-256 and size, in order: all that the engine's record is made from. So the same
    /// photo saved on two days, when it carries no time of its own, is two captures, and one id
    /// always stands for one body, which the engine may rightly hold the device to (it refuses a
    /// replay with another body under the same key). The same photos, prepared the same way, with
    /// the same kind, note and moment, are the same capture: while it is queued a second save
    /// changes nothing, and after it was sent and retired a second save sends it again under the
    /// same id, which the engine answers as a replay of what it already holds.
    ///
    /// Cancelling the calling task does not stop or undo the save, as for
    /// `commit(idPrefix:kind:note:photos:)`.
    ///
    /// - Parameters:
    ///   - idPrefix: Starts the id, for example "plate-": at most 64 letters, digits, '-' or '_'.
    ///   - kind: What was captured, in the app's own vocabulary.
    ///   - note: The user's note; surrounding whitespace and newlines are trimmed.
    ///   - photos: The prepared photos, in the order the engine should see them; at least one.
    ///   - savedAt: When the user saved the capture. Keep it with the draft and pass the same
    ///     moment when the save is retried; it is the capture time unless the first photo
    ///     carries its own with a UTC offset.
    /// - Returns: The id, and whether this save queued the capture or found it queued already.
    /// - Throws: `OutboxError.request(.invalidIDPrefix)`; `OutboxError.request(.invalidOperation)` when `photos` is
    ///   empty, as `commit(idPrefix:kind:note:photos:)` does; or whatever kept the capture from
    ///   being written.
    @concurrent
    public nonisolated func commitOnce(
        idPrefix: String, kind: String, note: String, photos: [PreparedPhoto], savedAt: Date
    ) async throws(OutboxError) -> CommitResult {
        let attachments = Capture.attachments(of: photos.map(\.upload))
        var intent = makeFields(kind: kind, note: note, photos: photos, savedAt: savedAt)
        intent.media = OutboxOperation.descriptors(of: attachments)
        let capture = try Capture(
            id: try Capture.derivedID(prefix: idPrefix, of: intent), fields: intent, attachments: attachments)
        return CommitResult(id: capture.id, result: try await enqueue(capture))
    }

    /// What a commit saves besides the photos: the kind, the trimmed note, the capture moment,
    /// the device's time zone and the first place a photo records.
    private nonisolated func makeFields(kind: String, note: String, photos: [PreparedPhoto], savedAt: Date)
        -> CaptureIntent
    {
        CaptureIntent(
            kind: kind, note: note.trimmingCharacters(in: .whitespacesAndNewlines),
            capturedAt: Self.captureMoment(of: photos, now: savedAt, timeZone: configuration.timeZone),
            timeZone: configuration.timeZone.identifier, place: photos.lazy.compactMap(\.metadata.location).first,
            media: [])
    }

    /// When a capture was made, ISO 8601 with its UTC offset.
    ///
    /// The first photo's camera time only when it carries an offset: a local time without one
    /// names no moment (the photo may come from another time zone than the device is in now).
    static func captureMoment(of photos: [PreparedPhoto], now: Date, timeZone: TimeZone) -> String {
        if let time = photos.first?.metadata.captureTime, time.utcOffset != nil { return time.iso8601 }
        let offsetSeconds = timeZone.secondsFromGMT(for: now)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: offsetSeconds) ?? timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
        let local = LocalDateTime(
            year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1, hour: parts.hour ?? 0,
            minute: parts.minute ?? 0, second: parts.second ?? 0)
        return local.iso8601 + UTCOffset(minutes: offsetSeconds / 60).description
    }
}

/// What `Outbox.commitOnce` did.
public struct CommitResult: Sendable, Hashable {
    /// The capture's id, derived from what it holds; also the request id the engine sees.
    public let id: String
    /// `.enqueued`, or `.alreadyQueued` when the same capture was waiting in the outbox already.
    public let result: EnqueueResult
}

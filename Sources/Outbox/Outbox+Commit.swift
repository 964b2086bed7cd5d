import Foundation
import ImagePrep

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
    /// Hashing the photos runs off the outbox's actor, so saving does not hold up listings.
    ///
    /// - Parameters:
    ///   - idPrefix: Starts the id, for example "plate-": at most 64 letters, digits, '-' or '_'.
    ///   - kind: What was captured, in the app's own vocabulary.
    ///   - note: The user's note; surrounding whitespace and newlines are trimmed.
    ///   - photos: The prepared photos, in the order the engine should see them.
    /// - Returns: The new entry's id, which is also the request id the engine sees.
    /// - Throws: `OutboxError.invalidIDPrefix`, or whatever kept the capture from being written.
    @concurrent
    public nonisolated func commit(
        idPrefix: String, kind: String, note: String, photos: [PreparedPhoto]
    ) async throws(OutboxError) -> String {
        guard Capture.isValidIDPrefix(idPrefix) else { throw .invalidIDPrefix(idPrefix) }
        let capture = try Capture(
            id: idPrefix + UUID().uuidString.lowercased(), kind: kind,
            note: note.trimmingCharacters(in: .whitespacesAndNewlines),
            capturedAt: Self.captureMoment(of: photos, now: configuration.now(), timeZone: configuration.timeZone),
            timeZone: configuration.timeZone.identifier,
            place: photos.lazy.compactMap(\.metadata.location).first,
            uploads: photos.map(\.upload))
        try await enqueue(capture)
        return capture.id
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

import Foundation

/// How a transport reports back to the outbox during a send.
public struct DeliveryReporter: Sendable {
    /// The entry being sent.
    public let id: String
    /// The bytes of all the entry's attachments.
    public let totalBytes: Int64
    /// Where the entry is in the pass that sends it ("3 of 21").
    public let position: QueuePosition
    /// The bytes at the engine before this send (copies that landed in earlier attempts): the
    /// send shows as `sending` once a report passes them.
    let startBytes: Int64
    let outbox: Outbox
    let onProgress: (@Sendable (UploadProgress) -> Void)?
    /// The pass the send belongs to: what the transport learns of the engine in one pass (that
    /// it refuses resumable uploads) holds for the rest of that pass.
    let pass: UUID
    let gate = ProgressGate()

    /// Records that upload `index` landed: it leaves the entry's pending media, durably, before
    /// this returns, so a send killed later does not upload it again.
    ///
    /// - Parameter index: The upload copy's index.
    /// - Throws: `OutboxError.entry(.notFound)` when the entry was discarded during the send, or a
    ///   database error; the transport should then stop and return.
    public func uploadLanded(index: Int) async throws(OutboxError) {
        try await outbox.recordUploadLanded(index: index, id: id)
    }

    /// Records that the engine made a resumable upload resource for upload `index`, durably,
    /// so that a send cut after this, even one whose process is killed, resumes there next time
    /// (`PendingUpload.keptUploadResource`). A store that cannot keep it loses the resumption,
    /// never the upload, so nothing is thrown.
    ///
    /// - Parameters:
    ///   - index: The upload copy's index.
    ///   - resource: The resource's URL.
    public func uploadResourceMade(index: Int, at resource: URL) async {
        await outbox.recordUploadResource(resource.absoluteString, index: index, id: id)
    }

    /// Records that an upload of the entry has no room left in its budget for the pass: the
    /// pass's earlier sends of it spent it, so the send ends, and the entry waits for a later
    /// pass (its backoff) without stopping this one, since the failure is this entry's alone.
    func uploadBudgetSpent() async {
        await outbox.recordUploadBudgetSpent(id: id)
    }

    /// Records that the resource kept for upload `index` is not to be asked for again (gone,
    /// complete, or not believable); the next send starts that upload afresh.
    ///
    /// - Parameter index: The upload copy's index.
    public func uploadResourceDropped(index: Int) async {
        await outbox.recordUploadResource(nil, index: index, id: id)
    }

    /// Records that the resource the store kept for upload `index` was refused (it is not this
    /// upload's on this engine): it is cleared, with a line in the entry's history.
    func uploadResourceRefused(index: Int) async {
        await outbox.recordRefusedUploadResource(index: index, id: id)
    }

    /// Tells the app how far the entry's upload has come: never a step back during one send, and
    /// nothing until bytes move past what the engine held when the send started, so that a send
    /// that fails at once never shows the entry as `sending` (see "Progress" in
    /// <doc:ResumableUploads>).
    ///
    /// - Parameter bytesSent: The bytes sent so far of `totalBytes`, counting copies that landed
    ///   in earlier attempts and what a resumed upload already holds.
    public func progress(bytesSent: Int64) {
        let bytes = min(max(0, bytesSent), totalBytes)
        guard let (shown, isAnnounced) = gate.admit(bytes, of: totalBytes, start: startBytes) else {
            return
        }
        outbox.eventHub.showSending(id: id)
        let progress = UploadProgress(id: id, bytesSent: shown, totalBytes: totalBytes, position: position)
        outbox.eventHub.record(progress)
        guard isAnnounced else { return }
        outbox.eventHub.send(.progress(progress))
        onProgress?(progress)
    }
}

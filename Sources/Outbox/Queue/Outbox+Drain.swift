import Foundation

extension Outbox {
    /// Sends the queue to the engine: one pass, serial, in queue order.
    ///
    /// Each entry is `.syncing` while it is sent. A delivered entry becomes `.synced` (call
    /// `retireSynced()` afterwards to free its files); a permanent failure parks that entry as
    /// `.failedNeedsAttention` with its reason and the pass goes on; a transient failure puts the
    /// entry back in the queue with a backoff (see `Backoff`). One that says the engine or the
    /// network is failing (no connection, a timeout, 429, 502–504, a `Retry-After`, an answer
    /// that is not the engine's) stops the pass, since the next send would meet the same outage;
    /// one about this entry (409, or a 500 while the engine confirms other sends) lets the pass
    /// go on (`DrainReport.retrying`). When the engine answers that it does not hold the uploads
    /// it was sent, they are sent again, up to three times in a row. An entry still backing off
    /// is passed over (`halt` then names the one due first), unless the engine asked with a
    /// `Retry-After` to be left alone: then the pass sends nothing until that time. So are
    /// entries whose automatic retries ran out and records this version cannot read. An entry
    /// that waits behind an earlier one of its entity (`OutboxEntry.blockedBy`) is passed over
    /// too, so that one entity's operations reach the engine in order; other entities, and
    /// entries without one, go on.
    ///
    /// Before each entry is sent, its files are checked: one whose file is missing, is not a
    /// regular file or no longer holds the saved bytes is parked with a reason that says so,
    /// without being sent, and the pass goes on.
    ///
    /// Cancelling the calling task stops the pass and throws `CancellationError`, as Swift's
    /// async APIs do: the entry in flight goes back to `.queued` as it was, with no attempt
    /// counted and no error recorded (a suspended app or a Ctrl-C is not the engine failing).
    /// What the drain did before it stopped is not lost: each entry's change was told in
    /// `events` as it happened, and `OutboxEvent.drainCancelled(_:)` carries the report.
    ///
    /// Drains coalesce: one asked for while a pass runs waits, and all such requests together
    /// cause exactly one more pass afterwards, so a capture saved during a pass is not left
    /// waiting. The caller that started the first pass gets what every pass did; a caller that
    /// waited gets the pass that ran for it. A waiting drain whose task is cancelled stops
    /// waiting at once and throws `CancellationError`; the pass it waited for runs only if
    /// another drain still waits for it. When the drain running the passes is cancelled, one
    /// still waiting runs them from there.
    ///
    /// - Parameter transport: How to reach the engine (the latest one asked for is used for the extra pass).
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `CancellationError` when the calling task is cancelled; `OutboxError` when the
    ///   store cannot be read or written. A failed send is not an error.
    public func drain(using transport: any Transport) async throws -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: false)
    }

    /// Sends the queue now because someone asked (the user pulled to refresh, or ran `outbox
    /// drain`): like `drain(using:)`, except that entries still backing off are tried too, after
    /// all those that are not, so that one entry the engine keeps refusing never holds up the
    /// rest. Backoff is there to spare the engine and the battery from automatic passes; a
    /// person asking wants to know now. A failure still counts towards the entry's backoff for
    /// the automatic passes after it, and one about the engine or the network still stops the
    /// pass. Entries whose automatic retries ran out, and parked ones, need `sendNow(id:using:)`.
    ///
    /// ```swift
    /// do {
    ///     let report = try await outbox.drainNow(using: transport)
    ///     print("\(report.synced.count) sent")
    /// } catch is CancellationError {
    ///     // The view went away: what was in flight is back in the queue.
    /// }
    /// ```
    ///
    /// **Coalescing.** While another pass runs (the scheduler's, or another caller's), this one
    /// waits for it to end and then runs one more pass, shared with every other drain asked for
    /// meanwhile; it returns what that pass did.
    ///
    /// **Cancelling.** Cancelling the calling task throws `CancellationError` (within
    /// milliseconds, whether the drain is sending or waiting behind another pass). A send in
    /// flight goes back to the queue as it was, with no attempt counted; what was sent before
    /// stays sent, told by `events` (`OutboxEvent.drainCancelled(_:)` carries the report). A
    /// drain cancelled while it waits takes back its request for one more pass, unless another
    /// drain waits for that pass too.
    ///
    /// - Parameter transport: How to reach the engine.
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `CancellationError` when the calling task is cancelled; `OutboxError` when the
    ///   store cannot be read or written. A failed send is not an error.
    public func drainNow(using transport: any Transport) async throws -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: true)
    }

    /// Sends one entry now, ahead of the queue and of its backoff: for the user's "Send now" on
    /// an entry whose automatic retries ran out, or on a parked one. Then the rest of the queue
    /// drains as usual (in the same coalesced way as `drain(using:)`), the entries of its entity
    /// that waited behind it included. It never jumps the order of its entity.
    ///
    /// The entry's last error stays readable until this send ends.
    ///
    /// - Parameters:
    ///   - id: The entry's id.
    ///   - transport: How to reach the engine.
    /// - Returns: What the drain did.
    /// - Throws: `.entry(.notFound)`, `.entry(.unreadable)`, `.entry(.blockedBehind)` when an earlier entry of its
    ///   entity must go first, or `OutboxError` when the store fails; `CancellationError` when
    ///   the calling task is cancelled, as for `drain(using:)`.
    public func sendNow(id: String, using transport: any Transport) async throws -> DrainReport {
        let entry = try store.entry(id: id)
        if let blocker = entry.blockedBy, let entity = entry.entity {
            throw OutboxError.entry(.blockedBehind(id: id, blockedBy: blocker, entity: entity))
        }
        if let awaited = awaitedNetwork(of: entry) {
            throw OutboxError.entry(
                .waitsForNetwork(
                    id: id, type: entry.type, network: scheduling.network, awaited: awaited.awaitedNetwork))
        }
        try store.releaseForSendNow(id: id)
        announceStatus(of: id, unlessStill: entry.status)
        sendNowRequests.insert(id)
        return try await drain(using: transport)
    }
}

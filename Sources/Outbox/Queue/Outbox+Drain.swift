import Foundation

extension Outbox {
    /// Sends the queue to the engine: one automatic pass, serial, in queue order, as the
    /// scheduler runs it, keeping to each entry's ``Backoff``.
    ///
    /// A delivered entry becomes `.synced` (``retireSynced()`` then frees its files); one the
    /// engine refuses for good is parked and the pass goes on; a failure that says the engine or
    /// the network is down stops the pass. An entry waits behind an earlier one of its entity.
    /// A drain asked for while a pass runs shares one more pass with the others, and cancelling
    /// the task puts the entry in flight back unsent. <doc:Draining> tells it all.
    ///
    /// - Parameter transport: How to reach the engine (the latest one asked for is used for the extra pass).
    /// - Returns: What the drain sent, parked, and why it stopped early, if it did.
    /// - Throws: `CancellationError` when the calling task is cancelled; `OutboxError` when the
    ///   store cannot be read or written. A failed send is not an error.
    public func drain(using transport: any Transport) async throws -> DrainReport {
        try await coalescedDrain(using: transport, isRequested: false)
    }

    /// Sends the queue now because someone asked (the user pulled to refresh, or ran `outbox
    /// drain`): like ``drain(using:)``, except that entries still backing off are tried too,
    /// after all those that are not. Backoff spares the engine and the battery from automatic
    /// passes; a person asking wants to know now. Parked entries, and those whose automatic
    /// retries ran out, need ``sendNow(id:using:)``. How passes coalesce and cancel: <doc:Draining>.
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

import Foundation

extension Outbox {
    /// The outbox as it is now, then again after every change: what a SwiftUI model needs, in
    /// one `for await`, with nothing to merge or reconcile.
    ///
    /// ```swift
    /// @MainActor @Observable final class QueueModel {
    ///     var snapshot: OutboxSnapshot?
    ///
    ///     func follow(_ outbox: Outbox) async {
    ///         for await snapshot in outbox.snapshots { self.snapshot = snapshot }
    ///     }
    /// }
    /// ```
    ///
    /// The first snapshot is the current state; each later one follows a change this `Outbox`
    /// value made or was told of (an entry queued, sent, parked, retired, discarded; progress;
    /// the network or the scheduler). Changes are coalesced: a consumer that is busy gets the
    /// latest state when it asks again, never a backlog, and a snapshot equal to the one before
    /// is not handed over. Another process's changes (the `outbox` command, an app extension)
    /// show in the snapshot after the next change here. A snapshot that cannot be read (the
    /// database fails that instant) is skipped; the next change tries again.
    ///
    /// Each read of this property starts a new stream, and many may be open at once. A stream
    /// ends when its consumer stops iterating (the task that iterates is cancelled, or leaves
    /// the loop) or when the outbox is deallocated; a loop that must end earlier runs in a task
    /// the app cancels.
    public nonisolated var snapshots: AsyncStream<OutboxSnapshot> {
        let changes = eventHub.changes()
        let (stream, continuation) = AsyncStream.makeStream(
            of: OutboxSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        // The outbox is held weakly, so that a stream nobody ends does not keep it alive: its
        // deinit ends `changes`, and so this.
        let following = Task { [weak self] in
            var last: OutboxSnapshot?
            var iterator = changes.makeAsyncIterator()
            repeat {
                guard let outbox = self else { break }
                if let snapshot = try? await outbox.snapshot(), snapshot != last {
                    last = snapshot
                    continuation.yield(snapshot)
                }
            } while await iterator.next() != nil
            continuation.finish()
        }
        continuation.onTermination = { _ in following.cancel() }
        return stream
    }
}

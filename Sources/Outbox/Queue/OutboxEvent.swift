import Foundation
internal import PlatformLayer

/// Something that happened in an outbox, as `Outbox.events` tells it: each fact once, as it
/// happens. A UI that only shows the queue is simpler with `Outbox.snapshots`, which hands over
/// whole snapshots; events are for what a snapshot does not say (a pass ended, a drain was
/// cancelled, a log line per change).
///
/// The events alone keep a list of the queue right: start from a `snapshot()`, add an entry at
/// `added`, set its status at each `stateChanged`, and remove it at `retired` or `discarded`;
/// the list then holds the entries and statuses that a new snapshot would
/// (`Tests/EngineTests/EventReplayTests.swift` replays them so against the reference engine).
///
/// Events say what this `Outbox` value did; another process working on the same folder (the
/// `outbox` command, an app extension) is seen in the next `snapshot()`, not here. Reasons are
/// the entry's `lastError`: the engine's answer or the device's failure in words, never a note,
/// a place or a photo's bytes.
public enum OutboxEvent: Sendable, Equatable {
    /// An operation was queued, durably; `replacing` is the entry it took the place of
    /// (`EnqueueResult.replaced`), whose own entry is gone. A `stateChanged` with its first status
    /// follows at once.
    case added(id: String, replacing: String?)
    /// An entry's status changed, each change once: its first status after `added` (pending,
    /// blocked behind an earlier entry of its entity, or waiting for its network), sent,
    /// back in the queue (retrying, out of automatic retries, or released by send-now), parked,
    /// held back or let go by a change of network, delivered; and for the entries that waited
    /// behind one of their entity that was delivered or discarded, where they stand now (the
    /// first goes on, the others wait behind it). `reason` is why, for the statuses that follow
    /// a failure (its `lastError`), and nil otherwise.
    case stateChanged(id: String, status: EntryStatus, reason: String?)
    /// An upload's bytes went out: told at its start, at each new whole percent and at its end
    /// (see `DeliveryReporter.progress(bytesSent:)`), with its place in the pass ("3 of 21").
    case progress(UploadProgress)
    /// A delivered entry and its files were deleted (`retire`, or the scheduler's automatic retire).
    case retired(id: String)
    /// An entry was deleted unsent (`discard`).
    case discarded(id: String)
    /// A record this version cannot read was found in the store; it is kept, never sent, and holds
    /// back the later entries of its entity. Each is told once per `Outbox` value, and never one
    /// that a `snapshot()` already showed (it is in that snapshot's `unreadable`).
    case unreadableFound(UnreadableEntry)
    /// A pass of the scheduler ended: what it did, and what made it run.
    case drained(DrainReport, trigger: Outbox.DrainTrigger)
    /// A pass of the scheduler could not read or write the store; the scheduler tries again at
    /// its next trigger.
    case drainFailed(OutboxError)
    /// A drain was cancelled (its caller's task, or `Outbox.stop()` for the scheduler's): what it
    /// did before it stopped, since the cancelled call throws `CancellationError` instead of
    /// returning it. Its `halt` is `.cancelled` when the pass stopped part-way.
    case drainCancelled(DrainReport)
}

/// Hands each event to every open `events` stream, and keeps the latest progress of each entry
/// in flight for `snapshot()`. Its state sits behind a lock rather than on the actor, so that
/// `events` and a transport's progress reports need no hop to the outbox.
final class EventHub: Sendable {
    /// The most events a stream holds for a consumer that falls behind; the oldest go first.
    static let bufferLimit = 512

    private struct State {
        var nextKey = 0
        var streams: [Int: AsyncStream<OutboxEvent>.Continuation] = [:]
        /// The `snapshots` streams' wake-ups: one pending each, however many changes came.
        var changeWatchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var progress: [String: UploadProgress] = [:]
        /// The entries in flight whose bytes began to move, so that they show as `sending`.
        var shownSending: Set<String> = []
        var isFinished = false
    }

    private let state = Locked(State())

    /// A new stream of every event from now on; it ends when the consumer stops iterating.
    func stream() -> AsyncStream<OutboxEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: OutboxEvent.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        let key = state.withLock { state in
            defer { state.nextKey += 1 }
            state.streams[state.nextKey] = continuation
            return state.nextKey
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.streams.removeValue(forKey: key) }
        }
        return stream
    }

    /// A stream that yields once after any change (an event, or a change of the scheduler's
    /// state that tells no event), coalesced: for `Outbox.snapshots`. It ends with the outbox.
    func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let key: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            defer { state.nextKey += 1 }
            state.changeWatchers[state.nextKey] = continuation
            return state.nextKey
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.changeWatchers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Whether any stream is open: what only an event needs (an entry read again to tell its
    /// status) is skipped when nobody listens.
    var isFollowed: Bool { state.withLock { !$0.streams.isEmpty || !$0.changeWatchers.isEmpty } }

    /// Tells every stream.
    func send(_ event: OutboxEvent) {
        let (streams, watchers) = state.withLock { (Array($0.streams.values), Array($0.changeWatchers.values)) }
        for stream in streams { stream.yield(event) }
        for watcher in watchers { watcher.yield() }
    }

    /// Wakes the `snapshots` streams for a change no event tells (the network, the scheduler).
    func changed() {
        for watcher in state.withLock({ Array($0.changeWatchers.values) }) { watcher.yield() }
    }

    /// Records that the bytes of an entry's send began to move: it shows as `sending` from now
    /// on, told once.
    func showSending(id: String) {
        guard state.withLock({ $0.shownSending.insert(id).inserted }) else { return }
        send(.stateChanged(id: id, status: .sending, reason: nil))
    }

    /// Whether the entry in flight shows as `sending` (its bytes began to move).
    func isShownSending(id: String) -> Bool { state.withLock { $0.shownSending.contains(id) } }

    /// Records an entry's progress, for `snapshot()`.
    func record(_ progress: UploadProgress) {
        state.withLock { $0.progress[progress.id] = progress }
    }

    /// Forgets the progress of an entry whose send ended.
    ///
    /// - Returns: Whether it showed as `sending`.
    @discardableResult
    func endProgress(id: String) -> Bool {
        state.withLock { state in
            state.progress.removeValue(forKey: id)
            return state.shownSending.remove(id) != nil
        }
    }

    /// The latest progress of each entry in flight.
    var progressInFlight: [String: UploadProgress] { state.withLock { $0.progress } }

    /// Ends every stream (the outbox is going away).
    func finish() {
        let (streams, watchers) = state.withLock { state in
            state.isFinished = true
            return (Array(state.streams.values), Array(state.changeWatchers.values))
        }
        for stream in streams { stream.finish() }
        for watcher in watchers { watcher.finish() }
    }
}

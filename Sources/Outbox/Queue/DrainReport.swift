import Foundation

/// What a drain did.
public struct DrainReport: Sendable, Hashable {
    /// Why a pass stopped before the end of the queue.
    public enum Halt: Sendable, Hashable {
        /// A send failed in a way that may pass (for example HTTP 503); the entry is back in the queue.
        case transientFailure(id: String, reason: String)
        /// Everything that could go went, and entries wait out their backoff after an earlier
        /// transient failure (and the later ones of their entities behind them): `id` is the
        /// one due first, at `until`.
        case waitingToRetry(id: String, until: Date)
        /// The drain's task was cancelled (the app was suspended, the user pressed Ctrl-C). The
        /// entry in flight, if there was one (`id`), is back in the queue as it was: no attempt
        /// counted, no error recorded.
        case cancelled(id: String?)
    }

    /// The entries the engine took, in the order they were sent.
    public internal(set) var synced: [String] = []
    /// The entries parked as `.failedNeedsAttention`, in the order they were sent.
    public internal(set) var parked: [String] = []
    /// The entries whose send failed in a way that may pass and that was about them alone (a
    /// 409, or a 500 while the engine took the others): back in the queue with a backoff, and
    /// the pass went on.
    public internal(set) var retrying: [String] = []
    /// The entries the last pass passed over because their type may not use the network the
    /// device is on (`OperationType.network`), in queue order: queued, no retry used up.
    public internal(set) var waitingForNetwork: [String] = []
    /// Why the last pass stopped early; nil when it reached the end of the queue.
    public internal(set) var halt: Halt?
    /// When a drain would next have something to send, for scheduling one; nil when the queue
    /// was emptied or what is left waits for the user.
    public internal(set) var retryAt: Date?
    /// The entries retired (deleted with their files) after the passes, because the scheduler
    /// runs with `Schedule.retiresSynced`; empty otherwise, when `retireSynced()` is the caller's.
    public internal(set) var retired: [String] = []
    /// How many passes ran: more than 1 when drains asked for during a pass were coalesced into one more.
    public internal(set) var passes = 0

    /// Adds a later pass: its entries after these, and its halt (or lack of one) as the last word.
    mutating func append(_ later: DrainReport) {
        synced += later.synced
        parked += later.parked
        retrying += later.retrying
        retired += later.retired
        waitingForNetwork = later.waitingForNetwork
        halt = later.halt
        retryAt = later.retryAt
        passes += later.passes
    }
}

import Foundation

/// The whole outbox at one moment, for a UI: every entry with where it stands in words
/// (`EntryStatus`), the progress of the one being sent, the records this version cannot read,
/// and what the scheduler is waiting for. A value: a view model keeps the latest that
/// `Outbox.snapshots` hands over.
public struct OutboxSnapshot: Sendable, Hashable {
    /// One entry as a list row shows it.
    public struct Item: Sendable, Hashable, Identifiable {
        /// The entry's id.
        public let id: String
        /// Its operation type, for example "capture.create".
        public let type: String
        /// What it is about, for example "note:42"; nil for none.
        public let entity: String?
        /// When it was queued, by the device's clock.
        public let createdAt: Date
        /// How many sends of it started.
        public let attempts: Int
        /// Where it stands: pending, sending, retrying at a time, waiting for send-now, parked
        /// with its reason, blocked behind another, or delivered.
        public let status: EntryStatus
        /// Why its last send failed; nil when none has since the last success.
        public let lastError: String?
        /// How far its upload has come, while it is being sent by this `Outbox` value.
        public let progress: UploadProgress?
    }

    /// The readable entries, in queue order.
    public let items: [Item]
    /// The records this version cannot read, in queue order: kept, never sent.
    public let unreadable: [UnreadableEntry]
    /// Until when the engine asked (with a `Retry-After`) to be left alone: automatic passes
    /// send nothing before then. Nil when it did not, or the time has passed.
    public let engineAskedToWaitUntil: Date?
    /// Whether the app last said the network is there (`Outbox.connectivityChanged(isReachable:network:)`).
    public let isReachable: Bool
    /// What kind of network the app last said it is, or URLSession found: what the entries that
    /// wait for theirs (`waitingForNetworkCount`) wait to leave.
    public let network: NetworkPath
    /// Whether the scheduler runs (`Outbox.start(transport:)`).
    public let isScheduled: Bool
    /// When the scheduler's next automatic pass is due; nil when it does not run, or is offline.
    public let nextAutomaticPassAt: Date?

    /// Entries the next pass sends.
    public var pendingCount: Int { count { $0 == .pending } }
    /// Entries being sent.
    public var sendingCount: Int { count { $0 == .sending } }
    /// Entries waiting out their backoff after a transient failure.
    public var retryingCount: Int { count { if case .retrying = $0 { true } else { false } } }
    /// Entries whose automatic retries ran out, waiting for the user's send-now.
    public var waitingForSendNowCount: Int { count { $0 == .waitingForSendNow } }
    /// Entries parked for the user: refused by the engine, or their file is gone.
    public var parkedCount: Int { count { if case .parked = $0 { true } else { false } } }
    /// Entries waiting for a network their type may use ("waits for Wi-Fi").
    public var waitingForNetworkCount: Int { count { if case .waitingForNetwork = $0 { true } else { false } } }
    /// Entries waiting behind an earlier one of their entity.
    public var blockedCount: Int { count { if case .blocked = $0 { true } else { false } } }
    /// Entries the engine has, not yet retired.
    public var deliveredCount: Int { count { $0 == .delivered } }

    private func count(_ matches: (EntryStatus) -> Bool) -> Int { items.count { matches($0.status) } }
}

extension Outbox {
    /// Every entry in the outbox and where it stands, with the progress of the one in flight;
    /// see `OutboxSnapshot`.
    ///
    /// - Returns: The outbox at this moment.
    /// - Throws: `OutboxError.store(.database)` when the database cannot be read.
    public func snapshot() throws(OutboxError) -> OutboxSnapshot {
        let listing = try list()
        // Whoever holds this snapshot has these records: `unreadableFound` would tell them twice.
        for record in listing.unreadable { scheduling.toldUnreadable.insert(record.sequence) }
        let progress = eventHub.progressInFlight
        let items = listing.entries.map { entry in
            // A send whose bytes have not moved yet shows where the entry stood before it, as
            // the events tell it (`DeliveryReporter.progress(bytesSent:)`).
            let isShownSending = entry.state == .syncing && eventHub.isShownSending(id: entry.id)
            let isQuietSend = entry.state == .syncing && !isShownSending && passQueue.inFlight == entry.id
            return OutboxSnapshot.Item(
                id: entry.id, type: entry.type, entity: entry.entity, createdAt: entry.createdAt,
                attempts: entry.attempts, status: entry.status(in: isQuietSend ? .queued : entry.state),
                lastError: entry.lastError,
                progress: isShownSending ? progress[entry.id] : nil)
        }
        let now = configuration.now()
        return OutboxSnapshot(
            items: items, unreadable: listing.unreadable,
            engineAskedToWaitUntil: engineAskedToWait.flatMap { $0.until > now ? $0.until : nil },
            isReachable: scheduling.isReachable, network: scheduling.network, isScheduled: scheduling.running != nil,
            nextAutomaticPassAt: scheduling.isReachable ? scheduling.running?.nextPassAt : nil)
    }
}

import Foundation

extension Outbox {
    /// When the scheduler runs its automatic passes, and what it does after them.
    public struct Schedule: Sendable {
        /// Seconds between automatic passes when nothing else starts one; 60 by default, as the
        /// design the package comes from drains every minute. A failed pass comes back sooner
        /// when its backoff ends first.
        public var interval: TimeInterval
        /// Whether entries the engine has are retired (deleted with their files) right after
        /// each pass; true by default, so that delivered photos never stay on the device.
        public var retiresSynced: Bool
        /// Waits until a moment of the outbox's clock (`Configuration.now`); throws when the
        /// waiting task is cancelled. The system clock by default; tests pass their own clock's.
        public var sleepUntil: @Sendable (Date) async throws -> Void

        /// Creates a schedule.
        ///
        /// - Parameters:
        ///   - interval: Seconds between automatic passes; 60 by default.
        ///   - retiresSynced: Whether delivered entries are retired after each pass; true by default.
        ///   - sleepUntil: How to wait for a moment; the system clock by default.
        public init(
            interval: TimeInterval = 60, retiresSynced: Bool = true,
            sleepUntil: @escaping @Sendable (Date) async throws -> Void = Schedule.systemSleep
        ) {
            self.interval = interval
            self.retiresSynced = retiresSynced
            self.sleepUntil = sleepUntil
        }

        /// Sleeps until `moment` by the system clock.
        public static let systemSleep: @Sendable (Date) async throws -> Void = { moment in
            try await Task.sleep(for: .seconds(max(0, moment.timeIntervalSinceNow)))
        }
    }

    /// What made the scheduler run a pass; it prints as its case's name ("started"), not as
    /// `Outbox.Outbox.DrainTrigger.started`.
    public enum DrainTrigger: Sendable, Hashable, CustomStringConvertible {
        /// `start(transport:)`: what is queued goes at once.
        case started
        /// An operation was queued (`enqueue`, `write`, `commit`).
        case enqueued
        /// The periodic timer, or the end of a backoff.
        case timer
        /// The network came back (`connectivityChanged(isReachable: true)`).
        case connectivity
        /// The app came to the foreground (`appDidBecomeActive()`).
        case becameActive

        /// The trigger in a few words, for a log line.
        public var description: String {
            switch self {
            case .started: "started"
            case .enqueued: "enqueued"
            case .timer: "timer"
            case .connectivity: "connectivity"
            case .becameActive: "becameActive"
            }
        }
    }

    /// Starts sending by itself: a pass at once, then one after each commit or enqueue, one
    /// every `schedule.interval` seconds (sooner when a backoff ends first), one when the network
    /// comes back and one when the app becomes active; and, by default, retiring what the engine
    /// took right after each pass. Passes are automatic: they keep to each entry's backoff and to
    /// the engine's `Retry-After`, and they coalesce with every other drain as `drain(using:)`
    /// says. While the app says the network is gone (`connectivityChanged(isReachable: false)`)
    /// no pass runs, so that an hour offline does not use up the entries' automatic retries.
    /// `drainNow()` and `sendNow(id:)` use the same transport and do not wait for anything.
    ///
    /// Starting a running scheduler again replaces its transport and schedule.
    ///
    /// - Parameters:
    ///   - transport: How to reach the engine.
    ///   - schedule: The interval, the automatic retire and the clock to wait with.
    /// - Throws: `.request(.invalidSetting)` when the interval is not a positive number of seconds.
    public func start(transport: any Transport, schedule: Schedule = Schedule()) async throws(OutboxError) {
        guard schedule.interval.isFinite, schedule.interval > 0 else {
            throw .request(
                .invalidSetting(
                    setting: "Schedule.interval", value: String(describing: schedule.interval),
                    allowed: "a positive number of seconds"))
        }
        await stop()
        scheduling.running = Scheduling.Running(transport: transport, schedule: schedule)
        scheduling.running?.loop = Task { await self.runSchedule() }
        wake(for: .started)
        eventHub.changed()
    }

    /// Stops the scheduler: no automatic pass starts any more, and a pass in flight is cancelled
    /// (the entry being sent goes back to the queue as it was). Returns once the scheduler's
    /// work has ended. Queuing still works; nothing is sent until `start` or a drain.
    public func stop() async {
        guard let running = scheduling.running else { return }
        scheduling.running = nil
        running.timer?.cancel()
        running.loop?.cancel()
        running.wakeUp?.resume()
        eventHub.changed()
        await running.loop?.value
    }

    /// Tells the outbox whether the device can reach the network and what kind of network it is,
    /// for example from `NWPathMonitor` (on Apple's platforms `ConnectivityMonitor` does it).
    /// Coming back starts a pass; going away holds automatic passes until it comes back.
    /// Reachable and unmetered by default.
    ///
    /// The entries whose type may not use `network` (`OperationType.network`) wait, queued, and
    /// each one whose status changes because of it is told in `events`; a network that lets some
    /// of them go starts a pass.
    ///
    /// - Parameters:
    ///   - isReachable: Whether a route to the network is there.
    ///   - network: Whether it is metered or in Low Data Mode; unmetered when not said.
    public func connectivityChanged(isReachable: Bool, network: NetworkPath = .unmetered) {
        let cameBack = isReachable && !scheduling.isReachable
        scheduling.isReachable = isReachable
        let released = changeNetwork(to: network)
        eventHub.changed()
        if cameBack || (released && isReachable) { wake(for: .connectivity) }
    }

    /// Takes `network` as the one the device is on, and tells `events` of every queued entry it
    /// holds back or lets go.
    ///
    /// - Returns: Whether it let an entry go.
    @discardableResult
    func changeNetwork(to network: NetworkPath) -> Bool {
        let before = scheduling.network
        guard network != before else { return false }
        scheduling.network = network
        guard let listing = try? list() else { return false }
        var released = false
        for entry in listing.entries where entry.state == .queued {
            let requirement = store.catalog.network(ofType: entry.type)
            guard requirement.allows(before) != requirement.allows(network) else { continue }
            released = released || requirement.allows(network)
            // One behind an earlier entry of its entity stays `blocked` either way.
            if entry.blockedBy == nil { eventHub.send(statusEvent(of: entry)) }
        }
        return released
    }

    /// Tells the outbox that the app came to the foreground: the scheduler runs a pass.
    public func appDidBecomeActive() {
        wake(for: .becameActive)
    }

    /// `drainNow(using:)` with the scheduler's transport: for pull to refresh. It coalesces with
    /// the scheduler's own passes, and cancelling it throws `CancellationError` at once, even
    /// while it waits behind the scheduler's pass; see `drainNow(using:)`.
    ///
    /// ```swift
    /// .refreshable { _ = try? await outbox.drainNow() }
    /// ```
    ///
    /// - Returns: What the drain did.
    /// - Throws: `.request(.notStarted)` when the scheduler does not run; as `drainNow(using:)` otherwise
    ///   (`CancellationError` when the calling task is cancelled).
    @discardableResult
    public func drainNow() async throws -> DrainReport {
        guard let transport = scheduling.running?.transport else { throw OutboxError.request(.notStarted) }
        return try await drainNow(using: transport)
    }

    /// `sendNow(id:using:)` with the scheduler's transport: for the user's "Send now".
    ///
    /// - Parameter id: The entry's id.
    /// - Returns: What the drain did.
    /// - Throws: `.request(.notStarted)` when the scheduler does not run; as `sendNow(id:using:)` otherwise.
    @discardableResult
    public func sendNow(id: String) async throws -> DrainReport {
        guard let transport = scheduling.running?.transport else { throw OutboxError.request(.notStarted) }
        return try await sendNow(id: id, using: transport)
    }

    /// Every event from now on (see `OutboxEvent`), each fact once. For a list of the queue,
    /// `snapshots` is simpler.
    ///
    /// ```swift
    /// for await event in outbox.events {
    ///     if case .stateChanged(let id, .parked(let reason), _) = event {
    ///         logger.notice("\(id) parked: \(reason)")
    ///     }
    /// }
    /// ```
    ///
    /// Each read of this property subscribes anew: it starts a new stream, with the events from
    /// that moment on, and many may be open at once (read it once per consumer and keep the
    /// stream). A stream ends when its consumer stops iterating (its task is cancelled, or it
    /// leaves the loop) or when the outbox is deallocated. A consumer more than `512` events
    /// behind loses the oldest; the next `snapshot()` has the truth.
    public nonisolated var events: AsyncStream<OutboxEvent> { eventHub.stream() }

    /// The scheduler's loop: waits for a trigger, runs a pass, arms the timer for the next one.
    private func runSchedule() async {
        while let trigger = await nextTrigger() {
            guard let running = scheduling.running else { return }
            guard scheduling.isReachable else { continue }
            do {
                let report = try await drain(using: running.transport)
                eventHub.send(.drained(report, trigger: trigger))
                armTimer(retryAt: report.retryAt)
            } catch let error as OutboxError {
                eventHub.send(.drainFailed(error))
                armTimer(retryAt: nil)
            } catch {
                // Cancelled by `stop()`: `drainCancelled` told what the pass did.
                return
            }
        }
    }

    /// The next trigger, waiting for one; nil once the scheduler stops.
    private func nextTrigger() async -> DrainTrigger? {
        while !Task.isCancelled, scheduling.running != nil {
            if let trigger = scheduling.running?.pendingTrigger {
                scheduling.running?.pendingTrigger = nil
                return trigger
            }
            await withCheckedContinuation { scheduling.running?.wakeUp = $0 }
        }
        return nil
    }

    /// Asks the scheduler for a pass; one asked for during a pass runs right after it.
    private func wake(for trigger: DrainTrigger) {
        guard scheduling.running != nil else { return }
        if scheduling.running?.pendingTrigger == nil { scheduling.running?.pendingTrigger = trigger }
        scheduling.running?.wakeUp?.resume()
        scheduling.running?.wakeUp = nil
    }

    /// Arms the timer for the next automatic pass: after the interval, or when the first backoff
    /// ends if that is sooner.
    private func armTimer(retryAt: Date?) {
        guard let running = scheduling.running else { return }
        running.timer?.cancel()
        let now = configuration.now()
        let moment = min(now.addingTimeInterval(running.schedule.interval), max(now, retryAt ?? .distantFuture))
        let sleepUntil = running.schedule.sleepUntil
        scheduling.running?.nextPassAt = moment
        eventHub.changed()
        scheduling.running?.timer = Task { [weak self] in
            guard (try? await sleepUntil(moment)) != nil, !Task.isCancelled else { return }
            await self?.wake(for: .timer)
        }
    }

    /// One pass, and after it what the scheduler's running asks for: delivered entries retired,
    /// and records this version cannot read told once; and the store's free space given back.
    func passAndTidy(using transport: any Transport, honorsBackoff: Bool) async throws(OutboxError) -> DrainReport {
        var report = try await runPass(using: transport, honorsBackoff: honorsBackoff)
        await giveBackAbandonedResources(using: transport)
        defer { store.giveSpaceBack() }
        guard let running = scheduling.running else { return report }
        announceUnreadable(try list().unreadable)
        if running.schedule.retiresSynced { report.retired = try retireSynced() }
        return report
    }

    /// Tells the events what the write transactions that just committed queued, each entry's
    /// `added` followed by where it stands (pending, behind an earlier entry of its entity, or
    /// waiting for its network), so that a UI driven by events alone shows what a snapshot shows;
    /// and asks the scheduler for a pass.
    func announceCommittedInsertions() {
        let insertions = store.takeCommittedInsertions()
        guard !insertions.isEmpty else { return }
        for insertion in insertions {
            eventHub.send(.added(id: insertion.id, replacing: insertion.replaced))
            announceStatus(of: insertion.id)
        }
        wake(for: .enqueued)
    }

    /// Tells the events where an entry stands now, unless that is still `previous`. Best effort:
    /// an entry gone meanwhile, or a store that cannot be read this instant, tells nothing (the
    /// next snapshot will).
    ///
    /// - Returns: The status told; nil when none was.
    @discardableResult
    func announceStatus(of id: String, unlessStill previous: EntryStatus? = nil) -> EntryStatus? {
        guard eventHub.isFollowed, let entry = try? entry(id: id), entry.status != previous else { return nil }
        eventHub.send(statusEvent(of: entry))
        return entry.status
    }

    /// The event that tells where `entry` stands, with its last error as the reason of a status
    /// that follows a failure.
    func statusEvent(of entry: OutboxEntry) -> OutboxEvent {
        let status = entry.status
        let reason: String? =
            switch status {
            case .retrying, .waitingForSendNow, .parked: entry.lastError
            default: nil
            }
        return .stateChanged(id: entry.id, status: status, reason: reason)
    }

    /// Tells where a sent entry stands once its send ended and, when the engine has it now,
    /// where the entries of its entity that waited behind it stand.
    ///
    /// - Parameter previous: The status told before the send, when the send never showed as
    ///   `sending`: an entry back where it was tells nothing.
    func announceSendEnded(_ entry: OutboxEntry, unlessStill previous: EntryStatus? = nil) {
        guard announceStatus(of: entry.id, unlessStill: previous) == .delivered else { return }
        announceEntityMovedOn(entity: entry.entity, after: entry.sequence)
    }

    /// Tells where each later entry of `entity` stands once the one at `sequence`, which led its
    /// entity (nothing before it was waiting), has reached the engine or is gone: the first of
    /// them that the engine does not have leads now, and the others wait behind it instead. One
    /// read of the entity's records that wait, however long its chain. Only a queued entry's
    /// status says what it waits behind.
    func announceEntityMovedOn(entity: String?, after sequence: Int64) {
        guard eventHub.isFollowed, let entity,
            let waiting = try? store.unsettledRecords(ofEntity: entity, after: sequence),
            let leader = waiting.first
        else { return }
        for record in waiting {
            guard var entry = record.entry, entry.state == .queued else { continue }
            entry.blockedBy = record.sequence == leader.sequence ? nil : leader.name
            entry.waitsForNetwork = awaitedNetwork(of: entry)
            eventHub.send(statusEvent(of: entry))
        }
    }

    /// Tells the events, once per outbox value, of each record this version cannot read.
    func announceUnreadable(_ unreadable: [UnreadableEntry]) {
        for record in unreadable where scheduling.toldUnreadable.insert(record.sequence).inserted {
            eventHub.send(.unreadableFound(record))
        }
    }
}

/// What the scheduler keeps on the outbox's actor.
struct Scheduling {
    /// What the app last said about the network.
    var isReachable = true
    /// What kind of network the app last said it is, or the transport found.
    var network = NetworkPath.unmetered
    /// The unreadable records already told, by sequence number.
    var toldUnreadable: Set<Int64> = []
    /// The scheduler, while it runs.
    var running: Running?

    /// A running scheduler.
    struct Running {
        let transport: any Transport
        let schedule: Outbox.Schedule
        /// The loop that runs the passes.
        var loop: Task<Void, Never>?
        /// The timer of the next automatic pass.
        var timer: Task<Void, Never>?
        /// When that pass is due.
        var nextPassAt: Date?
        /// The loop, while it waits for a trigger.
        var wakeUp: CheckedContinuation<Void, Never>?
        /// The trigger of the next pass, when one was asked for.
        var pendingTrigger: Outbox.DrainTrigger?
    }
}

import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox drain` and `outbox send-now`: passes over the queue through the HTTP transport, each
/// followed by retiring what the engine took.
struct DrainCommand {
    let options: CommandLineOptions.DrainOptions

    /// The outbox's configuration for sending: the backoff asked for, and progress on the terminal.
    static func configuration(_ options: CommandLineOptions.DrainOptions) -> Outbox.Configuration {
        var configuration = StoreConfiguration.relaying
        configuration.backoff = Backoff(initialDelay: options.retryDelay, automaticRetryLimit: options.retryLimit)
        configuration.onProgress = { Terminal.progress.show($0) }
        return configuration
    }

    private var transport: HTTPTransport {
        HTTPTransport(
            configuration: HTTPTransport.Configuration(
                engineURL: options.engineURL, idleTimeout: options.timeout,
                requestTimeout: max(300, options.timeout * 10)))
    }

    /// Drains once, the way someone asking for it wants (now, whatever the backoff), and with
    /// `--watch` goes on with the library's scheduler: automatic passes every interval, sooner
    /// when a failed send's backoff ends, each one's retired ids printed as it ends. SIGINT or
    /// SIGTERM cancels the drain and stops the scheduler: a send in flight goes back to the queue
    /// unsent, and the summary says what is left.
    ///
    /// - Returns: The exit status: 0 when nothing is left queued, 1 otherwise.
    func run(store: Outbox, stop: StopSignal) async -> Int32 {
        let transport = transport
        let interval = options.watchInterval
        let network = options.network
        let work = Task { () async -> Int32 in
            do {
                await store.connectivityChanged(isReachable: true, network: network)
                let queued = try await store.list().entries
                let events = store.events
                let report = try await Self.reportEvenIfCancelled(events) { try await store.drainNow(using: transport) }
                try await Self.conclude(report, store: store, isWatching: interval != nil)
                if let interval { try await Self.watch(store, transport: transport, interval: interval) }
                return try await Self.summarize(store, queued: queued, network: network)
            } catch {
                Terminal.progress.clear()
                Terminal.writeError("outbox: error: \(error)\n")
                // A store no longer at its folder is not the one to change.
                if case OutboxError.store(.replaced) = error { return 1 }
                await Self.retireAfterFailure(store)
                return 1
            }
        }
        stop.onStop { work.cancel() }
        return await work.value
    }

    /// After a pass that failed part-way (on a full disk, say): retires what the engine took
    /// before the failure, its ids on stdout, so that its space comes back at once; when even
    /// that fails, names those entries, so that nobody sends them again by hand; and names the
    /// one whose send the failure cut short, which the engine may have.
    static func retireAfterFailure(_ store: Outbox) async {
        do throws(OutboxError) {
            let retired = try await store.retireSynced()
            if !retired.isEmpty { Terminal.writeOutput(retired.map { $0 + "\n" }.joined()) }
        } catch {
            let entries = (try? await store.list().entries) ?? []
            let delivered = entries.filter { $0.state == .synced }.map { "'\($0.id)'" }
            if !delivered.isEmpty {
                Terminal.writeError(
                    "outbox: delivered, but not retired yet (the next drain retires them): "
                        + delivered.joined(separator: ", ") + ".\n")
            }
        }
        let cutShort = ((try? await store.list().entries) ?? []).filter { $0.state == .syncing }.map { "'\($0.id)'" }
        if !cutShort.isEmpty {
            Terminal.writeError(
                "outbox: the failure came while \(cutShort.joined(separator: ", ")) was being sent: the engine may"
                    + " have it, and the next drain sends it again, which the engine keeps once.\n")
        }
    }

    /// Runs the scheduler until the task is cancelled, concluding after each of its passes.
    private static func watch(_ store: Outbox, transport: HTTPTransport, interval: Double) async throws(OutboxError) {
        let events = store.events
        // The pass just made went now; the scheduler's first one would find nothing due.
        try await store.start(transport: transport, schedule: Outbox.Schedule(interval: interval))
        for await event in events {
            switch event {
            case .drained(let report, _): try await conclude(report, store: store, isWatching: true)
            case .drainFailed(.store(.replaced(let path, let reason))):
                // Every later pass would fail the same way, or send from a file nobody sees.
                await store.stop()
                throw .store(.replaced(path: path, reason: reason))
            case .drainFailed(let error):
                Terminal.writeError("outbox: error: \(error)\n")
                await retireAfterFailure(store)
            default: break
            }
        }
        await store.stop()
    }

    /// Sends one entry now, then drains the rest as usual; SIGINT or SIGTERM cancels it as for `run`.
    ///
    /// - Returns: The exit status: 0 when the engine took the entry, 1 otherwise.
    func sendNow(id: String, store: Outbox, stop: StopSignal) async -> Int32 {
        let transport = transport
        let network = options.network
        let work = Task { () async -> Int32 in
            do {
                await store.connectivityChanged(isReachable: true, network: network)
                let queued = try await store.list().entries
                let events = store.events
                let report = try await Self.reportEvenIfCancelled(events) {
                    try await store.sendNow(id: id, using: transport)
                }
                try await Self.conclude(report, store: store, isWatching: false)
                _ = try await Self.summarize(store, queued: queued, network: network)
                guard report.synced.contains(id) else {
                    let reason = try await store.entry(id: id)?.lastError ?? "it was not sent"
                    Terminal.writeError(
                        "outbox: error: \(Terminal.sentence("The entry '\(id)' did not reach the engine: \(reason)"))\n"
                    )
                    return 1
                }
                return 0
            } catch {
                Terminal.writeError("outbox: error: \(error)\n")
                return 1
            }
        }
        stop.onStop { work.cancel() }
        return await work.value
    }

    /// What `drain` did: its report, or when the drain was cancelled (SIGINT, SIGTERM), the report
    /// of what it did before, which the outbox tells in `events`. The command's own drain is the
    /// only one in the process, so it runs the pass and the event always comes.
    ///
    /// - Parameters:
    ///   - events: A stream of the outbox's events opened before the drain started.
    ///   - drain: The drain.
    static func reportEvenIfCancelled(
        _ events: AsyncStream<OutboxEvent>, _ drain: () async throws -> DrainReport
    ) async throws -> DrainReport {
        do {
            return try await drain()
        } catch is CancellationError {
            // Read in a task of its own: the cancelled one's iteration would end at once.
            let told = await Task { () async -> DrainReport? in
                for await event in events { if case .drainCancelled(let report) = event { return report } }
                return nil
            }.value
            guard let told else { throw CancellationError() }
            return told
        }
    }

    /// After a pass: retires what synced (its ids on stdout), and says why the pass stopped
    /// early, if it did. While watching, it also names what was parked (the summary at the end
    /// may be days away) and when the next automatic pass will retry.
    static func conclude(_ report: DrainReport, store: Outbox, isWatching: Bool) async throws(OutboxError) {
        Terminal.progress.clear()
        // The scheduler retires what it delivered itself; a pass of our own leaves it to us.
        let retired = report.retired + (try await store.retireSynced())
        if !retired.isEmpty { Terminal.writeOutput(retired.map { $0 + "\n" }.joined()) }
        for id in report.parked where isWatching {
            let reason = try await store.entry(id: id)?.lastError ?? "refused"
            Terminal.writeError("outbox: parked '\(id)': \(reason)\n")
        }
        if case .cancelled(let id) = report.halt {
            let unsent = id.map { " '\($0)' went back to the queue unsent, its attempt not counted." } ?? ""
            Terminal.writeError("outbox: interrupted.\(unsent)\n")
            return
        }
        guard case .transientFailure(let id, let reason) = report.halt else { return }
        var line = "outbox: stopped at '\(id)': \(reason)"
        if isWatching, let retryAt = report.retryAt {
            line += "; next automatic try in \(Int(max(0, retryAt.timeIntervalSinceNow).rounded(.up))) s"
        } else if try await store.entry(id: id)?.isWaitingForSendNow == true {
            line += "; its automatic retries ran out (use 'outbox send-now \(id)')"
        }
        Terminal.writeError(Terminal.sentence(line) + "\n")
    }

    /// The last word: what is left, and every parked entry with its reason.
    ///
    /// - Parameters:
    ///   - queued: The entries before the drain, which say whether the store holds captures only
    ///     (then "captures"), also once they all went.
    ///   - network: The network `--network` named, for the entries that wait for another.
    /// - Returns: 0 when nothing is left queued or being sent but what waits behind an earlier
    ///   entry of its entity or for its network, 1 otherwise.
    static func summarize(_ store: Outbox, queued: [OutboxEntry], network: NetworkPath) async throws(OutboxError)
        -> Int32
    {
        let entries = try await store.list().entries
        let waiting = entries.filter { $0.state == .queued || $0.state == .syncing }
        let left = waiting.filter { $0.blockedBy == nil && $0.waitsForNetwork == nil }.count
        let blocked = waiting.count { $0.blockedBy != nil }
        let awaited = Set(waiting.compactMap { $0.blockedBy == nil ? $0.waitsForNetwork?.awaitedNetwork : nil })
        let forNetwork = waiting.count { $0.blockedBy == nil && $0.waitsForNetwork != nil }
        let parked = entries.filter { $0.state == .failedNeedsAttention }
        for entry in parked {
            Terminal.writeError(
                "outbox: \(Terminal.sentence("'\(entry.id)' needs attention: \(entry.lastError ?? "refused by the engine")"))"
                    + " Send it again with 'outbox send-now \(entry.id)' or remove it with 'outbox discard \(entry.id)'.\n"
            )
        }
        let behind =
            blocked == 0 ? "" : ", \(blocked) waiting behind an earlier one of \(blocked == 1 ? "its" : "their") entity"
        let held =
            forNetwork == 0
            ? ""
            : ", \(forNetwork) waiting for \(awaited.sorted().joined(separator: " or ")) (the network is \(network))"
        Terminal.writeError(
            "outbox: \(ListCommand.count(left, of: queued + entries)) left in the queue, \(parked.count) parked\(behind)"
                + "\(held).\n")
        return left == 0 ? 0 : 1
    }
}

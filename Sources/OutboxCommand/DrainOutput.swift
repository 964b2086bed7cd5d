import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `drain` and `send-now` print: the ids the engine took on stdout, and on stderr why a
/// pass stopped, what was parked and what is left.
enum DrainOutput {
    /// Runs the command's first pass, once the store knows the network `--network` named.
    ///
    /// - Returns: The entries before the pass, for `summarize`, and what the pass did.
    static func pass(
        on store: Outbox, network: NetworkPath, _ pass: () async throws -> DrainReport
    ) async throws -> (queued: [OutboxEntry], report: DrainReport) {
        await store.connectivityChanged(isReachable: true, network: network)
        let queued = try await store.list().entries
        let report = try await reportEvenIfCancelled(store.events, pass)
        return (queued, report)
    }

    /// What `drain` did: its report, or when the drain was cancelled (SIGINT, SIGTERM), the report
    /// of what it did before, which the outbox tells in `events`. The command's own drain is the
    /// only one in the process, so it runs the pass and the event always comes.
    ///
    /// - Parameters:
    ///   - events: A stream of the outbox's events opened before the drain started.
    ///   - drain: The drain.
    private static func reportEvenIfCancelled(
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

import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox drain`: passes over the queue through the HTTP transport, each followed by retiring
/// what the engine took.
struct DrainCommand: Subcommand {
    let settings: DrainSettings
    /// `--watch`: the interval of the scheduler's passes after the first one; nil for one pass.
    let watchInterval: Double?
    let store: StoreLocation

    static let name = "drain"
    static let summary = HelpText.Entry(
        "drain --engine <url>", "Send the queue to the engine, and retire what it took.")
    static let usage = "outbox --store <folder> drain --engine <url> [--watch <seconds>] [--network <kind>]"

    static let watch = Option(
        "watch", value: .required(placeholder: "seconds"),
        help:
            "Keep draining with the library's scheduler: a pass every <seconds>, and sooner when a failed send's backoff ends, until Ctrl-C or SIGTERM."
    )

    static let options = DrainSettings.options([watch])

    static let help = HelpText(
        overview: "Send the queue to the engine in queue order, and retire what it took.",
        usage: usage,
        sections: [
            .options(title: "OPTIONS", options + [OutboxTool.commandHelp]),
            .text(
                title: nil,
                """
                The first pass is the one you asked for, like pull to refresh: it tries every queued
                entry now, whatever its backoff or retry count. The later passes of --watch are
                automatic: they keep to the backoff and the retry limit, and pass over an entry that
                is backing off. A pass stops at the first failure that may pass (no connection, a
                timeout, HTTP 409, 429 or 5xx, or a success that is not the engine's own answer, such
                as a Wi-Fi login page); the engine's Retry-After, up to an hour, holds every
                automatic pass back until it has passed; an entry
                the engine refuses for good (HTTP 422 and other 4xx), or whose file is missing, is
                parked and the pass goes on. Operations on one entity go in the order they were
                queued: those behind one that is parked, backing off or unreadable wait, and other
                entities go on.

                Ctrl-C or SIGTERM stops the drain at once: an entry being sent goes back to the
                queue unsent, its attempt not counted. A second one exits without waiting.
                """),
            .text(
                title: "OUTPUT",
                """
                The ids the engine took, one per line on stdout, as each pass retires them; what is
                left and the parked entries with their reasons on stderr; on a terminal, the upload's
                progress on stderr.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when nothing is left queued (parked entries, and those waiting behind them, wait for
                you and do not count), 1 otherwise, 2 for a usage error.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        watchInterval = try arguments.parsed.number(Self.watch, in: 0.01...86_400, unit: "seconds")
        settings = try DrainSettings(arguments.parsed)
        try arguments.parsed.expectNoArguments()
        store = try arguments.store()
    }

    /// Drains once, the way someone asking for it wants (now, whatever the backoff), and with
    /// `--watch` goes on with the library's scheduler: automatic passes every interval, sooner
    /// when a failed send's backoff ends, each one's retired ids printed as it ends. SIGINT or
    /// SIGTERM cancels the drain and stops the scheduler: a send in flight goes back to the queue
    /// unsent, and the summary says what is left.
    ///
    /// - Returns: The exit status: 0 when nothing is left queued, 1 otherwise.
    @MainActor
    func run() async -> Int32 {
        let interval = watchInterval
        let network = settings.network
        return await settings.run(on: store) { store, transport in
            do {
                let (queued, report) = try await DrainOutput.pass(on: store, network: network) {
                    try await store.drainNow(using: transport)
                }
                try await DrainOutput.conclude(report, store: store, isWatching: interval != nil)
                if let interval { try await Self.watch(store, transport: transport, interval: interval) }
                return try await DrainOutput.summarize(store, queued: queued, network: network)
            } catch {
                Terminal.progress.clear()
                Terminal.writeError("outbox: error: \(error)\n")
                // A store no longer at its folder is not the one to change.
                if case OutboxError.store(.replaced) = error { return 1 }
                await DrainOutput.retireAfterFailure(store)
                return 1
            }
        }
    }

    /// Runs the scheduler until the task is cancelled, concluding after each of its passes.
    private static func watch(_ store: Outbox, transport: HTTPTransport, interval: Double) async throws(OutboxError) {
        let events = store.events
        // The pass just made went now; the scheduler's first one would find nothing due.
        try await store.start(transport: transport, schedule: Outbox.Schedule(interval: interval))
        for await event in events {
            switch event {
            case .drained(let report, _): try await DrainOutput.conclude(report, store: store, isWatching: true)
            case .drainFailed(.store(.replaced(let path, let reason))):
                // Every later pass would fail the same way, or send from a file nobody sees.
                await store.stop()
                throw .store(.replaced(path: path, reason: reason))
            case .drainFailed(let error):
                Terminal.writeError("outbox: error: \(error)\n")
                await DrainOutput.retireAfterFailure(store)
            default: break
            }
        }
        await store.stop()
    }
}

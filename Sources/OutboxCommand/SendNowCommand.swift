import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox send-now`: sends one entry now, ahead of the queue and of its backoff, then drains the
/// rest as `drain` does.
struct SendNowCommand: Subcommand {
    let id: String
    let settings: DrainSettings
    let store: StoreLocation

    static let name = "send-now"
    static let summary = HelpText.Entry("send-now <id>", "Send one entry now, even a parked one, then the rest.")
    static let usage = "outbox --store <folder> send-now <id> --engine <url>"
    static let options = DrainSettings.options()

    static let help = HelpText(
        overview: """
            Send one entry now, ahead of the queue and of its backoff, even a parked one or one whose \
            automatic retries ran out; then drain the rest as usual, the entries of its entity that \
            waited behind it included.
            """,
        usage: usage,
        sections: [
            .entries(title: "ARGUMENTS", [.init("<id>", "The entry's id, as add or op printed it and list shows it.")]),
            .options(title: "OPTIONS", options + [OutboxTool.commandHelp]),
            .text(
                title: nil,
                """
                An entry that waits behind an earlier one of its entity is not sent out of turn: send
                or discard that one first. Ctrl-C or SIGTERM stops it as it stops drain.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when the engine took the entry, 1 otherwise, 2 for a usage error.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        settings = try DrainSettings(arguments.parsed)
        id = try arguments.parsed.onlyArgument("<id>").text(for: "<id>")
        store = try arguments.store()
    }

    /// Sends the entry, then drains the rest as usual; SIGINT or SIGTERM cancels it as it cancels
    /// `drain`.
    ///
    /// - Returns: The exit status: 0 when the engine took the entry, 1 otherwise.
    @MainActor
    func run() async -> Int32 {
        let network = settings.network
        let id = id
        return await settings.run(on: store) { store, transport in
            do {
                let (queued, report) = try await DrainOutput.pass(on: store, network: network) {
                    try await store.sendNow(id: id, using: transport)
                }
                try await DrainOutput.conclude(report, store: store, isWatching: false)
                _ = try await DrainOutput.summarize(store, queued: queued, network: network)
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
    }
}

import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox discard`: deletes an entry and its files without sending it.
struct DiscardCommand: Subcommand {
    let id: String
    let store: StoreLocation

    static let name = "discard"
    static let summary = HelpText.Entry("discard <id>", "Delete an entry from the outbox without sending it.")
    static let usage = "outbox --store <folder> discard <id>"
    static let options: [Option] = []

    static let help = HelpText(
        overview: """
            Delete an entry from the outbox, its photos and other files included, without sending it. \
            What the engine already received stays there; the entries of its entity that waited behind \
            it go on.
            """,
        usage: usage,
        sections: [
            .entries(
                title: "ARGUMENTS",
                [
                    .init(
                        "<id>",
                        "The entry's id, as add or op printed it and list shows it; for a record without a valid id, "
                            + "'#SEQUENCE' as list shows it (quoted: '#' starts a comment in a shell).")
                ]),
            .options(title: "OPTIONS", [OutboxTool.commandHelp]),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was deleted, 1 when the outbox holds no such entry, 2 for a usage error.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        id = try arguments.parsed.onlyArgument("<id>").text(for: "<id>")
        store = try arguments.store()
    }

    /// - Returns: The exit status: 0 when the entry was deleted, 1 otherwise.
    func run() async -> Int32 {
        do {
            try await store.open().discard(id: id)
            Terminal.writeError("outbox: discarded '\(id)'.\n")
            return 0
        } catch {
            Terminal.writeError("outbox: error: \(store.describe(error))\n")
            return 1
        }
    }
}

import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox list`: the entries in capture order, as a table or as JSON lines.
struct ListCommand: Subcommand {
    let emitsJSON: Bool
    /// The network the machine is on (`--network`), for the entries that wait for theirs.
    let network: NetworkPath
    let store: StoreLocation

    static let name = "list"
    static let summary = HelpText.Entry("list", "Show what the outbox holds.")
    static let usage = "outbox --store <folder> list [--json] [--network <kind>]"

    enum Options {
        static let json = Option(
            "json",
            help: """
                One JSON object per entry on stdout: {"id", "state", "attempts", "lastError", "nextAttemptAt", \
                "waitsForSendNow", "entity", "type", "blockedBy", "status", "waitsForNetwork"}, then one last line \
                {"unreadable": N}, the records this version cannot read (kept on the device, never sent). state is the \
                stored state (QUEUED, SYNCING, SYNCED, FAILED_NEEDS_ATTENTION), status the word the table shows; \
                blockedBy is the id of the earlier entry of the same entity that it waits behind, or null; \
                waitsForNetwork the network it waits for ("Wi-Fi"), or null.
                """)
    }

    static let options = [Options.json, NetworkOption.option]

    static let help = HelpText(
        overview: "Show what the outbox holds, in queue order.",
        usage: usage,
        sections: [
            .options(title: "OPTIONS", options + [OutboxTool.commandHelp]),
            .entries(
                title: "STATUS",
                [
                    .init("pending", "Queued; the next drain sends it."),
                    .init("sending", "Being sent by a drain right now."),
                    .init(
                        "retrying",
                        "Queued after a failure that may pass; automatic passes wait until its next try (shown)."),
                    .init("needs-send-now", "Its automatic retries ran out: only send-now sends it again."),
                    .init("blocked", "Waits behind an earlier entry of its entity (shown), which must go first."),
                    .init(
                        "waits-network",
                        "Not sent on the network --network names (a photo on a metered one): waits for Wi-Fi, using no retry."
                    ),
                    .init(
                        "parked",
                        "The engine refused it, or its file is gone; see LAST ERROR, then send-now or discard."),
                    .init("delivered", "The engine has it; the next drain retires it."),
                    .init(
                        "unreadable",
                        "This version cannot read the record (see LAST ERROR): never sent, kept until discarded."),
                ]),
            .text(
                title: nil,
                """
                The table shows each entry's type and entity once the store holds more than photo
                captures, and what holds an entry back where the last error goes. A store this user
                may read but not change (another user's, a read-only disk) is read as it is, without
                changing anything, and a note on stderr says so.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        try arguments.parsed.expectNoArguments()
        emitsJSON = arguments.parsed.has(Options.json)
        network = try NetworkOption.read(arguments.parsed)
        store = try arguments.store()
    }

    /// Prints the listing of the store. A store this user may read but not change (another
    /// user's, a read-only file system) is read without changing anything, and a note on stderr
    /// says so: nothing in it needs writing for a listing.
    ///
    /// - Returns: The exit status: 0, or 1 when the store cannot be read.
    func run() async -> Int32 {
        let listing: OutboxListing
        let folder = store.folder
        let configuration = store.keyed(StoreConfiguration.relaying)
        do throws(OutboxError) {
            do throws(OutboxError) {
                let store = try Outbox(folder: folder, configuration: configuration)
                await store.connectivityChanged(isReachable: true, network: network)
                listing = try await store.list()
            } catch .store(.notWritable(_, let cause)) {
                listing = try Outbox.readOnlyListing(folder: folder, configuration: configuration, network: network)
                Terminal.writeError(
                    "outbox: note: '\(folder.path)' cannot be changed by this user (\(cause)), so it was"
                        + " read as it is on disk, without recovering or changing anything.\n")
            } catch let error where Self.mayListWithoutWriting(after: error) {
                // A full disk, say: opening for writing needs a byte or two, a listing none.
                guard
                    let readOnly = try? Outbox.readOnlyListing(
                        folder: folder, configuration: configuration, network: network)
                else {
                    throw error
                }
                listing = readOnly
                Terminal.writeError(
                    "outbox: note: '\(folder.path)' was read as it is on disk, without recovering or changing"
                        + " anything, since it could not be opened for writing: \(error)\n")
            }
        } catch {
            Terminal.writeError("outbox: error: \(store.describe(error))\n")
            return 1
        }
        if emitsJSON {
            let lines =
                listing.entries.map(Self.jsonLine) + listing.unreadable.map(Self.jsonLine)
                + ["{\"unreadable\":\(listing.unreadable.count)}"]
            Terminal.writeOutput(lines.joined(separator: "\n") + "\n")
        } else {
            Terminal.writeOutput(Self.table(listing))
        }
        return 0
    }

    /// Whether opening failed for want of writing (SQLite's or the folder's), rather than for
    /// the key or the schema: then the store can still be read as it is on disk.
    static func mayListWithoutWriting(after error: OutboxError) -> Bool {
        switch error {
        case .store(.database), .store(.folder), .media(.write), .media(.remove): true
        default: false
        }
    }
}

import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox list`: the entries in capture order, as a table or as JSON lines.
struct ListCommand {
    let emitsJSON: Bool

    /// Prints the listing of the store in `folder`. A store this user may read but not change
    /// (another user's, a read-only file system) is read without changing anything, and a note
    /// on stderr says so: nothing in it needs writing for a listing.
    ///
    /// - Returns: The exit status: 0, or 1 when the store cannot be read.
    func run(folder: URL) async -> Int32 {
        let listing: OutboxListing
        do throws(OutboxError) {
            do throws(OutboxError) {
                listing = try await Outbox(folder: folder).list()
            } catch .notWritable(_, let reason) {
                listing = try Outbox.readOnlyListing(folder: folder)
                Terminal.writeError(
                    "outbox: note: '\(folder.path)' cannot be changed by this user (\(reason)), so it was"
                        + " read as it is on disk, without recovering or changing anything.\n")
            }
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            return 1
        }
        if emitsJSON {
            let lines = listing.entries.map(Self.jsonLine) + ["{\"unreadable\":\(listing.unreadable.count)}"]
            Terminal.writeOutput(lines.joined(separator: "\n") + "\n")
        } else {
            Terminal.writeOutput(Self.table(listing))
        }
        return 0
    }

    /// `{"id":…,"state":…,"attempts":…,"lastError":…,"nextAttemptAt":…,"waitsForSendNow":…}`, every
    /// key always there and always in this order, so that people can read the lines too.
    static func jsonLine(_ entry: OutboxEntry) -> String {
        let fields: [(String, String)] = [
            ("id", json(entry.id)), ("state", json(entry.state.rawValue)), ("attempts", String(entry.attempts)),
            ("lastError", json(entry.lastError)), ("nextAttemptAt", json(entry.nextAttemptAt?.formatted(.iso8601))),
            ("waitsForSendNow", String(entry.isWaitingForSendNow)),
        ]
        return "{" + fields.map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}"
    }

    /// A string as JSON, or `null`.
    private static func json(_ text: String?) -> String {
        guard let text else { return "null" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding a string cannot fail.
        return String(decoding: try! encoder.encode(text), as: UTF8.self)
    }

    /// A table for people, with a count of what is in each state and of unreadable records.
    static func table(_ listing: OutboxListing) -> String {
        guard !listing.entries.isEmpty || !listing.unreadable.isEmpty else { return "The outbox is empty.\n" }
        let idWidth = max(2, listing.entries.map(\.id.count).max() ?? 0)
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }
        func row(_ columns: [String]) -> String {
            var line = padded(columns[0], idWidth + 2) + padded(columns[1], 24) + padded(columns[2], 10) + columns[3]
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }
        var text = row(["ID", "STATE", "ATTEMPTS", "LAST ERROR"])
        for entry in listing.entries {
            text += row([entry.id, entry.state.rawValue, String(entry.attempts), entry.lastError ?? ""])
        }
        let counts = OutboxEntry.State.allCases.compactMap { state -> String? in
            let count = listing.entries.filter { $0.state == state }.count
            return count == 0 ? nil : "\(count) \(state.rawValue)"
        }
        let total = listing.entries.count
        text +=
            "\(total) capture\(total == 1 ? "" : "s")" + (counts.isEmpty ? "" : ": " + counts.joined(separator: ", "))
        let unreadable = listing.unreadable.count
        text += "; \(unreadable) record\(unreadable == 1 ? "" : "s") this version cannot read.\n"
        return text
    }
}

import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox list`: the entries in capture order, as a table or as JSON lines.
struct ListCommand {
    let emitsJSON: Bool
    /// The network the machine is on (`--network`), for the entries that wait for theirs.
    let network: NetworkPath

    /// Prints the listing of the store in `folder`. A store this user may read but not change
    /// (another user's, a read-only file system) is read without changing anything, and a note
    /// on stderr says so: nothing in it needs writing for a listing.
    ///
    /// - Returns: The exit status: 0, or 1 when the store cannot be read.
    func run(folder: URL, keyFile: KeyFile?) async -> Int32 {
        let listing: OutboxListing
        var configuration = StoreConfiguration.relaying
        configuration.keyProvider = keyFile
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
            Terminal.writeError("outbox: error: \(describe(error))\n")
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

    /// `{"id":…,"state":…,"attempts":…,"lastError":…,"nextAttemptAt":…,"waitsForSendNow":…,
    /// "entity":…,"type":…,"blockedBy":…,"status":…,"waitsForNetwork":…}`, every key always there
    /// and always in this order, so that people can read the lines too. `status` is the table's
    /// word (`statusWord`); new keys go last, so that the lines of earlier versions stay a prefix
    /// of these.
    static func jsonLine(_ entry: OutboxEntry) -> String {
        let fields: [(String, String)] = [
            ("id", json(entry.id)), ("state", json(entry.state.rawValue)), ("attempts", String(entry.attempts)),
            ("lastError", json(entry.lastError)), ("nextAttemptAt", json(entry.nextAttemptAt?.formatted(.iso8601))),
            ("waitsForSendNow", String(entry.isWaitingForSendNow)), ("entity", json(entry.entity)),
            ("type", json(entry.type)), ("blockedBy", json(entry.blockedBy)),
            ("status", json(statusWord(entry.status))),
            ("waitsForNetwork", json(entry.waitsForNetwork?.awaitedNetwork)),
            ("history", "[" + entry.history.map { json($0) }.joined(separator: ",") + "]"),
        ]
        return "{" + fields.map { "\"\($0)\":\($1)" }.joined(separator: ",") + "}"
    }

    /// `{"unreadable":{"name":…,"id":…,"sequence":…,"reason":…}}`: a record this version cannot
    /// read, by the name `discard` takes (its id, or `#SEQUENCE` when it has none), and why.
    /// Under its own key, so that nothing reading the entries' lines by `id` takes it for one;
    /// the last line stays the count.
    static func jsonLine(_ record: UnreadableEntry) -> String {
        "{\"unreadable\":{\"name\":\(json(record.name)),\"id\":\(json(record.id)),\"sequence\":\(record.sequence),"
            + "\"reason\":\(json(record.reason))}}"
    }

    /// A string as JSON, or `null`.
    private static func json(_ text: String?) -> String {
        guard let text else { return "null" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Encoding a string cannot fail.
        return String(decoding: try! encoder.encode(text), as: UTF8.self)
    }

    /// Where an entry stands, in one word, as the library's `EntryStatus` says it: the table's
    /// STATUS and the JSON's `status`.
    static func statusWord(_ status: EntryStatus) -> String {
        switch status {
        case .pending: "pending"
        case .sending: "sending"
        case .retrying: "retrying"
        case .waitingForSendNow: "needs-send-now"
        case .parked: "parked"
        case .blocked: "blocked"
        case .waitingForNetwork: "waits-network"
        case .delivered: "delivered"
        }
    }

    /// The words that go with a status where the last error goes: when a retrying entry is
    /// tried next, what a blocked one waits behind, that one out of retries waits for send-now.
    private static func statusNote(_ status: EntryStatus) -> String? {
        switch status {
        case .retrying(let moment): "next try at \(moment.formatted(.iso8601))"
        case .blocked(let blocker): "waits behind '\(blocker)'"
        case .waitingForSendNow: "automatic retries ran out: use send-now"
        case .waitingForNetwork(let network): "waits for \(network.awaitedNetwork)"
        default: nil
        }
    }

    /// The statuses in the order the table's count names them.
    private static let statusOrder = [
        "pending", "sending", "retrying", "needs-send-now", "waits-network", "blocked", "parked", "delivered",
    ]

    /// A table for people, with a count of the entries in each status and of unreadable records.
    ///
    /// A store of photo captures only shows the columns it always showed; one with other
    /// operations also shows each entry's type and entity. What holds an entry back (its next
    /// try, the entry it waits behind) goes where the last error goes.
    static func table(_ listing: OutboxListing) -> String {
        guard !listing.entries.isEmpty || !listing.unreadable.isEmpty else { return "The outbox is empty.\n" }
        let showsOperations = !listing.entries.allSatisfy(\.isCapture)
        func width(_ title: String, _ values: [String]) -> Int { max(title.count, values.map(\.count).max() ?? 0) + 2 }
        let idWidth = width("ID", listing.entries.map(\.id) + listing.unreadable.map(\.name))
        let typeWidth = width("TYPE", listing.entries.map(\.type))
        let entityWidth = width("ENTITY", listing.entries.map { $0.entity ?? "-" })
        func padded(_ text: String, _ width: Int) -> String {
            text + String(repeating: " ", count: max(0, width - text.count))
        }
        func row(id: String, type: String, entity: String, state: String, attempts: String, note: String) -> String {
            var line = padded(id, idWidth)
            if showsOperations { line += padded(type, typeWidth) + padded(entity, entityWidth) }
            line += padded(state, 16) + padded(attempts, 10) + note
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }
        var text = row(
            id: "ID", type: "TYPE", entity: "ENTITY", state: "STATUS", attempts: "ATTEMPTS", note: "LAST ERROR")
        for entry in listing.entries {
            let note = [statusNote(entry.status), entry.lastError].compactMap { $0 }.joined(separator: "; ")
            text += row(
                id: entry.id, type: entry.type, entity: entry.entity ?? "-", state: statusWord(entry.status),
                attempts: String(entry.attempts), note: note)
        }
        // Each by the name discard takes, with the reason: a count alone lets nobody act on one.
        for record in listing.unreadable {
            text += row(
                id: record.name, type: "?", entity: "?", state: "unreadable", attempts: "?", note: record.reason)
        }
        let words = listing.entries.map { statusWord($0.status) }
        let counts = statusOrder.compactMap { word -> String? in
            let count = words.count { $0 == word }
            return count == 0 ? nil : "\(count) \(word)"
        }
        text +=
            count(listing.entries.count, of: listing.entries)
            + (counts.isEmpty ? "" : ": " + counts.joined(separator: ", "))
        let unreadable = listing.unreadable.count
        text += "; \(unreadable) record\(unreadable == 1 ? "" : "s") this version cannot read.\n"
        return text
    }
}

extension ListCommand {
    /// "3 captures" when every entry is a photo capture, else "3 entries": the words a person
    /// who only adds photos has always read.
    static func count(_ count: Int, of entries: [OutboxEntry]) -> String {
        !entries.isEmpty && entries.allSatisfy(\.isCapture)
            ? "\(count) capture\(count == 1 ? "" : "s")" : "\(count) entr\(count == 1 ? "y" : "ies")"
    }
}

extension OutboxEntry {
    /// Whether the entry is a photo capture (what `add` queues).
    var isCapture: Bool { type == OperationType.captureCreate.name }
}

import Foundation

/// What a process that died mid-send left behind: entries still `SYNCING`, and files no record names.
extension OutboxStore {
    /// Puts `SYNCING` entries back to `QUEUED` when this opener is the only one left, as at open:
    /// a long-running drain (a `--watch` loop) then also recovers what a sibling process killed
    /// mid-send left behind. Call it only with nothing of this opener's own in flight.
    ///
    /// - Returns: the ids of the entries put back (those with a valid id), for the events.
    func recoverInterruptedSendsIfAlone() throws(OutboxError) -> [String] {
        guard lock.becomeSoleOpenerIfPossible() else { return [] }
        defer { try? lock.share(path: databaseURL.path) }
        // Alone, nothing else changes the states between the two statements.
        let interrupted = try database.query("SELECT id FROM \(Self.table) WHERE state = 'SYNCING'") { row in
            row.text(at: 0).flatMap { OutboxOperation.isValidID($0) ? $0 : nil }
        }
        guard try recoverInterruptedSends() > 0 else { return [] }
        return interrupted.compactMap { $0 }
    }

    /// Puts every `SYNCING` entry back to `QUEUED`: the process that was sending it is gone.
    ///
    /// - Returns: how many entries were put back.
    func recoverInterruptedSends() throws(OutboxError) -> Int {
        try database.run("UPDATE \(Self.table) SET state = 'QUEUED' WHERE state = 'SYNCING'")
        return database.changes
    }

    /// Removes media files that no record names, inside the write lock so that no enqueue can be
    /// half done. Keeps every file an unreadable record might name, and everything when a record's
    /// id itself cannot be read.
    ///
    /// - Returns: the names removed.
    func sweepUnnamedMedia() throws(OutboxError) -> [String] {
        try database.transaction { () throws(OutboxError) -> [String] in
            let records = try records()
            let unnamed = try media.regularFileNames().filter { name in
                !records.contains { $0.protects(name) }
            }
            guard !unnamed.isEmpty else { return [] }
            try media.remove(unnamed)
            try media.synchronize()
            return unnamed.sorted()
        }
    }
}

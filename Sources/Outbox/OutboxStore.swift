import Foundation

/// The records (SQLite) and the media files (a folder beside the database) of one outbox, and
/// every rule about the order in which the two are written. Synchronous and not `Sendable`: the
/// `Outbox` actor owns it and calls it from one task at a time.
///
/// The durability settings and the guarantees for several processes are stated on `Outbox`,
/// where callers read them; they are applied here.
final class OutboxStore {
    /// The schema this version writes; older databases migrate forward to it when they open.
    static let schemaVersion = 3
    /// The database file's name inside the outbox folder.
    static let databaseName = "outbox.sqlite"
    /// The media folder's name inside the outbox folder.
    static let mediaFolderName = "media"

    /// The database file.
    let databaseURL: URL
    /// The media files.
    let media: MediaFolder
    /// How many `SYNCING` entries this open put back to `QUEUED`.
    private(set) var recoveredAtOpen = 0
    /// The files this open removed because no record named them.
    private(set) var sweptAtOpen: [String] = []

    private let database: SQLiteDatabase
    private let lock: StoreLock

    /// Opens the outbox in `folder`, creating it when absent, migrating an older schema forward,
    /// and, when no one else has it open, recovering interrupted sends and sweeping unnamed files.
    ///
    /// - Throws: `notWritable` when the store is there but this process may not change it (then
    ///   `recordsReadingOnly(folder:)` can still read it); `folder` or `database` naming the cause
    ///   when it cannot be opened at all.
    init(folder: URL) throws(OutboxError) {
        try MediaFolder.makeFolder(folder)
        // SQLite needs to create its log files beside the database, so a folder this process
        // cannot write in is a store it cannot change, whatever its files allow.
        if let reason = MediaFolder.writeProblem(at: folder) { throw .notWritable(path: folder.path, reason: reason) }
        lock = try StoreLock(url: folder.appendingPathComponent("outbox.lock"))
        media = try MediaFolder(url: folder.appendingPathComponent(Self.mediaFolderName, isDirectory: true))
        databaseURL = folder.appendingPathComponent(Self.databaseName)
        database = try SQLiteDatabase(path: databaseURL.path)
        guard !database.isReadOnly else {
            throw .notWritable(path: databaseURL.path, reason: "the database file is read-only to this user")
        }
        try configure()
        try Self.migrate(database, media: media)
        try MediaFolder.synchronizeDirectory(folder)
        if lock.isSoleOpener {
            recoveredAtOpen = try recoverInterruptedSends()
            sweptAtOpen = try sweepUnnamedMedia()
            try lock.share(path: folder.path)
        }
    }

    /// Every record of the store in `folder`, read without writing anything there: for a store
    /// this process may read but not change (another user's, a read-only file system, a backup).
    ///
    /// The records are copied into a database in memory and migrated there, so that a store of
    /// an older schema reads like a current one. When SQLite cannot set up its shared memory
    /// beside a write-ahead-logged file (the folder is read-only), the file is read as immutable:
    /// as of its last checkpoint, which is all of it unless a writer died without closing it.
    ///
    /// - Throws: `unreadableStore` naming the cause when the database cannot be read at all;
    ///   `newerSchema`; `database` when SQLite fails.
    static func recordsReadingOnly(folder: URL) throws(OutboxError) -> [StoredRecord] {
        let databaseURL = folder.appendingPathComponent(databaseName)
        if let reason = MediaFolder.readProblem(at: databaseURL.path) {
            throw .unreadableStore(path: folder.path, reason: reason)
        }
        let media = try MediaFolder(url: folder.appendingPathComponent(mediaFolderName), isCreated: false)
        let database = try SQLiteDatabase.inMemory(describing: databaseURL.path)
        var found: Int
        do throws(OutboxError) {
            try database.run(
                "ATTACH DATABASE ? AS stored", .text(SQLiteDatabase.uri(forPath: databaseURL.path, query: "mode=ro")))
            found = try schemaVersion(of: database, schema: "stored")
        } catch {
            try? database.run("DETACH DATABASE stored")
            try database.run(
                "ATTACH DATABASE ? AS stored",
                .text(SQLiteDatabase.uri(forPath: databaseURL.path, query: "mode=ro&immutable=1")))
            found = try schemaVersion(of: database, schema: "stored")
        }
        guard found <= schemaVersion else {
            throw .newerSchema(path: databaseURL.path, version: found, supported: schemaVersion)
        }
        if found >= 1 { try database.run("CREATE TABLE main.entries AS SELECT * FROM stored.entries") }
        try database.run("DETACH DATABASE stored")
        try database.run("PRAGMA main.user_version = \(found)")
        try migrate(database, media: media)
        try database.run("PRAGMA query_only = ON")
        return try database.query("SELECT \(StoredRecord.columns) FROM entries ORDER BY sequence") { row in
            StoredRecord(row: row)
        }
    }

    private func configure() throws(OutboxError) {
        database.setBusyTimeout(milliseconds: 5000)
        let mode = try database.query("PRAGMA journal_mode=WAL") { row in row.text(at: 0) ?? "" }.first ?? ""
        guard mode.lowercased() == "wal" else { throw .walUnavailable(path: database.path, journalMode: mode) }
        try database.run("PRAGMA synchronous=FULL")
    }

    /// The value of a pragma on this connection (for example `synchronous`), for checking the settings.
    func pragma(_ name: String) throws(OutboxError) -> String? {
        try database.query("PRAGMA \(name)") { row in row.text(at: 0) ?? row.integer(at: 0).map(String.init) }.first
            ?? nil
    }

    // MARK: Reading

    /// Every record in capture order, readable or not.
    func records() throws(OutboxError) -> [StoredRecord] {
        try database.query("SELECT \(StoredRecord.columns) FROM entries ORDER BY sequence") { row in
            StoredRecord(row: row)
        }
    }

    /// The record with this id, readable or not; nil when there is none.
    func record(id: String) throws(OutboxError) -> StoredRecord? {
        try database.query("SELECT \(StoredRecord.columns) FROM entries WHERE id = ?", [.text(id)]) { row in
            StoredRecord(row: row)
        }.first
    }

    /// The readable entry with this id.
    ///
    /// - Throws: `notFound` when there is none, `unreadableEntry` when this version cannot read it.
    func entry(id: String) throws(OutboxError) -> OutboxEntry {
        guard let record = try record(id: id) else { throw .notFound(id: id) }
        return try record.readableEntry()
    }

    /// The first record after `sequence` in capture order that waits to be sent, readable or not.
    ///
    /// - Parameter includingThoseAwaitingSendNow: Whether entries whose automatic retries ran
    ///   out count too (for a drain someone asked for).
    func nextQueuedRecord(after sequence: Int64, includingThoseAwaitingSendNow: Bool = false) throws(OutboxError)
        -> StoredRecord?
    {
        try database.query(
            """
            SELECT \(StoredRecord.columns) FROM entries
            WHERE sequence > ? AND COALESCE(state, 'QUEUED') = 'QUEUED' AND (? OR COALESCE(awaits_send_now, 0) = 0)
            ORDER BY sequence LIMIT 1
            """, [.integer(sequence), .integer(includingThoseAwaitingSendNow ? 1 : 0)]
        ) { row in StoredRecord(row: row) }.first
    }

    // MARK: Writing

    /// Writes the capture's files (flushed, folder flushed) and then its record, all inside one
    /// write transaction; returns `.alreadyQueued` without writing anything when the id is taken.
    ///
    /// When anything before the commit fails, the files written so far are removed again. When
    /// the commit itself fails the outcome is uncertain (an fsync error may still have left the
    /// record on disk), so the files stay for the next open's sweep, which keeps them exactly when
    /// a record names them.
    func enqueue(_ capture: Capture, createdAt: Date, makeToken: () -> String) throws(OutboxError) -> EnqueueResult {
        try database.transaction { () throws(OutboxError) -> EnqueueResult in
            let taken = try database.query("SELECT 1 FROM entries WHERE id = ?", [.text(capture.id)]) { _ in true }
            if !taken.isEmpty { return .alreadyQueued }
            var files: [MediaFile] = []
            do throws(OutboxError) {
                for (index, bytes) in capture.uploads.enumerated() {
                    // A fresh token per write: a discard that removes an older entry's files after
                    // its record can never hit the files of a new entry that reuses the id.
                    let file = MediaFile(index: index, name: "\(capture.id).\(index).\(makeToken()).jpg")
                    try media.write(bytes, named: file.name)
                    files.append(file)
                }
                try media.synchronize()
                let intent: String
                do {
                    intent = String(decoding: try capture.intent.encodedRecord(), as: UTF8.self)
                } catch {
                    throw .encoding(id: capture.id, reason: (error as NSError).localizedDescription)
                }
                let list = StoredRecord.encodeMediaList(files)
                try database.run(
                    """
                    INSERT INTO entries (id, state, created_at, attempts, pending_media, owned_media, intent)
                    VALUES (?, ?, ?, 0, ?, ?, ?)
                    """,
                    .text(capture.id), .text(OutboxEntry.State.queued.rawValue),
                    .real(createdAt.timeIntervalSince1970), .text(list), .text(list), .text(intent))
            } catch {
                media.removeQuietly(files.map(\.name))
                throw error
            }
            return .enqueued
        }
    }

    /// Puts `SYNCING` entries back to `QUEUED` when this opener is the only one left, as at open:
    /// a long-running drain (a `--watch` loop) then also recovers what a sibling process killed
    /// mid-send left behind. Call it only with nothing of this opener's own in flight.
    ///
    /// - Returns: how many entries were put back.
    func recoverInterruptedSendsIfAlone() throws(OutboxError) -> Int {
        guard lock.becomeSoleOpenerIfPossible() else { return 0 }
        defer { try? lock.share(path: databaseURL.path) }
        return try recoverInterruptedSends()
    }

    /// Puts every `SYNCING` entry back to `QUEUED`: the process that was sending it is gone.
    ///
    /// - Returns: how many entries were put back.
    func recoverInterruptedSends() throws(OutboxError) -> Int {
        try database.run("UPDATE entries SET state = 'QUEUED' WHERE state = 'SYNCING'")
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

    /// Sets the state (and the error shown with it) of the entry with this id.
    ///
    /// - Returns: whether an entry changed.
    @discardableResult
    func setState(_ state: OutboxEntry.State, lastError: String?, id: String) throws(OutboxError) -> Bool {
        try database.run(
            "UPDATE entries SET state = ?, last_error = ? WHERE id = ?",
            .text(state.rawValue), lastError.map(SQLiteValue.text) ?? .null, .text(id))
        return database.changes > 0
    }

    /// Marks the entry as being sent, only when it is `QUEUED` (or has no state yet), and counts
    /// the attempt. The condition is the claim: of two drains in two processes, one wins.
    ///
    /// - Returns: whether this caller claimed it.
    func claim(id: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE entries SET state = 'SYNCING', attempts = \(Self.attemptsPlusOne)
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, .text(id))
        return database.changes > 0
    }

    /// The attempt count plus one, saturating at the largest integer instead of overflowing (SQLite
    /// would turn the sum into a REAL); a count that is not a whole number of 0 or more restarts at 1.
    private static let attemptsPlusOne = """
        CASE WHEN typeof(attempts) != 'integer' OR attempts < 0 THEN 1
            WHEN attempts = 9223372036854775807 THEN attempts ELSE attempts + 1 END
        """

    /// Puts an entry that was claimed but not sent back in the queue as it was: its attempt no
    /// longer counted, its error and schedule untouched. For a send that was cancelled (the app
    /// was suspended, the user pressed Ctrl-C), which is no failure.
    ///
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func returnUnsent(id: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE entries SET state = 'QUEUED',
                attempts = CASE WHEN typeof(attempts) = 'integer' AND attempts > 0 THEN attempts - 1 ELSE 0 END
            WHERE id = ? AND state = 'SYNCING'
            """, .text(id))
        return database.changes > 0
    }

    /// Parks a queued entry without sending it, because something on this device keeps it from
    /// being sent (its photo file is gone); no attempt is counted.
    ///
    /// - Returns: whether the entry was queued (and so is now parked).
    @discardableResult
    func park(id: String, reason: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE entries SET state = 'FAILED_NEEDS_ATTENTION', last_error = ?, transient_failures = 0,
                next_attempt_at = NULL, awaits_send_now = 0
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, .text(reason), .text(id))
        return database.changes > 0
    }

    /// Records how a send ended, only while the entry is still `SYNCING` (a discard or a
    /// `markSynced` during the send wins).
    ///
    /// - Parameters:
    ///   - state: The entry's new state.
    ///   - lastError: The failure's reason, or nil after a success.
    ///   - retry: The retry schedule; the default (no failures, no wait) after a success or a park.
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func finishSend(
        id: String, state: OutboxEntry.State, lastError: String?, retry: RetrySchedule = RetrySchedule()
    ) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE entries SET state = ?, last_error = ?, transient_failures = ?, next_attempt_at = ?,
                awaits_send_now = ?
            WHERE id = ? AND state = 'SYNCING'
            """,
            .text(state.rawValue), lastError.map(SQLiteValue.text) ?? .null, .integer(Int64(retry.transientFailures)),
            retry.nextAttemptAt.map { .real($0.timeIntervalSince1970) } ?? .null,
            .integer(retry.awaitsSendNow ? 1 : 0), .text(id))
        return database.changes > 0
    }

    /// Puts an entry back in the queue for the user's "send now": due at once, its failures
    /// forgotten, parked or not; its last error stays readable until the next send ends.
    func releaseForSendNow(id: String) throws(OutboxError) {
        try database.run(
            """
            UPDATE entries SET state = 'QUEUED', transient_failures = 0, next_attempt_at = NULL, awaits_send_now = 0
            WHERE id = ? AND COALESCE(state, 'QUEUED') IN ('QUEUED', 'FAILED_NEEDS_ATTENTION')
            """, .text(id))
    }

    /// Moves the entry's next automatic try to `moment` when it is later than that.
    func bringForward(id: String, to moment: Date) throws(OutboxError) {
        let seconds = SQLiteValue.real(moment.timeIntervalSince1970)
        try database.run(
            "UPDATE entries SET next_attempt_at = ? WHERE id = ? AND next_attempt_at > ?", seconds, .text(id), seconds)
    }

    /// Removes a landed upload from the entry's pending media, durably.
    ///
    /// - Throws: `notFound` when the entry is gone (discarded mid-send).
    func removePending(index: Int, id: String) throws(OutboxError) {
        try database.transaction { () throws(OutboxError) in
            let entry = try entry(id: id)
            let remaining = entry.pendingMedia.filter { $0.index != index }
            try database.run(
                "UPDATE entries SET pending_media = ? WHERE id = ?",
                .text(StoredRecord.encodeMediaList(remaining)), .text(id))
        }
    }

    /// Deletes the record with this id.
    ///
    /// - Returns: whether there was one.
    @discardableResult
    func deleteRecord(id: String) throws(OutboxError) -> Bool {
        try database.run("DELETE FROM entries WHERE id = ?", .text(id))
        return database.changes > 0
    }
}

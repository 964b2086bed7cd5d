import Foundation
internal import PlatformLayer

/// The records (SQLite) and the media files (a folder beside the database) of one outbox, and
/// every rule about the order in which the two are written. Synchronous and not `Sendable`: the
/// `Outbox` actor owns it and calls it from one task at a time.
///
/// The durability settings and the guarantees for several processes are stated on `Outbox`,
/// where callers read them; they are applied here.
final class OutboxStore {
    /// The schema this version writes; older databases migrate forward to it when they open.
    static let schemaVersion = 9
    /// The table of entries. Every table and index of the outbox's own is named `outbox_…`, a
    /// prefix an app's own tables in the same database may not use (`AppStatementRule`).
    static let table = "outbox_entries"
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

    /// The database file this store opened, to notice it being deleted or replaced under a
    /// long-running opener (`checkStillInPlace`).
    private let databaseIdentity: FileIdentity?

    /// The operation types this store reads, sends and compacts.
    let catalog: OperationCatalog
    let database: SQLiteDatabase
    let lock: StoreLock
    /// What seals and opens intents and files when the store is encrypted; nil when it is not.
    var cipher: StoreCipher?
    /// The files the write transaction in progress has written (removed if it rolls back), and
    /// those of the entries it replaced (removed once it has committed); nil outside one.
    private var transactionFiles: (written: [String], replaced: [String])?
    /// The operations the write transaction in progress queued, each with the one it replaced.
    private var insertionsInTransaction: [Insertion] = []
    /// The operations the last write transaction that committed queued, for the outbox's events
    /// and its scheduler; `takeCommittedInsertions()` empties it.
    private var committedInsertions: [Insertion] = []

    /// An operation that a write transaction queued.
    struct Insertion: Sendable, Hashable {
        let id: String
        /// The entry it took the place of (`EnqueueResult.replaced`), if any.
        let replaced: String?
    }

    /// Opens the outbox in `folder`, creating it when absent, migrating an older schema forward,
    /// and, when no one else has it open, recovering interrupted sends and sweeping unnamed files.
    ///
    /// - Throws: `notWritable` when the store is there but this process may not change it (then
    ///   `recordsReadingOnly(folder:)` can still read it); `folder` or `database` naming the cause
    ///   when it cannot be opened at all.
    /// - Parameter keyProvider: The key of an encrypted store; a store with no entry yet that
    ///   is given one becomes encrypted.
    /// - Throws: `keyRequired`, `wrongKey` or `notEncrypted` (see `openCipher`), before anything
    ///   is recovered or swept.
    init(folder: URL, catalog: OperationCatalog, keyProvider: (any KeyProvider)? = nil) throws(OutboxError) {
        self.catalog = catalog
        try MediaFolder.makeFolder(folder)
        MediaFolder.protect(folder.path)
        // SQLite needs to create its log files beside the database, so a folder this process
        // cannot write in is a store it cannot change, whatever its files allow.
        if let reason = MediaFolder.writeProblem(at: folder) { throw .notWritable(path: folder.path, reason: reason) }
        lock = try StoreLock(url: folder.appendingPathComponent("outbox.lock"))
        MediaFolder.protect(folder.appendingPathComponent("outbox.lock").path)
        media = try MediaFolder(url: folder.appendingPathComponent(Self.mediaFolderName, isDirectory: true))
        databaseURL = folder.appendingPathComponent(Self.databaseName)
        Platform.createOwnerOnly(databaseURL.path)
        database = try SQLiteDatabase(path: databaseURL.path)
        databaseIdentity = Platform.fileIdentity(databaseURL.path).map(FileIdentity.init)
        guard !database.isReadOnly else {
            throw .notWritable(path: databaseURL.path, reason: "the database file is read-only to this user")
        }
        // SQLite makes a new -wal and -shm with the database's mode; those an older version left are tightened.
        for suffix in ["", "-wal", "-shm"] { MediaFolder.protect(databaseURL.path + suffix) }
        try configure()
        try Self.migrate(database, media: media)
        cipher = try openCipher(keyProvider: keyProvider, folder: folder)
        try MediaFolder.synchronizeDirectory(folder)
        if lock.isSoleOpener {
            recoveredAtOpen = try recoverInterruptedSends()
            sweptAtOpen = try sweepUnnamedMedia()
            try media.protectFiles()
            cipher = try upgradeEncryptionFormat()
            try purgeRemainingPlaintext()
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
    /// - Throws: `keyRequired` or `wrongKey` for an encrypted store without its key.
    static func recordsReadingOnly(folder: URL, catalog: OperationCatalog, keyProvider: (any KeyProvider)?)
        throws(OutboxError) -> [StoredRecord]
    {
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
        // A key given for a plaintext store is not needed to read it.
        let cipher =
            try found >= 5
            ? EncryptionRecord.read(database, schema: "stored")?.cipher(keyProvider: keyProvider, folder: folder) : nil
        // The table was called `entries` before schema 4.
        let storedTable = found >= 4 ? table : "entries"
        if found >= 1 { try database.run("CREATE TABLE main.\(storedTable) AS SELECT * FROM stored.\(storedTable)") }
        try database.run("DETACH DATABASE stored")
        try database.run("PRAGMA main.user_version = \(found)")
        try migrate(database, media: media)
        try database.run("PRAGMA query_only = ON")
        return try database.query("SELECT \(StoredRecord.columns) FROM \(table) ORDER BY sequence") { row in
            StoredRecord(row: row, catalog: catalog, cipher: cipher)
        }
    }

    private func configure() throws(OutboxError) {
        database.setBusyTimeout(milliseconds: 5000)
        // Before the first table of a new store; an existing one switches at its next VACUUM
        // (see `giveSpaceBack`).
        try database.run("PRAGMA auto_vacuum = INCREMENTAL")
        let mode = try database.query("PRAGMA journal_mode=WAL") { row in row.text(at: 0) ?? "" }.first ?? ""
        guard mode.lowercased() == "wal" else { throw .walUnavailable(path: database.path, journalMode: mode) }
        try database.run("PRAGMA synchronous=FULL")
        // Sorts, statement journals and VACUUM's copy stay in memory: no temporary file ever
        // holds a page of the store (nor of the app's own tables).
        try database.run("PRAGMA temp_store=MEMORY")
        for pragma in Platform.sqliteDurabilityPragmas { try database.run(pragma) }
    }

    /// The value of a pragma on this connection (for example `synchronous`), for checking the settings.
    func pragma(_ name: String) throws(OutboxError) -> String? {
        try database.query("PRAGMA \(name)") { row in row.text(at: 0) ?? row.integer(at: 0).map(String.init) }.first
            ?? nil
    }

    /// Checks that the folder still holds the database this store opened: a folder deleted (or
    /// moved) and made again, or a database file put in the place of this one, leaves this
    /// opener on a file nobody else sees, whose queue is not the one there.
    ///
    /// - Throws: `storeReplaced` saying which.
    func checkStillInPlace() throws(OutboxError) {
        let folder = databaseURL.deletingLastPathComponent().path
        guard let identity = Platform.fileIdentity(databaseURL.path).map(FileIdentity.init) else {
            throw .storeReplaced(
                path: folder, reason: "its database file is gone (the folder was deleted or moved meanwhile)")
        }
        guard identity == databaseIdentity else {
            throw .storeReplaced(path: folder, reason: "its database file is another file than the one it opened")
        }
    }

    // MARK: Reading

    /// Every record in queue order, readable or not.
    func records() throws(OutboxError) -> [StoredRecord] {
        try database.query("SELECT \(StoredRecord.columns) FROM \(Self.table) ORDER BY sequence") { row in
            StoredRecord(row: row, catalog: catalog, cipher: cipher)
        }
    }

    /// The record with this id, readable or not; nil when there is none.
    func record(id: String) throws(OutboxError) -> StoredRecord? {
        try database.query("SELECT \(StoredRecord.columns) FROM \(Self.table) WHERE id = ?", [.text(id)]) { row in
            StoredRecord(row: row, catalog: catalog, cipher: cipher)
        }.first
    }

    /// The record with this id, or named `#SEQUENCE` (`StoredRecord.name`), readable or not;
    /// nil when there is none.
    func record(named name: String) throws(OutboxError) -> StoredRecord? {
        guard name.hasPrefix("#") else { return try record(id: name) }
        guard let sequence = Int64(name.dropFirst()) else { return nil }
        return try database.query(
            "SELECT \(StoredRecord.columns) FROM \(Self.table) WHERE sequence = ?", [.integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }.first
    }

    /// The readable entry with this id, with what it waits behind.
    ///
    /// - Throws: `notFound` when there is none, `unreadableEntry` when this version cannot read it.
    func entry(id: String) throws(OutboxError) -> OutboxEntry {
        guard let record = try record(id: id) else { throw .notFound(id: id) }
        var entry = try record.readableEntry()
        entry.blockedBy = try blocker(of: record)
        return entry
    }

    /// The id of the entry `record` waits behind (`EntityOrder`), or nil when it waits for none:
    /// the first earlier record of its entity that the engine does not have, found through the
    /// entity's index without reading any other record, so that a pass over a long chain costs
    /// one look per entry rather than a read of every record before it.
    func blocker(of record: StoredRecord) throws(OutboxError) -> String? {
        guard let entity = record.entity else { return nil }
        return try database.query(
            """
            SELECT sequence, id FROM \(Self.table)
            WHERE entity = ? AND sequence < ? AND state IS NOT 'SYNCED' ORDER BY sequence LIMIT 1
            """, [.text(entity), .integer(record.sequence)]
        ) { row in
            row.text(at: 1).flatMap { OutboxOperation.isValidID($0) ? $0 : nil } ?? "#\(row.integer(at: 0) ?? 0)"
        }.first
    }

    /// The records of `entity` after `sequence` that the engine does not have, readable or not,
    /// in queue order: those that waited behind the entity's leader at `sequence`
    /// (`EntityOrder`), through the entity's index.
    func unsettledRecords(ofEntity entity: String, after sequence: Int64) throws(OutboxError) -> [StoredRecord] {
        try database.query(
            """
            SELECT \(StoredRecord.columns) FROM \(Self.table)
            WHERE entity = ? AND sequence > ? AND state IS NOT 'SYNCED' ORDER BY sequence
            """, [.text(entity), .integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }
    }

    /// The first record after `sequence` in queue order that waits to be sent, readable or not.
    ///
    /// Entries whose automatic retries ran out are not among them: only `sendNow` sends those.
    func nextQueuedRecord(after sequence: Int64) throws(OutboxError) -> StoredRecord? {
        try database.query(
            """
            SELECT \(StoredRecord.columns) FROM \(Self.table)
            WHERE sequence > ? AND COALESCE(state, 'QUEUED') = 'QUEUED' AND COALESCE(awaits_send_now, 0) = 0
            ORDER BY sequence LIMIT 1
            """, [.integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }.first
    }

    // MARK: Writing

    /// Runs `body` inside one write transaction (`BEGIN IMMEDIATE … COMMIT`), in which `insert`
    /// may write operations and the app its own rows: all of it commits, or none of it does.
    ///
    /// When the body throws, or anything before the commit fails, the transaction rolls back and
    /// the media files it wrote are removed again. When the commit itself fails the outcome is
    /// uncertain (an fsync error may still have left the records on disk), so the files stay for
    /// the next open's sweep, which keeps them exactly when a record names them. The files of
    /// entries it replaced are removed only once it has committed: a crash before then leaves
    /// them to the sweep too.
    ///
    /// - Parameter wrap: Turns the store's own failure into the error the caller throws.
    func writeTransaction<R, E: Error>(_ body: () throws(E) -> R, wrap: (OutboxError) -> E) throws(E) -> R {
        precondition(transactionFiles == nil, "one write transaction at a time")
        transactionFiles = ([], [])
        insertionsInTransaction = []
        defer {
            transactionFiles = nil
            insertionsInTransaction = []
        }
        do throws(OutboxError) { try database.run("BEGIN IMMEDIATE") } catch { throw wrap(error) }
        let result: R
        do throws(E) {
            result = try body()
        } catch {
            rollBack()
            throw error
        }
        do throws(OutboxError) {
            try database.run("COMMIT")
        } catch {
            if database.isInTransaction { rollBack() }
            throw wrap(error)
        }
        committedInsertions += insertionsInTransaction
        if let replaced = transactionFiles?.replaced, !replaced.isEmpty {
            media.removeQuietly(replaced)
            try? media.synchronize()
        }
        return result
    }

    /// The operations queued by write transactions that committed since the last call.
    func takeCommittedInsertions() -> [Insertion] {
        defer { committedInsertions = [] }
        return committedInsertions
    }

    /// Runs `body` inside one read transaction, so that all it reads is of one moment.
    func readTransaction<R>(_ body: () throws -> R) throws -> R {
        try database.run("BEGIN")
        // Ending a transaction that only read cannot lose anything.
        defer { if database.isInTransaction { try? database.run("COMMIT") } }
        return try body()
    }

    /// Rolls the transaction in progress back and removes the files it wrote.
    private func rollBack() {
        try? database.run("ROLLBACK")
        media.removeQuietly(transactionFiles?.written ?? [])
    }

    /// Writes an operation's files (flushed, folder flushed) and then its record, inside the
    /// write transaction in progress; `.alreadyQueued` without writing anything when the id is taken.
    ///
    /// An operation of a last-write-wins type replaces the last entry of its entity when that one
    /// is of the same type and no send of it ever started: then the engine cannot hold it, and
    /// nothing of its entity comes between. Its record goes in the same transaction; its files once
    /// the transaction has committed.
    ///
    /// - Throws: `unknownOperationType`, `mediaWrite`, `database`.
    func insert(_ operation: OutboxOperation, createdAt: Date, makeToken: () -> String) throws(OutboxError)
        -> EnqueueResult
    {
        precondition(transactionFiles != nil, "insert runs inside writeTransaction")
        guard let type = catalog.type(named: operation.type), type.versions.contains(operation.version) else {
            throw .unknownOperationType(type: operation.type, version: operation.version)
        }
        let taken = try database.query("SELECT 1 FROM \(Self.table) WHERE id = ?", [.text(operation.id)]) { _ in true }
        if !taken.isEmpty { return .alreadyQueued }
        // A savepoint, so that a failed insert leaves nothing of itself in the transaction even
        // when the app catches the error and commits the rest: never the replaced entry's
        // deletion without the operation that replaces it.
        try database.run("SAVEPOINT outbox_insert")
        var written: [String] = []
        let replaced: OutboxEntry?
        do throws(OutboxError) {
            replaced = type.isLastWriteWins ? try replaceableEntry(for: operation) : nil
            if let replaced {
                try database.run("DELETE FROM \(Self.table) WHERE sequence = ?", .integer(replaced.sequence))
            }
            var files: [MediaFile] = []
            for (descriptor, attachment) in zip(operation.media, operation.attachments) {
                // A fresh token per write: a discard that removes an older entry's files after its
                // record can never hit the files of a new entry that reuses the id.
                let file = MediaFile(
                    index: descriptor.index,
                    name: "\(operation.id).\(descriptor.index).\(makeToken())."
                        + (cipher == nil ? descriptor.fileExtension : Self.sealedExtension))
                try media.write(
                    attachment.data, named: file.name,
                    sealedWith: cipher.map { MediaSeal(cipher: $0, id: operation.id, index: descriptor.index) })
                written.append(file.name)
                files.append(file)
            }
            if !files.isEmpty { try media.synchronize() }
            let list = StoredRecord.encodeMediaList(files)
            try database.run(
                """
                INSERT INTO \(Self.table) (id, state, created_at, attempts, pending_media, owned_media, intent, entity)
                VALUES (?, ?, ?, 0, ?, ?, ?, ?)
                """,
                .text(operation.id), .text(OutboxEntry.State.queued.rawValue), .real(createdAt.timeIntervalSince1970),
                .text(list), .text(list),
                storedIntent(StoredIntent(operation).encoded(), id: operation.id, files: files),
                operation.entity.map(SQLiteValue.text) ?? .null)
            try database.run("RELEASE outbox_insert")
        } catch {
            try? database.run("ROLLBACK TO outbox_insert")
            try? database.run("RELEASE outbox_insert")
            media.removeQuietly(written)
            throw error
        }
        transactionFiles?.written += written
        insertionsInTransaction.append(Insertion(id: operation.id, replaced: replaced?.id))
        guard let replaced else { return .enqueued }
        transactionFiles?.replaced += replaced.ownedMedia.map(\.name)
        return .replaced(earlier: replaced.id)
    }

    /// The intent column's value: the JSON as text, or sealed for the record and its files when
    /// the store is encrypted.
    private func storedIntent(_ json: Data, id: String, files: [MediaFile]) -> SQLiteValue {
        guard let cipher else { return .text(String(decoding: json, as: UTF8.self)) }
        return .blob(cipher.seal(json, for: cipher.intentRole(id: id, ownedMedia: files)))
    }

    /// The `last_error` column's value: the text, or sealed for the record when the store is
    /// encrypted, since an engine's answer may quote the note or the place it was sent.
    func storedError(_ text: String?, id: String) -> SQLiteValue {
        guard let text else { return .null }
        guard let cipher else { return .text(text) }
        return .blob(cipher.seal(Data(text.utf8), for: .lastError(id: id)))
    }

    /// The entry a last-write-wins `operation` takes the place of: the last entry of its entity,
    /// when it is readable, of the same type, queued, and no send of it ever started (once one
    /// has, the engine may hold it, and it must reach the engine in its turn).
    private func replaceableEntry(for operation: OutboxOperation) throws(OutboxError) -> OutboxEntry? {
        guard let entity = operation.entity,
            let last = try database.query(
                "SELECT \(StoredRecord.columns) FROM \(Self.table) WHERE entity = ? ORDER BY sequence DESC LIMIT 1",
                [.text(entity)], row: { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }
            ).first?.entry
        else { return nil }
        guard last.type == operation.type, last.state == .queued, last.firstAttemptAt == nil, last.attempts == 0,
            last.pendingMedia == last.ownedMedia
        else { return nil }
        return last
    }

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

    /// Sets the state (and the error shown with it) of the entry with this id.
    ///
    /// - Returns: whether an entry changed.
    @discardableResult
    func setState(_ state: OutboxEntry.State, lastError: String?, id: String) throws(OutboxError) -> Bool {
        try database.run(
            "UPDATE \(Self.table) SET state = ?, last_error = ? WHERE id = ?",
            .text(state.rawValue), storedError(lastError, id: id), .text(id))
        return database.changes > 0
    }

    /// Marks the entry as being sent, only when it is `QUEUED` (or has no state yet), counts the
    /// attempt, and remembers, for good, that a send of it started (so that it is never
    /// compacted away). The condition is the claim: of two drains in two processes, one wins.
    ///
    /// - Returns: whether this caller claimed it.
    func claim(id: String, at moment: Date) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'SYNCING', attempts = \(Self.attemptsPlusOne),
                first_attempt_at = COALESCE(first_attempt_at, ?)
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, .real(moment.timeIntervalSince1970), .text(id))
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
    /// was suspended, the user pressed Ctrl-C), which is no failure. That a send of it started is
    /// still remembered: the cancelled one may have reached the engine.
    ///
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func returnUnsent(id: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'QUEUED',
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
            UPDATE \(Self.table) SET state = 'FAILED_NEEDS_ATTENTION', last_error = ?, transient_failures = 0,
                next_attempt_at = NULL, awaits_send_now = 0
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, storedError(reason, id: id), .text(id))
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
            UPDATE \(Self.table) SET state = ?, last_error = ?, transient_failures = ?, next_attempt_at = ?,
                awaits_send_now = ?
            WHERE id = ? AND state = 'SYNCING'
            """,
            .text(state.rawValue), storedError(lastError, id: id), .integer(Int64(retry.transientFailures)),
            retry.nextAttemptAt.map { .real($0.timeIntervalSince1970) } ?? .null,
            .integer(retry.awaitsSendNow ? 1 : 0), .text(id))
        return database.changes > 0
    }

    /// Puts an entry back in the queue for the user's "send now": due at once, its failures
    /// forgotten, parked or not; its last error stays readable until the next send ends. A
    /// parked entry sends all its uploads again: the engine may have lost those that landed
    /// (it answers a repeat it holds with 200, so this costs bytes, never a duplicate).
    func releaseForSendNow(id: String) throws(OutboxError) {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'QUEUED', transient_failures = 0, next_attempt_at = NULL,
                awaits_send_now = 0, upload_resends = 0,
                pending_media = CASE WHEN state = 'FAILED_NEEDS_ATTENTION' THEN owned_media ELSE pending_media END
            WHERE id = ? AND COALESCE(state, 'QUEUED') IN ('QUEUED', 'FAILED_NEEDS_ATTENTION')
            """, .text(id))
    }

    /// How many times in a row the entry's uploads were sent again because the engine did not
    /// hold them; 0 for none (or a value that is not a count).
    func uploadResends(id: String) throws(OutboxError) -> Int {
        let stored =
            try database.query(
                "SELECT upload_resends FROM \(Self.table) WHERE id = ?", [.text(id)]
            ) { row in row.integer(at: 0) }.first ?? nil
        return StoredValue.count(stored)
    }

    /// Puts a claimed entry back in the queue with every upload pending again, due at once, one
    /// more resend counted: the engine answered that it does not hold them.
    ///
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func sendUploadsAgain(id: String, resends: Int, lastError: String) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            // The uploads start afresh: the resources made for them are given back.
            try abandonUploadResources(where: "id = ? AND state = 'SYNCING'", [.text(id)])
            try database.run(
                """
                UPDATE \(Self.table) SET state = 'QUEUED', pending_media = owned_media, upload_resends = ?,
                    last_error = ?, next_attempt_at = NULL, upload_resources = NULL
                WHERE id = ? AND state = 'SYNCING'
                """, .integer(Int64(resends)), storedError(lastError, id: id), .text(id))
            return database.changes > 0
        }
    }

    /// Moves the entry's next automatic try to `moment` when it is later than that.
    func bringForward(id: String, to moment: Date) throws(OutboxError) {
        let seconds = SQLiteValue.real(moment.timeIntervalSince1970)
        try database.run(
            "UPDATE \(Self.table) SET next_attempt_at = ? WHERE id = ? AND next_attempt_at > ?", seconds, .text(id),
            seconds)
    }

    /// Removes a landed upload from the entry's pending media, durably, and the upload resource
    /// kept for it.
    ///
    /// - Throws: `notFound` when the entry is gone (discarded mid-send).
    func removePending(index: Int, id: String) throws(OutboxError) {
        try database.transaction { () throws(OutboxError) in
            let entry = try entry(id: id)
            let remaining = entry.pendingMedia.filter { $0.index != index }
            var resources = uploadResources(id: id)
            resources[index] = nil
            try database.run(
                "UPDATE \(Self.table) SET pending_media = ?, upload_resources = ? WHERE id = ?",
                .text(StoredRecord.encodeMediaList(remaining)), storedUploadResources(resources, id: id), .text(id))
        }
    }

    /// Deletes the record with this id; the upload resources it kept go to those to give back.
    ///
    /// - Returns: whether there was one.
    @discardableResult
    func deleteRecord(id: String) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            try abandonUploadResources(where: "id = ?", [.text(id)])
            try database.run("DELETE FROM \(Self.table) WHERE id = ?", .text(id))
            return database.changes > 0
        }
    }

    /// Deletes the record at this place in the queue, whatever its id column holds; the upload
    /// resources it kept go to those to give back.
    ///
    /// - Returns: whether there was one.
    func deleteRecord(sequence: Int64) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            try abandonUploadResources(where: "sequence = ?", [.integer(sequence)])
            try database.run("DELETE FROM \(Self.table) WHERE sequence = ?", .integer(sequence))
            return database.changes > 0
        }
    }
}

/// Which file a path named at one moment: its device and inode.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    init(_ identity: (device: UInt64, inode: UInt64)) {
        (device, inode) = identity
    }
}

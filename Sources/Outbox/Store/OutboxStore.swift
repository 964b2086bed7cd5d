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
    // The write transaction's state, which only `OutboxStore+WriteTransaction` and
    // `OutboxStore+Insertion` change.
    /// The files the write transaction in progress has written (removed if it rolls back), and
    /// those of the entries it replaced (removed once it has committed); nil outside one.
    var transactionFiles: (written: [String], replaced: [String])?
    /// The operations the write transaction in progress queued, each with the one it replaced.
    var insertionsInTransaction: [Insertion] = []
    /// The operations the last write transaction that committed queued, for the outbox's events
    /// and its scheduler; `takeCommittedInsertions()` empties it.
    var committedInsertions: [Insertion] = []

    /// An operation that a write transaction queued.
    struct Insertion: Sendable, Hashable {
        let id: String
        /// The entry it took the place of (`EnqueueResult.replaced`), if any.
        let replaced: String?
    }

    /// Opens the outbox in `folder`, creating it when absent, migrating an older schema forward,
    /// and, when no one else has it open, recovering interrupted sends and sweeping unnamed files.
    ///
    /// - Throws: `.store(.notWritable)` when the store is there but this process may not change it (then
    ///   `recordsReadingOnly(folder:)` can still read it); `.store(.folder)` or `.store(.database)` naming the cause
    ///   when it cannot be opened at all.
    /// - Parameter keyProvider: The key of an encrypted store; a store with no entry yet that
    ///   is given one becomes encrypted.
    /// - Throws: `.encryption(.keyRequired)`, `.encryption(.wrongKey)` or `.encryption(.notEncrypted)` (see `openCipher`), before anything
    ///   is recovered or swept.
    init(folder: URL, catalog: OperationCatalog, keyProvider: (any KeyProvider)? = nil) throws(OutboxError) {
        self.catalog = catalog
        try MediaFolder.makeFolder(folder)
        MediaFolder.protect(folder.path)
        // SQLite needs to create its log files beside the database, so a folder this process
        // cannot write in is a store it cannot change, whatever its files allow.
        if let problem = MediaFolder.writeProblem(at: folder) {
            throw .store(.notWritable(path: folder.path, cause: .system(problem)))
        }
        lock = try StoreLock(url: folder.appendingPathComponent("outbox.lock"))
        MediaFolder.protect(folder.appendingPathComponent("outbox.lock").path)
        media = try MediaFolder(url: folder.appendingPathComponent(Self.mediaFolderName, isDirectory: true))
        databaseURL = folder.appendingPathComponent(Self.databaseName)
        Platform.createOwnerOnly(databaseURL.path)
        database = try SQLiteDatabase(path: databaseURL.path)
        databaseIdentity = Platform.fileIdentity(databaseURL.path)
        guard !database.isReadOnly else {
            throw .store(
                .notWritable(path: databaseURL.path, cause: .found("the database file is read-only to this user")))
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

    private func configure() throws(OutboxError) {
        database.setBusyTimeout(milliseconds: 5000)
        // Before the first table of a new store; an existing one switches at its next VACUUM
        // (see `giveSpaceBack`).
        try database.run("PRAGMA auto_vacuum = INCREMENTAL")
        let mode = try database.query("PRAGMA journal_mode=WAL") { row in row.text(at: 0) ?? "" }.first ?? ""
        guard mode.lowercased() == "wal" else { throw .store(.walUnavailable(path: database.path, journalMode: mode)) }
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
    /// - Throws: `.store(.replaced)` saying which.
    func checkStillInPlace() throws(OutboxError) {
        let folder = databaseURL.deletingLastPathComponent().path
        guard let identity = Platform.fileIdentity(databaseURL.path) else {
            throw .store(
                .replaced(
                    path: folder, reason: "its database file is gone (the folder was deleted or moved meanwhile)"))
        }
        guard identity == databaseIdentity else {
            throw .store(.replaced(path: folder, reason: "its database file is another file than the one it opened"))
        }
    }
}

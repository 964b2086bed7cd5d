import Foundation
internal import PackageVersion

/// The on-device durable queue that gets what the user did to the engine: photo captures, a
/// note's edits, a logged set, each an operation (``OutboxOperation``). Saving is local and fast,
/// and sending is a separate act that may fail and repeat without losing anything.
///
/// ```swift
/// let outbox = try await Outbox.open(folder: folder)  // off the main actor
/// try await outbox.enqueue(operation)  // durable when it returns
/// try await outbox.start(transport: HTTPTransport(engineURL: engineURL))
/// for await snapshot in outbox.snapshots {
///     print(snapshot.pendingCount, "to send")
/// }
/// ```
///
/// Records live in SQLite (`outbox.sqlite`) and attachments in `media/` beside it, inside the
/// folder the app chooses. Every method is safe to call from many tasks at once. What survives a
/// crash or a power cut, and how several processes share a folder: <doc:Durability>. In what
/// order entries go, and what stops a pass: <doc:Draining>.
public actor Outbox {
    /// The version of the ImagePrep package this library was built from ("0.2.0"), as
    /// `outbox --version` prints it and CHANGELOG.md names its releases; `PhotoPreparer.packageVersion`
    /// is the same value.
    public static let packageVersion = PackageVersion.current
    /// The folder that holds the database and the media files.
    public nonisolated let folder: URL
    /// The database, where an app may keep tables of its own (see `write(_:)`); an app may open
    /// connections of its own to it for reading, in WAL mode as the outbox keeps it.
    public nonisolated var databaseURL: URL { folder.appendingPathComponent(OutboxStore.databaseName) }
    /// The clock, time zone, answer classification, backoff and progress callback this outbox uses.
    public nonisolated let configuration: Configuration
    /// How many interrupted sends this open put back in the queue.
    nonisolated let recoveredAtOpen: Int
    /// The media files this open removed because no record named them.
    nonisolated let sweptAtOpen: [String]

    let store: OutboxStore

    /// Whether a drain pass is running; a drain asked for meanwhile waits for one more pass.
    var isDraining = false
    /// The transport the next coalesced pass uses; non-nil when one more pass was asked for.
    var followUpTransport: (any Transport)?
    /// Whether one of the drains waiting for that pass was asked for by someone (`drainNow`).
    var followUpIsRequested = false
    /// The drains waiting for that one more pass.
    var followUpWaiters: [DrainWaiter] = []
    /// How far the pass in flight has come through the queue, for progress ("3 of 21").
    var passQueue = PassQueue()
    /// Entries the user asked to send now, which the next pass sends first.
    var sendNowRequests: Set<String> = []
    /// How many uploads the engine confirmed since this outbox opened (wrapping), so that a pass
    /// can tell that the engine answered a send (`PassEvidence`).
    var landedUploads = 0
    /// When the engine last asked, with a `Retry-After` on a transient failure, to be left alone,
    /// and for which entry: automatic passes send nothing before then, whatever its entity.
    /// Kept in memory only: after a restart one request may go before the wait is over.
    var engineAskedToWait: (id: String, until: Date)?
    /// The scheduler's state: whether the network is there, and the running loop (`start(transport:)`).
    var scheduling = Scheduling()
    /// Where `events` come from, and the progress of the entries in flight.
    nonisolated let eventHub = EventHub()

    /// Opens the outbox in `folder`, creating it when absent.
    ///
    /// Opening migrates an older database forward. When no other process has the outbox open it
    /// also puts entries left `.syncing` by a send that was killed back to `.queued` (the engine
    /// dedupes the resend), and removes media files that no record names.
    ///
    /// - Parameters:
    ///   - folder: Where the outbox lives; the app's private storage, never a shared or network folder.
    ///   - configuration: The operation types, clock, time zone, classification, backoff and progress callback.
    /// An outbox given a key (`Configuration.keyProvider`) is encrypted at rest: every intent
    /// and every attachment's file is sealed with AES-256-GCM before it is written (see
    /// docs/encryption.md). A new store becomes encrypted when it is first opened with a key, and
    /// from then on only opens with that key. Opening with a wrong key, or without one, throws
    /// before anything is recovered, swept, sent or deleted.
    ///
    /// - Throws: `.encryption(.keyRequired)`, `.encryption(.wrongKey)`, `.encryption(.notEncrypted)` (a key for a plaintext store with
    ///   entries), what the key provider throws; `OutboxError` when the folder or the database
    ///   cannot be opened, or the database comes from a newer version of the app.
    public init(folder: URL, configuration: Configuration = Configuration()) throws(OutboxError) {
        let store = try OutboxStore(
            folder: folder, catalog: configuration.catalog, keyProvider: configuration.keyProvider)
        self.folder = folder
        self.configuration = configuration
        self.store = store
        recoveredAtOpen = store.recoveredAtOpen
        sweptAtOpen = store.sweptAtOpen
    }

    /// Opens the outbox in `folder` as `init(folder:configuration:)` does, off the caller's
    /// actor: opening migrates, recovers and sweeps, which on a big store or a slow disk takes
    /// longer than a main-actor frame may.
    ///
    /// Cancelling the calling task stops nothing and undoes nothing: the opening runs to its end
    /// (each migration, recovery and sweep is a transaction of its own, done whole or not at all)
    /// and returns the outbox.
    ///
    /// - Parameters:
    ///   - folder: Where the outbox lives; the app's private storage.
    ///   - configuration: The operation types, clock, time zone, classification, backoff and progress callback.
    /// - Throws: What `init(folder:configuration:)` throws.
    @concurrent
    public static func open(folder: URL, configuration: Configuration = Configuration()) async throws(OutboxError)
        -> Outbox
    {
        try Outbox(folder: folder, configuration: configuration)
    }

    deinit {
        // Streams of `events` end with the outbox, so that a `for await` over them finishes.
        eventHub.finish()
    }

    /// Queues an operation: writes its attachments (flushed to disk) and then its record, in one
    /// transaction.
    ///
    /// Returns only when the operation is durable. Offering an id that is already queued changes
    /// nothing, even when both offers run at once in different tasks or processes.
    ///
    /// An operation of a last-write-wins type (`OperationType.isLastWriteWins`) takes the place of
    /// the last entry of its entity when that one is of the same type and was never sent: no send
    /// of it ever started (once one has, the engine may hold it, and the new one goes after it),
    /// and nothing of the entity was queued after it. The earlier record goes in the same
    /// transaction, its files right after it commits; a listing never shows both.
    ///
    /// - Parameter operation: The operation, with its id.
    /// - Returns: `.enqueued`; `.replaced(earlier:)` when it took an earlier one's place;
    ///   `.alreadyQueued` when an entry with this id exists.
    /// - Throws: `.request(.unknownOperationType)` when the configuration does not declare its type at its
    ///   version; `OutboxError` when a file or the record cannot be written, and then nothing of
    ///   it is left behind.
    @discardableResult
    public func enqueue(_ operation: OutboxOperation) throws(OutboxError) -> EnqueueResult {
        let now = configuration.now()
        let result = try store.writeTransaction(
            { () throws(OutboxError) -> EnqueueResult in
                try store.insert(operation, createdAt: now, makeToken: configuration.makeFileToken)
            }, wrap: { $0 })
        announceCommittedInsertions()
        return result
    }

    /// Runs the app's own SQL on its own tables and queues operations, all in one transaction of
    /// the outbox's database: when this returns, both are on disk; when the body throws, anything
    /// fails, or the process is killed at any instant, neither is.
    ///
    /// The transaction is `BEGIN IMMEDIATE`: it holds the database's write lock from the start,
    /// so keep the body short and never wait for anything in it (it cannot await). The app's
    /// statements may create, change and read the app's own tables (its schema and its
    /// migrations are the app's: the outbox never touches them); they may not touch the outbox's
    /// tables (`outbox_*`) or SQLite's, end the transaction, attach a database, or change a
    /// setting (`PRAGMA user_version` is the outbox's schema version): such a statement throws
    /// `.request(.appStatementRefused)`.
    ///
    /// ```swift
    /// try await outbox.write { transaction in
    ///     try transaction.execute("UPDATE notes SET body = ? WHERE id = ?", .text(body), .integer(42))
    ///     try transaction.enqueue(OutboxOperation(id: id, entity: "note:42", type: "note.update", payload: edit))
    /// }
    /// ```
    ///
    /// The body is `sending`: it runs on the outbox's actor, so from a main-actor view model it
    /// may capture the caller's values (copy a property into a local first) but not the view
    /// model itself.
    ///
    /// Cancelling the calling task neither stops nor undoes the transaction: once the body has
    /// started it runs to its end and everything commits, however the task was cancelled
    /// meanwhile. A body that wants to give up on a cancel checks `Task.isCancelled` and throws,
    /// which rolls everything back.
    ///
    /// - Parameter body: The work, given the transaction; what it returns is returned.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, after rolling everything back; or an `OutboxError`.
    public func write<R: Sendable>(_ body: sending (borrowing OutboxTransaction) throws -> R) throws -> R {
        let now = configuration.now()
        let result = try store.writeTransaction(
            { () throws -> R in
                try body(
                    OutboxTransaction(store: store, isReadOnly: false, now: now, makeToken: configuration.makeFileToken)
                )
            }, wrap: { $0 })
        announceCommittedInsertions()
        return result
    }

    /// Reads the app's own tables in the outbox's database, in one read transaction: every
    /// query in `body` sees the same moment, however others write meanwhile. Only statements that
    /// change nothing are taken; the rules of `write(_:)` for what the app's SQL may touch hold.
    ///
    /// The body is `sending`, as `write(_:)`'s is. Cancelling the calling task does not stop the
    /// reading, which changes nothing, so there is nothing to undo.
    ///
    /// - Parameter body: The reading, given the transaction; what it returns is returned.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or an `OutboxError`.
    public func read<R: Sendable>(_ body: sending (borrowing OutboxTransaction) throws -> R) throws -> R {
        try store.readTransaction {
            try body(
                OutboxTransaction(
                    store: store, isReadOnly: true, now: configuration.now(), makeToken: configuration.makeFileToken))
        }
    }

    /// Everything in the outbox, in queue order: readable entries, each with what it waits behind
    /// or the network it waits for, and beside them the records this version cannot read (never
    /// deleted automatically).
    ///
    /// - Throws: `OutboxError.store(.database)` when the database cannot be read.
    public func list() throws(OutboxError) -> OutboxListing {
        OutboxListing(records: try store.records(), catalog: store.catalog, network: scheduling.network)
    }

    /// Everything in the outbox in `folder`, read without changing anything there: for a store
    /// this process may read but not write (`Outbox(folder:)` then throws `.store(.notWritable)`), such as
    /// another user's or one on a read-only file system. A store of an older schema is migrated
    /// in memory for the reading; nothing is recovered, swept or healed on disk.
    ///
    /// - Parameters:
    ///   - folder: The outbox's folder.
    ///   - configuration: The operation types to read the records as; photo captures by default.
    ///   - network: The network the device is on, for the entries that wait for theirs; unmetered by default.
    /// - Returns: The readable entries and the unreadable records, as `list()` gives them.
    /// - Throws: `.store(.unreadable)` naming the cause when the store cannot be read at all;
    ///   `.encryption(.keyRequired)` or `.encryption(.wrongKey)` for an encrypted store; `.store(.newerSchema)`; `.store(.database)`.
    public static func readOnlyListing(
        folder: URL, configuration: Configuration = Configuration(), network: NetworkPath = .unmetered
    ) throws(OutboxError) -> OutboxListing {
        let catalog = configuration.catalog
        return OutboxListing(
            records: try OutboxStore.recordsReadingOnly(
                folder: folder, catalog: catalog, keyProvider: configuration.keyProvider),
            catalog: catalog, network: network)
    }

    /// The entry with this id, with what it waits behind.
    ///
    /// - Parameter id: The entry's id.
    /// - Returns: The entry, or nil when the outbox holds none with this id.
    /// - Throws: `.entry(.unreadable)` when this version cannot read it; `.store(.database)` when reading fails.
    public func entry(id: String) throws(OutboxError) -> OutboxEntry? {
        do throws(OutboxError) {
            var entry = try store.entry(id: id)
            entry.waitsForNetwork = store.catalog.awaitedNetwork(of: entry, on: scheduling.network)
            return entry
        } catch .entry(.notFound) {
            return nil
        }
    }

    /// Records that the engine has the operation, whatever its state was.
    ///
    /// - Parameter id: The entry's id.
    /// - Throws: `.entry(.notFound)` when the outbox holds no such entry; `.entry(.unreadable)` when this
    ///   version cannot read it.
    public func markSynced(id: String) throws(OutboxError) {
        let entry = try store.entry(id: id)
        guard try store.setState(.synced, lastError: nil, id: id), entry.state != .synced,
            passQueue.inFlight != id  // its send, still running here, tells where it stands when it ends
        else { return }
        announceStatus(of: id)
        if entry.blockedBy == nil { announceEntityMovedOn(entity: entry.entity, after: entry.sequence) }
    }

    /// Deletes a synced entry: its owned media first, then its record.
    ///
    /// In that order, a crash in between leaves a synced record whose files are gone, which a
    /// second `retire` finishes; the other order would leave files that nothing names.
    ///
    /// - Parameter id: The entry's id.
    /// - Throws: `.entry(.notFound)`; `.entry(.notSynced)` when the engine does not have it yet (retiring it would
    ///   lose it); `.media(.remove)` or `.store(.database)` when deleting fails.
    public func retire(id: String) throws(OutboxError) {
        let entry = try store.entry(id: id)
        guard entry.state == .synced else { throw .entry(.notSynced(id: id, state: entry.state)) }
        try store.media.remove(entry.ownedMedia.map(\.name))
        try store.media.synchronize()
        if try store.deleteRecord(id: id) { eventHub.send(.retired(id: id)) }
    }

    /// Retires every synced entry; the drain's caller calls this after a pass.
    ///
    /// - Returns: The ids retired, in queue order.
    /// - Throws: `OutboxError` when deleting fails; the entries retired before the failure stay retired.
    @discardableResult
    public func retireSynced() throws(OutboxError) -> [String] {
        var retired: [String] = []
        for id in try list().entries.filter({ $0.state == .synced }).map(\.id) {
            do throws(OutboxError) {
                try retire(id: id)
                retired.append(id)
            } catch .entry(.notFound) {
                // Another process retired it meanwhile.
            }
        }
        if !retired.isEmpty { store.giveSpaceBack() }
        return retired
    }

    /// Deletes an entry whatever its state, readable or not: the record first, then its bytes.
    /// The entries of its entity that waited behind it go on.
    ///
    /// In that order, a crash in between leaves files that no record names, which the next open
    /// sweeps; the other order would leave a record that names missing files.
    ///
    /// - Parameter id: The entry's id, or for a record without a valid one `#SEQUENCE`, as
    ///   `UnreadableEntry.name` and `blockedBy` name it.
    /// - Throws: `.entry(.notFound)`; `.media(.remove)` or `.store(.database)` when deleting fails.
    public func discard(id: String) throws(OutboxError) {
        guard let record = try store.record(named: id) else { throw .entry(.notFound(id: id)) }
        // One that led its entity lets the entries that waited behind it go.
        let ledItsEntity = record.isSettled ? false : try store.blocker(of: record) == nil
        if try store.deleteRecord(sequence: record.sequence) {
            eventHub.send(.discarded(id: record.name))
            if ledItsEntity { announceEntityMovedOn(entity: record.entity, after: record.sequence) }
        }
        // The exact names when the record is readable (each checked to be a plain name in the
        // media folder that carries its id); else every file in the folder that carries its id,
        // never a name the record itself spells. A record whose id is not a valid one names no
        // file of ours.
        if let names = record.mediaNames {
            try store.media.remove(names)
        } else if let id = record.id {
            try store.media.remove(store.media.regularFileNames().filter { $0.hasPrefix(id + ".") })
        }
        try store.media.synchronize()
    }

    /// Whether the outbox is encrypted at rest.
    public var isEncrypted: Bool { store.cipher != nil }

    /// Encrypts this plaintext outbox in place with the key `keyProvider` gives, atomically and
    /// safely against a crash at any instant: afterwards every intent and file is sealed, and
    /// the database is rewritten so that no page of the old plaintext stays in it or its log; a
    /// crash leaves the store either as it was or encrypted, with nothing lost (the next open
    /// sweeps the copies left over and finishes the rewrite). From then on it opens only with
    /// that key. Only when no other process has the outbox open.
    ///
    /// Copies of the plaintext made before (a backup, the blocks a file system has not reused
    /// yet) are beyond its reach.
    ///
    /// - Parameter keyProvider: Where the key comes from.
    /// - Returns: `.encrypted` with what it sealed, or `.alreadyEncrypted` when it was, with this key.
    /// - Throws: `.encryption(.refused)` naming why it cannot now; `.encryption(.wrongKey)` when it is encrypted
    ///   with another key; what the key provider throws; `.store(.database)`, `.media(.write)`.
    public func encrypt(with keyProvider: any KeyProvider) throws(OutboxError) -> EncryptionResult {
        let key = try keyProvider.outboxKey(forStoreIn: folder)
        return try store.encrypt(with: key, folder: folder, makeToken: configuration.makeFileToken)
    }

    /// The value of a pragma on the outbox's own connection, for tests of the durability settings.
    func pragma(_ name: String) throws(OutboxError) -> String? { try store.pragma(name) }

    /// Where a media file of an entry is on disk.
    ///
    /// - Parameter file: One of an entry's `pendingMedia` or `ownedMedia`.
    /// - Returns: The file's location inside the outbox folder.
    public nonisolated func url(of file: MediaFile) -> URL {
        folder.appendingPathComponent(OutboxStore.mediaFolderName, isDirectory: true).appendingPathComponent(file.name)
    }
}

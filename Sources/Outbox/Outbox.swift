import Foundation
import ImagePrep

/// The on-device durable queue that gets captures to the engine: saving is local and fast, and
/// sending is a separate act that may fail and repeat without losing anything.
///
/// Records live in SQLite (`outbox.sqlite`) and media bytes in `media/` beside it, inside the
/// folder the app chooses; `OutboxStore` describes the durability settings and what holds when
/// several processes open the same folder. Every method is safe to call from many tasks at once.
public actor Outbox {
    /// The folder that holds the database and the media files.
    public nonisolated let folder: URL
    /// The clock and time zone this outbox uses.
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
    /// The drains waiting for that one more pass.
    var followUpWaiters: [CheckedContinuation<Result<DrainReport, OutboxError>, Never>] = []
    /// Entries the user asked to send now, which the next pass sends first.
    var sendNowRequests: Set<String> = []

    /// Opens the outbox in `folder`, creating it when absent.
    ///
    /// Opening migrates an older database forward. When no other process has the outbox open it
    /// also puts entries left `SYNCING` by a send that was killed back to `QUEUED` (the engine
    /// dedupes the resend), and removes media files that no record names.
    ///
    /// - Parameters:
    ///   - folder: Where the outbox lives; the app's private storage, never a shared or network folder.
    ///   - configuration: The clock and time zone.
    /// - Throws: `OutboxError` when the folder or the database cannot be opened, or the database
    ///   comes from a newer version of the app.
    public init(folder: URL, configuration: Configuration = Configuration()) throws(OutboxError) {
        let store = try OutboxStore(folder: folder)
        self.folder = folder
        self.configuration = configuration
        self.store = store
        recoveredAtOpen = store.recoveredAtOpen
        sweptAtOpen = store.sweptAtOpen
    }

    /// Queues a capture: writes its files (flushed to disk) and then its record, in one transaction.
    ///
    /// Returns only when the capture is durable. Offering an id that is already queued changes
    /// nothing, even when both offers run at once in different tasks or processes.
    ///
    /// - Parameter capture: The capture, with its id.
    /// - Returns: `.enqueued`, or `.alreadyQueued` when an entry with this id exists.
    /// - Throws: `OutboxError` when a file or the record cannot be written; no file of this
    ///   capture is left behind then.
    @discardableResult
    public func enqueue(_ capture: Capture) throws(OutboxError) -> EnqueueResult {
        try store.enqueue(capture, createdAt: configuration.now(), makeToken: configuration.makeFileToken)
    }

    /// Everything in the outbox, in capture order: readable entries, and beside them the records
    /// this version cannot read (never deleted automatically).
    ///
    /// - Throws: `OutboxError.database` when the database cannot be read.
    public func list() throws(OutboxError) -> OutboxListing {
        var entries: [OutboxEntry] = []
        var unreadable: [UnreadableEntry] = []
        for record in try store.records() {
            switch record.reading {
            case .success(let entry):
                entries.append(entry)
            case .failure(let problem):
                unreadable.append(UnreadableEntry(sequence: record.sequence, id: record.id, reason: problem.reason))
            }
        }
        return OutboxListing(entries: entries, unreadable: unreadable)
    }

    /// The entry with this id.
    ///
    /// - Parameter id: The entry's id.
    /// - Returns: The entry, or nil when the outbox holds none with this id.
    /// - Throws: `unreadableEntry` when this version cannot read it; `database` when reading fails.
    public func entry(id: String) throws(OutboxError) -> OutboxEntry? {
        guard try store.record(id: id) != nil else { return nil }
        return try store.entry(id: id)
    }

    /// Records that the engine has the capture, whatever its state was.
    ///
    /// - Parameter id: The entry's id.
    /// - Throws: `notFound` when the outbox holds no such entry; `unreadableEntry` when this
    ///   version cannot read it.
    public func markSynced(id: String) throws(OutboxError) {
        _ = try store.entry(id: id)
        try store.setState(.synced, lastError: nil, id: id)
    }

    /// Deletes a synced entry: its owned media first, then its record.
    ///
    /// In that order, a crash in between leaves a synced record whose files are gone, which a
    /// second `retire` finishes; the other order would leave files that nothing names.
    ///
    /// - Parameter id: The entry's id.
    /// - Throws: `notFound`; `notSynced` when the engine does not have the capture yet (retiring
    ///   it would lose it); `mediaRemove` or `database` when deleting fails.
    public func retire(id: String) throws(OutboxError) {
        let entry = try store.entry(id: id)
        guard entry.state == .synced else { throw .notSynced(id: id, state: entry.state) }
        try store.media.remove(entry.ownedMedia.map(\.name))
        try store.media.synchronize()
        try store.deleteRecord(id: id)
    }

    /// Retires every synced entry; the drain's caller calls this after a pass.
    ///
    /// - Returns: The ids retired, in capture order.
    /// - Throws: `OutboxError` when deleting fails; the entries retired before the failure stay retired.
    @discardableResult
    public func retireSynced() throws(OutboxError) -> [String] {
        let synced = try list().entries.filter { $0.state == .synced }.map(\.id)
        for id in synced { try retire(id: id) }
        return synced
    }

    /// Deletes an entry whatever its state, readable or not: the record first, then its bytes.
    ///
    /// In that order, a crash in between leaves files that no record names, which the next open
    /// sweeps; the other order would leave a record that names missing files.
    ///
    /// - Parameter id: The entry's id.
    /// - Throws: `notFound`; `mediaRemove` or `database` when deleting fails.
    public func discard(id: String) throws(OutboxError) {
        guard let record = try store.record(id: id) else { throw .notFound(id: id) }
        try store.deleteRecord(id: id)
        // The exact names when the record lists them; every file carrying its id when it cannot.
        if let names = record.mediaNames {
            try store.media.remove(names)
        } else {
            try store.media.remove(store.media.regularFileNames().filter(record.protects))
        }
        try store.media.synchronize()
    }

    /// The value of a pragma on the outbox's own connection, for tests of the durability settings.
    func pragma(_ name: String) throws(OutboxError) -> String? { try store.pragma(name) }

    /// Where a media file of an entry is on disk.
    ///
    /// - Parameter file: One of an entry's `pendingMedia` or `ownedMedia`.
    /// - Returns: The file's location inside the outbox folder.
    public nonisolated func url(of file: MediaFile) -> URL {
        folder.appendingPathComponent("media", isDirectory: true).appendingPathComponent(file.name)
    }
}

import Foundation

/// One row of the entries table as stored, read tolerantly: what this version can make of it,
/// and which media files it names (for the sweep, which must not delete a file any row might need).
struct StoredRecord {
    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = """
        sequence, id, state, created_at, attempts, last_error, pending_media, owned_media, intent,
        next_attempt_at, transient_failures, awaits_send_now
        """

    /// The row's sequence number (its rowid, so always readable).
    let sequence: Int64
    /// The row's id, or nil when the column does not hold text.
    let id: String?
    /// Every file the row names; nil when the row cannot be trusted to name them all (its media
    /// columns are missing or unreadable, or the row is unreadable and a newer format might name
    /// more), in which case every file whose name starts with the id is kept.
    let mediaNames: Set<String>?
    /// The entry, or why this version cannot read it.
    let reading: Result<OutboxEntry, RecordProblem>

    /// Reads the row a statement selecting `columns` is on.
    ///
    /// Missing values take defaults that lose nothing: state `QUEUED`, creation time at the epoch
    /// (so a rescued capture sorts first), no attempts, no error, due at once, and when one media
    /// list is missing it is taken to be the other (sending a file twice is safe; forgetting one is not).
    init(row: borrowing SQLiteStatement) {
        sequence = row.integer(at: 0) ?? 0
        let id = row.text(at: 1)
        self.id = id
        let pending = Self.mediaList(row.bytes(at: 6), column: "pending media")
        let owned = Self.mediaList(row.bytes(at: 7), column: "owned media")
        let entry = Self.entry(row: row, id: id, sequence: sequence, pending: pending, owned: owned)
        reading = entry
        if case .success = entry, case .success(let pending?) = pending, case .success(let owned?) = owned {
            mediaNames = Set((pending + owned).map(\.name))
        } else {
            mediaNames = nil
        }
    }

    /// The readable entry, if it is one.
    var entry: OutboxEntry? { try? reading.get() }

    /// The entry, for operations that need one.
    ///
    /// - Throws: `unreadableEntry` with the reason when this version cannot read the record.
    func readableEntry() throws(OutboxError) -> OutboxEntry {
        switch reading {
        case .success(let entry): return entry
        case .failure(let problem): throw .unreadableEntry(id: id ?? "?", reason: problem.reason)
        }
    }

    /// Every file name that could belong to this row, given all the names in the folder.
    func protects(_ name: String) -> Bool {
        if let mediaNames { return mediaNames.contains(name) }
        guard let id else { return true }
        return name.hasPrefix(id + ".")
    }

    private static func entry(
        row: borrowing SQLiteStatement, id: String?, sequence: Int64,
        pending: Result<[MediaFile]?, RecordProblem>, owned: Result<[MediaFile]?, RecordProblem>
    ) -> Result<OutboxEntry, RecordProblem> {
        guard let id else { return .failure(RecordProblem("its id is not text")) }
        let state: OutboxEntry.State
        if row.isNull(at: 2) {
            state = .queued
        } else if let text = row.text(at: 2), let known = OutboxEntry.State(rawValue: text) {
            state = known
        } else {
            return .failure(RecordProblem("its state '\(row.text(at: 2) ?? "?")' is not one this version knows"))
        }
        let pendingList: [MediaFile]?
        let ownedList: [MediaFile]?
        switch (pending, owned) {
        case (.failure(let problem), _), (_, .failure(let problem)): return .failure(problem)
        case (.success(let readPending), .success(let readOwned)): (pendingList, ownedList) = (readPending, readOwned)
        }
        let intent: CaptureIntent
        switch CaptureIntent.decodeRecord(row.bytes(at: 8) ?? Data("{}".utf8)) {
        case .success(let decoded): intent = decoded
        case .failure(let problem): return .failure(problem)
        }
        return .success(
            OutboxEntry(
                id: id, sequence: sequence, state: state,
                createdAt: Date(timeIntervalSince1970: row.real(at: 3) ?? 0),
                attempts: Int(row.integer(at: 4) ?? 0), lastError: row.text(at: 5),
                pendingMedia: pendingList ?? ownedList ?? [], ownedMedia: ownedList ?? pendingList ?? [],
                intent: intent,
                retry: RetrySchedule(
                    transientFailures: Int(row.integer(at: 10) ?? 0),
                    nextAttemptAt: row.real(at: 9).map(Date.init(timeIntervalSince1970:)),
                    awaitsSendNow: (row.integer(at: 11) ?? 0) != 0)))
    }

    /// A media column: nil when NULL (an older record), the list, or why it cannot be read.
    private static func mediaList(_ bytes: Data?, column: String) -> Result<[MediaFile]?, RecordProblem> {
        guard let bytes else { return .success(nil) }
        do {
            return .success(try JSONDecoder().decode([MediaFile].self, from: bytes))
        } catch {
            return .failure(RecordProblem(decoding: error, of: column))
        }
    }

    /// A media list as the store writes it.
    static func encodeMediaList(_ files: [MediaFile]) -> String {
        // Encoding an array of two plain fields cannot fail.
        let data = try! JSONEncoder().encode(files)
        return String(decoding: data, as: UTF8.self)
    }
}

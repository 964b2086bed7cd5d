import Foundation

/// One row of the entries table as stored, read as untrusted input: what this version can make
/// of it, and which media files it names (for the sweep, which must not delete a file any row
/// might need). Every value passes `StoredValue`'s rules; a row that breaks one is unreadable: it
/// is listed and kept, and nothing is ever sent, deleted or changed on its word. So is a row of
/// an operation type, or a version, that this outbox does not know.
struct StoredRecord {
    /// The columns every read selects, in the order `init(row:catalog:)` reads them.
    static let columns = """
        sequence, id, state, created_at, attempts, last_error, pending_media, owned_media, intent,
        next_attempt_at, transient_failures, awaits_send_now, entity, first_attempt_at, history
        """

    /// The row's sequence number (its rowid, so always readable).
    let sequence: Int64
    /// The row's id, or nil when the column does not hold a valid id (which is then never shown).
    let id: String?
    /// The row's entity key, or nil when it has none or the column does not hold a valid one.
    let entity: String?
    /// Whether the engine has it (its state is `SYNCED`), whatever else the row holds: it then
    /// holds up nothing of its entity.
    let isSettled: Bool
    /// Every file the row names; nil when the row cannot be trusted to name them all (it is
    /// unreadable, and its lists may be damaged or a newer format might name more), in which
    /// case every file whose name starts with the id is kept.
    let mediaNames: Set<String>?
    /// The entry, or why this version cannot read it.
    let reading: Result<OutboxEntry, RecordProblem>

    /// Reads the row a statement selecting `columns` is on.
    ///
    /// Missing values that say nothing about the capture take defaults that lose nothing: state
    /// `QUEUED`, creation time at the epoch (so a rescued capture sorts first), no attempts, no
    /// error, due at once. Counts saturate, times are clamped to 1970...9999, and a stored error is
    /// cut to one short line for showing. The media lists are required: the schema 3 migration
    /// wrote both for every older record, so a missing one is damage, not age.
    ///
    /// In an encrypted store (`cipher`), the intent must open with the store's key for this
    /// record's id: one that does not (a byte changed, another record's moved here, a plaintext
    /// one planted) makes the record unreadable, and nothing of it is decoded or sent.
    init(row: borrowing SQLiteStatement, catalog: OperationCatalog, cipher: StoreCipher?) {
        sequence = row.integer(at: 0) ?? 0
        let idText = row.text(at: 1)
        id = idText.flatMap { OutboxOperation.isValidID($0) ? $0 : nil }
        entity = row.text(at: 12).flatMap { OutboxOperation.isValidEntity($0) ? $0 : nil }
        isSettled = row.text(at: 2) == OutboxEntry.State.synced.rawValue
        let entry = Self.entry(row: row, idText: idText, sequence: sequence, catalog: catalog, cipher: cipher)
        reading = entry.map(\.entry)
        mediaNames = try? entry.get().names
    }

    /// What a listing, `blockedBy` and `discard` call the record: its id, or `#SEQUENCE` when
    /// the id column holds no valid id ('#' is in no id).
    var name: String { id ?? "#\(sequence)" }

    /// The readable entry, if it is one.
    var entry: OutboxEntry? { try? reading.get() }

    /// The entry, for operations that need one.
    ///
    /// - Throws: `.entry(.unreadable)` with the reason when this version cannot read the record.
    func readableEntry() throws(OutboxError) -> OutboxEntry {
        switch reading {
        case .success(let entry): return entry
        case .failure(let problem): throw .entry(.unreadable(id: id ?? "?", reason: problem.reason))
        }
    }

    /// Every file name that could belong to this row, given all the names in the folder.
    func protects(_ name: String) -> Bool {
        if let mediaNames { return mediaNames.contains(name) }
        guard let id else { return true }
        return name.hasPrefix(id + ".")
    }

    private static func entry(
        row: borrowing SQLiteStatement, idText: String?, sequence: Int64, catalog: OperationCatalog,
        cipher: StoreCipher?
    ) -> Result<(entry: OutboxEntry, names: Set<String>), RecordProblem> {
        guard let idText else { return .failure(RecordProblem("its id is not text")) }
        guard OutboxOperation.isValidID(idText) else {
            return .failure(RecordProblem("its id is not a valid outbox id"))
        }
        let entity: String?
        if row.isNull(at: 12) {
            entity = nil
        } else if let text = row.text(at: 12), OutboxOperation.isValidEntity(text) {
            entity = text
        } else {
            return .failure(RecordProblem("its entity key is not a valid one"))
        }
        let state: OutboxEntry.State
        if row.isNull(at: 2) {
            state = .queued
        } else if let text = row.text(at: 2), let known = OutboxEntry.State(rawValue: text) {
            state = known
        } else {
            let shown = UntrustedText.quoted(row.text(at: 2) ?? "?", limit: 40)
            return .failure(RecordProblem("its state '\(shown)' is not one this version knows"))
        }
        let pending: [MediaFile]
        let owned: [MediaFile]
        switch (
            mediaList(row.bytes(at: 6), column: "pending media", id: idText),
            mediaList(row.bytes(at: 7), column: "owned media", id: idText)
        ) {
        case (.failure(let problem), _), (_, .failure(let problem)): return .failure(problem)
        case (.success(let readPending), .success(let readOwned)): (pending, owned) = (readPending, readOwned)
        }
        guard Set(pending).isSubset(of: Set(owned)) else {
            return .failure(RecordProblem("its pending media names a file it does not own"))
        }
        let intent: StoredIntent
        switch StoredValue.bytes(row.bytes(at: 8), atMost: StoredValue.largestIntent, column: "intent") {
        case .failure(let problem): return .failure(problem)
        case .success(nil): return .failure(RecordProblem("its intent is missing"))
        case .success(let stored?):
            let bytes: Data
            if let cipher {
                guard StoreCipher.isSealed(stored) else {
                    return .failure(
                        RecordProblem("its intent is not encrypted, as every one in this encrypted outbox is"))
                }
                guard let opened = cipher.open(stored, for: cipher.intentRole(id: idText, ownedMedia: owned)) else {
                    return .failure(
                        RecordProblem(
                            "its intent fails authentication with the outbox's key: it, or its list of files, was"
                                + " changed, or it is another entry's"))
                }
                bytes = opened
            } else if StoreCipher.isSealed(stored) {
                return .failure(RecordProblem(EncryptionRecord.lostWording))
            } else {
                bytes = stored
            }
            switch StoredIntent.decode(bytes) {
            case .success(let decoded): intent = decoded
            case .failure(let problem): return .failure(problem)
            }
        }
        if let problem = catalog.problem(type: intent.operation, version: intent.version) {
            return .failure(RecordProblem(problem))
        }
        let payload = Data(intent.payload.utf8)
        if let problem = EngineRequest.payloadProblem(type: intent.operation, version: intent.version, payload: payload)
        {
            return .failure(RecordProblem(problem))
        }
        let entry = OutboxEntry(
            id: idText, sequence: sequence, state: state,
            createdAt: StoredValue.moment(row.real(at: 3)) ?? Date(timeIntervalSince1970: 0),
            attempts: StoredValue.count(row.integer(at: 4)),
            lastError: StoredValue.shown(
                lastError(row.bytes(at: 5), isText: row.text(at: 5) != nil, id: idText, cipher: cipher)),
            entity: entity, type: intent.operation, version: intent.version, payload: payload, media: intent.media,
            pendingMedia: pending, ownedMedia: owned, blockedBy: nil, waitsForNetwork: nil,
            retry: RetrySchedule(
                transientFailures: StoredValue.count(row.integer(at: 10)),
                nextAttemptAt: StoredValue.moment(row.real(at: 9)),
                awaitsSendNow: (row.integer(at: 11) ?? 0) != 0),
            firstAttemptAt: StoredValue.moment(row.real(at: 13)), history: EntryHistory.lines(row.text(at: 14)))
        return .success((entry, Set(owned.map(\.name))))
    }

    /// The `last_error` column as text: in an encrypted store it is sealed for the record
    /// (`StoreCipher.Role.lastError`), since an engine's answer may quote what was sent; one
    /// that does not open is not shown. A format-1 store's plaintext one is shown until the
    /// upgrade seals it.
    private static func lastError(_ stored: Data?, isText: Bool, id: String, cipher: StoreCipher?) -> String? {
        guard let stored else { return nil }
        guard let cipher else { return isText ? String(decoding: stored, as: UTF8.self) : nil }
        if let opened = cipher.open(stored, for: .lastError(id: id)) { return String(decoding: opened, as: UTF8.self) }
        if isText, cipher.format < 2, !StoreCipher.isSealed(stored) { return String(decoding: stored, as: UTF8.self) }
        return "its last error cannot be shown: it fails authentication with the outbox's key"
    }

    /// A media column: the list, or why it cannot be read. Each name must be a plain file name
    /// that the store would make for this record (`ID.INDEX.…`, so never another record's file),
    /// each index an upload's, and neither may repeat.
    static func mediaList(_ bytes: Data?, column: String, id: String) -> Result<[MediaFile], RecordProblem> {
        let files: [MediaFile]
        switch StoredValue.bytes(bytes, atMost: StoredValue.largestMediaList, column: column) {
        case .failure(let problem):
            return .failure(problem)
        case .success(nil):
            return .failure(RecordProblem("its \(column) list is missing"))
        case .success(let bytes?):
            do {
                files = try JSONDecoder().decode([MediaFile].self, from: bytes)
            } catch {
                return .failure(RecordProblem(decoding: error, of: column))
            }
        }
        guard files.allSatisfy({ StoredValue.isPlainFileName($0.name) }) else {
            return .failure(RecordProblem("its \(column) names a file outside the media folder"))
        }
        guard files.allSatisfy({ StoredValue.mediaIndices.contains($0.index) }),
            Set(files.map(\.index)).count == files.count, Set(files.map(\.name)).count == files.count
        else {
            return .failure(RecordProblem("its \(column) repeats an upload or numbers one out of range"))
        }
        // An id holds no '.', so no other record's file starts so.
        guard files.allSatisfy({ $0.name.hasPrefix("\(id).\($0.index).") }) else {
            return .failure(RecordProblem("its \(column) names a file that is not one of its own"))
        }
        return .success(files)
    }

    /// A media list as the store writes it, keys sorted so that equal lists are equal bytes.
    static func encodeMediaList(_ files: [MediaFile]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding an array of two plain fields cannot fail.
        let data = try! encoder.encode(files)
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why a stored record cannot be read, in words that never quote the record's values.
struct RecordProblem: Error, Equatable {
    var reason: String

    init(_ reason: String) { self.reason = reason }

    /// Describes a JSON decoding failure by where it happened, not by what the bytes held.
    init(decoding error: any Error, of field: String) {
        guard let error = error as? DecodingError else {
            self.init("its \(field) cannot be decoded")
            return
        }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init("its \(field) is not valid JSON")
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            self.init("its \(field) has a value of the wrong type at '\(path(context))'")
        case .keyNotFound(let key, _):
            self.init("its \(field) lacks '\(key.stringValue)'")
        @unknown default:
            self.init("its \(field) cannot be decoded")
        }
    }
}

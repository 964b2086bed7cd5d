import Foundation

/// What an outbox encrypted at rest stores to remember it: the one row of `outbox_encryption`.
///
/// - `format`: the format of `StoreCipher`: 2, in which each intent is bound to its record's
///   list of files and `last_error` is sealed; 1 before that, upgraded at the next sole open.
/// - `key_check`: an empty value sealed with the key, for the role "key-check": the key opens it
///   or is not this store's key. So a wrong key is told apart from a damaged entry, and refused
///   before anything is read, sent or deleted.
/// - `plaintext_purged`: 0 from the moment `encrypt` commits until the database file has been
///   rewritten and its log emptied, so that no page of the plaintext it held survives; an open
///   that finds 0 finishes the purge.
struct EncryptionRecord {
    static let table = "outbox_encryption"
    /// The format this version writes.
    static let format: Int64 = 2
    /// The formats this version reads.
    static let readableFormats: ClosedRange<Int64> = 1...2

    let format: Int64?
    let keyCheck: Data?
    let isPlaintextPurged: Bool

    /// The store's record, or nil when the store is not encrypted.
    static func read(_ database: borrowing SQLiteDatabase, schema: String = "main") throws(OutboxError)
        -> EncryptionRecord?
    {
        try database.query(
            "SELECT format, key_check, plaintext_purged FROM \(schema).\(table) ORDER BY rowid LIMIT 1"
        ) { row in
            EncryptionRecord(
                format: row.integer(at: 0), keyCheck: row.bytes(at: 1),
                isPlaintextPurged: (row.integer(at: 2) ?? 1) != 0)
        }.first
    }

    /// The cipher that opens the store this record is of, with the key `keyProvider` gives.
    ///
    /// - Throws: `.encryption(.keyRequired)` without a provider; `.encryption(.wrongKey)` when the key does not open the
    ///   key check; `.store(.unreadable)` for a format this version does not know.
    func cipher(keyProvider: (any KeyProvider)?, folder: URL) throws(OutboxError) -> StoreCipher {
        guard let format, Self.readableFormats.contains(format) else {
            throw .store(
                .unreadable(
                    path: folder.path,
                    cause: .found(
                        "it is encrypted in a format (\(format.map(String.init) ?? "none")) this version does not know")
                ))
        }
        guard let keyProvider else { throw .encryption(.keyRequired(path: folder.path)) }
        let cipher = StoreCipher(key: try keyProvider.outboxKey(forStoreIn: folder), format: format)
        guard let keyCheck, cipher.open(keyCheck, for: .keyCheck) != nil else {
            throw .encryption(.wrongKey(path: folder.path))
        }
        return cipher
    }
}

extension EncryptionRecord {
    /// Why a record whose intent is sealed cannot be read in a store without an encryption record.
    static let lostWording =
        "its intent is encrypted, but the outbox has lost the record of its encryption (outbox_encryption)"
}

/// What `Outbox.encrypt(with:)` did.
public enum EncryptionResult: Sendable, Hashable {
    /// The outbox is now encrypted: its entries' intents and their files.
    case encrypted(entries: Int, files: Int)
    /// It was encrypted already, with this key; nothing changed.
    case alreadyEncrypted
}

extension OutboxStore {
    /// The cipher of the store just opened: the one its record names, or, for a store that holds
    /// no entry yet and is given a key, a new record under that key, made under the write lock
    /// so that two first openers agree on it.
    ///
    /// - Throws: `.encryption(.keyRequired)`, `.encryption(.wrongKey)`, `.encryption(.notEncrypted)` for a plaintext store with entries,
    ///   or what the key provider throws.
    func openCipher(keyProvider: (any KeyProvider)?, folder: URL) throws(OutboxError) -> StoreCipher? {
        if let record = try EncryptionRecord.read(database) {
            return try record.cipher(keyProvider: keyProvider, folder: folder)
        }
        guard let keyProvider else { return nil }
        let cipher = StoreCipher(key: try keyProvider.outboxKey(forStoreIn: folder))
        return try database.transaction { () throws(OutboxError) -> StoreCipher in
            if let record = try EncryptionRecord.read(database) {
                return try record.cipher(keyProvider: keyProvider, folder: folder)
            }
            let hasEntries = try !database.query("SELECT 1 FROM \(Self.table) LIMIT 1") { _ in true }.isEmpty
            if try holdsSealedIntents() { throw .encryption(.recordLost(path: folder.path)) }
            if hasEntries { throw .encryption(.notEncrypted(path: folder.path)) }
            try Self.insertEncryptionRecord(database, cipher: cipher, isPlaintextPurged: true)
            return cipher
        }
    }

    /// Whether any record's intent is sealed: in a store without an encryption record, that
    /// record was lost (deleted by hand, or a restore that missed it), and the store must be
    /// neither read as plaintext nor sealed again.
    private func holdsSealedIntents() throws(OutboxError) -> Bool {
        try !database.query(
            "SELECT 1 FROM \(Self.table) WHERE substr(CAST(intent AS BLOB), 1, ?) = ? LIMIT 1",
            [.integer(Int64(StoreCipher.magic.count)), .blob(Data(StoreCipher.magic))]
        ) { _ in true }.isEmpty
    }

    /// Brings a store of format 1 to format 2, once, when this opener has it to itself (an older
    /// version open beside it would go on writing format 1): each intent that opens as format 1
    /// sealed it, and whose lists name only its own files, is sealed again bound to its list of
    /// files; each plaintext `last_error` is sealed; and the database is left to be rewritten
    /// (`purgeRemainingPlaintext`), so that no page keeps an old error. An intent that does not
    /// open stays as it is: its record was unreadable and stays so.
    ///
    /// - Returns: The cipher of format 2, or `cipher` as it was when there was nothing to do.
    func upgradeEncryptionFormat() throws(OutboxError) -> StoreCipher? {
        guard let old = cipher, old.format < EncryptionRecord.format else { return cipher }
        let new = StoreCipher(key: old.key)
        try database.transaction { () throws(OutboxError) in
            let rows = try database.query(
                "SELECT sequence, id, intent, owned_media, last_error FROM \(Self.table) ORDER BY sequence"
            ) { row in
                (
                    sequence: row.integer(at: 0) ?? 0, id: row.text(at: 1), intent: row.bytes(at: 2),
                    owned: row.bytes(at: 3), error: row.text(at: 4)
                )
            }
            for row in rows {
                guard let id = row.id, OutboxOperation.isValidID(id) else { continue }
                if let error = row.error {
                    try database.run(
                        "UPDATE \(Self.table) SET last_error = ? WHERE sequence = ?",
                        .blob(new.seal(Data(error.utf8), for: .lastError(id: id))), .integer(row.sequence))
                }
                guard let intent = row.intent, let opened = old.open(intent, for: .formatOneIntent(id: id)),
                    case .success(let owned) = StoredRecord.mediaList(row.owned, column: "owned media", id: id)
                else { continue }
                try database.run(
                    "UPDATE \(Self.table) SET intent = ? WHERE sequence = ?",
                    .blob(new.seal(opened, for: .intent(id: id, ownedMedia: owned))), .integer(row.sequence))
            }
            try database.run(
                "UPDATE \(EncryptionRecord.table) SET format = ?, plaintext_purged = 0",
                .integer(EncryptionRecord.format))
        }
        return new
    }

    private static func insertEncryptionRecord(
        _ database: borrowing SQLiteDatabase, cipher: StoreCipher, isPlaintextPurged: Bool
    ) throws(OutboxError) {
        try database.run(
            "INSERT INTO \(EncryptionRecord.table) (format, key_check, plaintext_purged) VALUES (?, ?, ?)",
            .integer(EncryptionRecord.format), .blob(cipher.seal(Data(), for: .keyCheck)),
            .integer(isPlaintextPurged ? 1 : 0))
    }

    /// Encrypts a plaintext store in place, atomically: every intent and every file, or nothing.
    ///
    /// Only when no one else has the store open (a process that opened it as plaintext would go
    /// on writing plaintext). Inside one write transaction, each file is sealed to a new file
    /// (flushed, folder flushed), each record's intent is sealed and its lists renamed, and the
    /// encryption record is written; then the transaction commits. A crash before the commit
    /// leaves the plaintext store as it was, with sealed files no record names, which the next
    /// open sweeps; a crash after it leaves an encrypted store with plaintext files no record
    /// names, swept likewise. Then the plaintext files go, and the database is rewritten
    /// (`VACUUM`) and its log emptied, so that no page of the old plaintext stays in either;
    /// an open that finds this unfinished finishes it (`purgeRemainingPlaintext`).
    ///
    /// - Throws: `.encryption(.refused)` naming why (another opener, a record that cannot be read
    ///   enough to be encrypted, a file that cannot be read); `.encryption(.wrongKey)` when it is encrypted
    ///   already with another key; `.store(.database)`, `.media(.write)`.
    func encrypt(with key: OutboxKey, folder: URL, makeToken: () -> String) throws(OutboxError) -> EncryptionResult {
        func refuse(_ reason: String) -> OutboxError { .encryption(.refused(path: folder.path, reason: reason)) }
        if let cipher {
            guard cipher == StoreCipher(key: key) else { throw .encryption(.wrongKey(path: folder.path)) }
            return .alreadyEncrypted
        }
        guard lock.becomeSoleOpenerIfPossible() else {
            throw refuse("another process has it open; let it finish (a drain, an add) and try again")
        }
        defer { try? lock.share(path: folder.path) }
        // What an earlier, interrupted conversion left behind goes first.
        _ = try sweepUnnamedMedia()
        let newCipher = StoreCipher(key: key)
        var written: [String] = []
        var replaced: [String] = []
        var entryCount = 0
        try database.run("BEGIN IMMEDIATE")
        do throws(OutboxError) {
            if let record = try EncryptionRecord.read(database) {
                _ = try record.cipher(keyProvider: FixedKey(key: key), folder: folder)
                throw refuse("another process encrypted it meanwhile")
            }
            // Sealed values in a store without its record: sealing them again would make them
            // unreadable for good.
            if try holdsSealedIntents() { throw .encryption(.recordLost(path: folder.path)) }
            let rows = try database.query(
                "SELECT sequence, id, intent, pending_media, owned_media, last_error FROM \(Self.table) ORDER BY sequence"
            ) { row in
                (
                    sequence: row.integer(at: 0) ?? 0, id: row.text(at: 1), intent: row.bytes(at: 2),
                    pending: row.bytes(at: 3), owned: row.bytes(at: 4), error: row.text(at: 5)
                )
            }
            for row in rows {
                guard let id = row.id, OutboxOperation.isValidID(id) else {
                    throw refuse("the record at position \(row.sequence) has no valid id, so it cannot be encrypted")
                }
                let lists = (
                    StoredRecord.mediaList(row.pending, column: "pending media", id: id),
                    StoredRecord.mediaList(row.owned, column: "owned media", id: id)
                )
                guard case .success(let pending) = lists.0, case .success(let owned) = lists.1 else {
                    throw refuse("the media lists of the entry '\(id)' cannot be read; discard it first")
                }
                var renamed: [String: String] = [:]
                for file in owned {
                    let bytes: Data
                    switch media.contents(of: file.name, atMost: StoredValue.largestUpload, openedWith: nil) {
                    case .success(let read): bytes = read
                    // Nothing to encrypt: the drain parks the entry for its missing file, as before.
                    case .failure(.missing): continue
                    case .failure(let problem):
                        throw refuse("the file '\(file.name)' of the entry '\(id)' \(problem.wording)")
                    }
                    let name = "\(id).\(file.index).\(makeToken()).\(Self.sealedExtension)"
                    try media.write(
                        bytes, named: name, sealedWith: MediaSeal(cipher: newCipher, id: id, index: file.index))
                    written.append(name)
                    replaced.append(file.name)
                    renamed[file.name] = name
                }
                func rename(_ files: [MediaFile]) -> [MediaFile] {
                    files.map { MediaFile(index: $0.index, name: renamed[$0.name] ?? $0.name) }
                }
                let sealedIntent = row.intent.map {
                    SQLiteValue.blob(newCipher.seal($0, for: .intent(id: id, ownedMedia: rename(owned))))
                }
                try database.run(
                    """
                    UPDATE \(Self.table) SET intent = ?, pending_media = ?, owned_media = ?, last_error = ?,
                        upload_resources = NULL
                    WHERE sequence = ?
                    """,
                    sealedIntent ?? .null, .text(StoredRecord.encodeMediaList(rename(pending))),
                    .text(StoredRecord.encodeMediaList(rename(owned))),
                    row.error.map { .blob(newCipher.seal(Data($0.utf8), for: .lastError(id: id))) } ?? .null,
                    .integer(row.sequence))
                entryCount += 1
            }
            if !written.isEmpty { try media.synchronize() }
            // Plaintext, and for the engine's sake only: it expires what is not given back.
            try database.run("DELETE FROM \(Self.abandonedTable)")
            try Self.insertEncryptionRecord(database, cipher: newCipher, isPlaintextPurged: false)
            try database.run("COMMIT")
        } catch {
            if database.isInTransaction { try? database.run("ROLLBACK") }
            media.removeQuietly(written)
            throw error
        }
        cipher = newCipher
        media.removeQuietly(replaced)
        try media.synchronize()
        try purgeRemainingPlaintext()
        return .encrypted(entries: entryCount, files: written.count)
    }

    /// Finishes what `encrypt` began, when the store's record says it is unfinished: rewrites the
    /// database (`VACUUM`, its scratch copy in memory), so that no free page keeps an old
    /// plaintext intent, and checkpoints the log into it and empties it, so that no old page
    /// stays there either. Only the sole opener does it, since readers would keep the log.
    func purgeRemainingPlaintext() throws(OutboxError) {
        guard let record = try EncryptionRecord.read(database), !record.isPlaintextPurged else { return }
        try database.run("VACUUM")
        let isBusy = try database.query("PRAGMA wal_checkpoint(TRUNCATE)") { row in (row.integer(at: 0) ?? 1) != 0 }
        // A reader still holds the log: the next open tries again.
        guard isBusy.first == false else { return }
        try database.run("UPDATE \(EncryptionRecord.table) SET plaintext_purged = 1")
    }

    /// The ending of a sealed media file's name: it is no JPEG (or anything else) to look at.
    static let sealedExtension = "sealed"
}

/// A key already in hand, as a provider.
private struct FixedKey: KeyProvider {
    let key: OutboxKey
    func key(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey { key }
}

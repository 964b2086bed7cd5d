import Foundation

/// Queuing an operation: its files, then its record, inside the write transaction in progress.
extension OutboxStore {
    /// Writes an operation's files (flushed, folder flushed) and then its record, inside the
    /// write transaction in progress; `.alreadyQueued` without writing anything when the id is taken.
    ///
    /// An operation of a last-write-wins type replaces the last entry of its entity when that one
    /// is of the same type and no send of it ever started: then the engine cannot hold it, and
    /// nothing of its entity comes between. Its record goes in the same transaction; its files once
    /// the transaction has committed.
    ///
    /// - Throws: `.request(.unknownOperationType)`, `.media(.write)`, `.store(.database)`.
    func insert(_ operation: OutboxOperation, createdAt: Date, makeToken: () -> String) throws(OutboxError)
        -> EnqueueResult
    {
        precondition(transactionFiles != nil, "insert runs inside writeTransaction")
        guard let type = catalog.type(named: operation.type), type.versions.contains(operation.version) else {
            throw .request(.unknownOperationType(type: operation.type, version: operation.version))
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
}

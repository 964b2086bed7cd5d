import Foundation

extension OutboxStore {
    /// One step from a schema version to the next, inside the migration's transaction: SQL, or
    /// Swift where a step has to read what older versions wrote (and the media folder) to mend it.
    struct Migration: Sendable {
        let apply: @Sendable (borrowing SQLiteDatabase, MediaFolder) throws(OutboxError) -> Void

        /// A step that is one script of SQL statements without parameters.
        static func sql(_ script: String) -> Migration {
            Migration { database, _ throws(OutboxError) in try database.execute(script: script) }
        }
    }

    /// The steps from each schema version to the next; step `i` goes from version `i` to `i + 1`.
    ///
    /// Every column but the id may be NULL in the table: records from older versions lack values.
    ///
    /// - 1: the queue.
    /// - 2: the retry schedule: when an automatic drain may next send an entry, how many
    ///   transient failures in a row it has had, and whether it waits for `sendNow`.
    /// - 3: mends what older versions could leave behind (see `mendOlderRecords`), and makes the
    ///   id unique in every store, also in those whose table was made without `UNIQUE`.
    /// - 4: operations of any type (see `convertToOperations`): the table becomes
    ///   `outbox_entries` (an app keeps its own tables beside it, under other names), with an
    ///   entity key, indexed for the order per entity, and the time a send first started.
    /// - 5: encryption at rest: `outbox_encryption` holds one row when the store is encrypted
    ///   (see `StoreEncryption`), none when it is not.
    /// - 6: how many times in a row the engine answered that it does not hold an entry's uploads,
    ///   which were then sent again (`upload_resends`), so that an engine that loses them every
    ///   time parks the entry instead of taking them for ever.
    /// - 7: the resumable upload resources the engine made for an entry's uploads
    ///   (`upload_resources`), so that a send cut in one process resumes in the next.
    /// - 8: each entry's history (`history`, see `EntryHistory`), and the upload resources the
    ///   outbox will not use again, until the engine gives them back (`outbox_abandoned_uploads`).
    /// - 9: in how many passes in a row the engine did not answer for a row of resources to give
    ///   back (`unanswered`), so that one that never answers `DELETE` lets go of it.
    static let migrations: [Migration] = [
        .sql(
            """
            CREATE TABLE entries (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                state TEXT,
                created_at REAL,
                attempts INTEGER,
                last_error TEXT,
                pending_media TEXT,
                owned_media TEXT,
                intent TEXT
            );
            """),
        .sql(
            """
            ALTER TABLE entries ADD COLUMN next_attempt_at REAL;
            ALTER TABLE entries ADD COLUMN transient_failures INTEGER;
            ALTER TABLE entries ADD COLUMN awaits_send_now INTEGER;
            """),
        Migration { database, media throws(OutboxError) in try mendOlderRecords(database, media: media) },
        Migration { database, _ throws(OutboxError) in
            try database.execute(
                script: """
                    ALTER TABLE entries RENAME TO outbox_entries;
                    ALTER TABLE outbox_entries ADD COLUMN entity TEXT;
                    ALTER TABLE outbox_entries ADD COLUMN first_attempt_at REAL;
                    DROP INDEX IF EXISTS entries_unique_id;
                    CREATE UNIQUE INDEX IF NOT EXISTS outbox_entries_id ON outbox_entries (id);
                    CREATE INDEX IF NOT EXISTS outbox_entries_entity ON outbox_entries (entity, sequence);
                    """)
            try convertToOperations(database)
        },
        .sql(
            """
            CREATE TABLE IF NOT EXISTS outbox_encryption (
                format INTEGER,
                key_check BLOB,
                plaintext_purged INTEGER
            );
            """),
        .sql("ALTER TABLE outbox_entries ADD COLUMN upload_resends INTEGER;"),
        .sql("ALTER TABLE outbox_entries ADD COLUMN upload_resources;"),
        .sql(
            """
            ALTER TABLE outbox_entries ADD COLUMN history TEXT;
            CREATE TABLE IF NOT EXISTS outbox_abandoned_uploads (id TEXT, resources);
            """),
        // The table is made again where it is missing: a store read without writing
        // (`recordsReadingOnly`) copies only the entries.
        .sql(
            """
            CREATE TABLE IF NOT EXISTS outbox_abandoned_uploads (id TEXT, resources);
            ALTER TABLE outbox_abandoned_uploads ADD COLUMN unanswered INTEGER;
            """),
    ]

    /// Brings the schema up to `schemaVersion`, in one transaction so that a crash mid-way
    /// leaves the old version intact; refuses a database from a newer version.
    ///
    /// A store at the current schema, which is what nearly every open finds, is not locked for
    /// it: every `list` and `add` would otherwise wait for the write lock, behind a drain's fsyncs.
    static func migrate(_ database: borrowing SQLiteDatabase, media: MediaFolder) throws(OutboxError) {
        if try schemaVersion(of: database) == schemaVersion { return }
        try database.transaction { () throws(OutboxError) in
            // Read inside the transaction: another process may have migrated while this one waited.
            let found = try schemaVersion(of: database)
            guard found <= schemaVersion else {
                throw .newerSchema(path: database.path, version: found, supported: schemaVersion)
            }
            for version in max(0, found)..<schemaVersion { try migrations[version].apply(database, media) }
            if found < schemaVersion { try database.run("PRAGMA user_version=\(schemaVersion)") }
        }
    }

    /// The schema version the database says it has (`PRAGMA user_version`), for one schema or an attached one.
    static func schemaVersion(of database: borrowing SQLiteDatabase, schema: String = "main") throws(OutboxError)
        -> Int
    {
        Int(try database.query("PRAGMA \(schema).user_version") { row in row.integer(at: 0) ?? 0 }.first ?? 0)
    }

    // MARK: Schema 3

    /// Mends, once, what the versions before schema 3 could leave in a store:
    ///
    /// - One id on several rows (possible where the table was made without `UNIQUE`) becomes one
    ///   row: the settled one (`SYNCED`: the engine has it) when there is one, else the first in
    ///   capture order, owning the files of the others too. Then the id is made unique.
    /// - A record with one media list (the first format kept only the files still to send)
    ///   gets its owned list written: the files it lists, and every file in the media folder that
    ///   carries its id (`ID.INDEX.TOKEN.jpg`), so that retiring it deletes what was sent too.
    ///   Reading never derives one list from the other again.
    /// - A media descriptor without its SHA-256 or byte count gets them from its file.
    static func mendOlderRecords(_ database: borrowing SQLiteDatabase, media: MediaFolder) throws(OutboxError) {
        try collapseDuplicateIDs(database)
        try database.run("CREATE UNIQUE INDEX IF NOT EXISTS entries_unique_id ON entries (id)")
        try completeMediaLists(database, media: media)
        try completeMediaDescriptors(database, media: media)
    }

    /// One row per id: see `mendOlderRecords`.
    private static func collapseDuplicateIDs(_ database: borrowing SQLiteDatabase) throws(OutboxError) {
        // Matched as bytes, so that an id that is not valid text (a damaged row) is matched too.
        let repeated = try database.query("SELECT id FROM entries GROUP BY id HAVING COUNT(*) > 1") { row in
            row.bytes(at: 0)
        }
        for case let id? in repeated {
            let copies = try database.query(
                "SELECT sequence, state, owned_media FROM entries WHERE CAST(id AS BLOB) = ? ORDER BY sequence",
                [.blob(id)]
            ) { row in
                (sequence: row.integer(at: 0) ?? 0, state: row.text(at: 1), owned: lenientMediaList(row.bytes(at: 2)))
            }
            guard let keeper = copies.first(where: { $0.state == OutboxEntry.State.synced.rawValue }) ?? copies.first
            else { continue }
            // The keeper owns its own files and, for an upload it has none of, another copy's.
            if var owned = keeper.owned {
                for file in copies.compactMap(\.owned).joined()
                where !owned.contains(where: { $0.index == file.index || $0.name == file.name }) {
                    owned.append(file)
                }
                try database.run(
                    "UPDATE entries SET owned_media = ? WHERE sequence = ?",
                    .text(StoredRecord.encodeMediaList(owned)), .integer(keeper.sequence))
            }
            try database.run(
                "DELETE FROM entries WHERE CAST(id AS BLOB) = ? AND sequence != ?", .blob(id), .integer(keeper.sequence)
            )
        }
    }

    /// Both media lists on every record: see `mendOlderRecords`.
    private static func completeMediaLists(_ database: borrowing SQLiteDatabase, media: MediaFolder) throws(OutboxError)
    {
        let incomplete = try database.query(
            "SELECT sequence, id, pending_media, owned_media FROM entries WHERE pending_media IS NULL OR owned_media IS NULL"
        ) { row in
            (
                sequence: row.integer(at: 0) ?? 0, id: row.text(at: 1), pending: row.bytes(at: 2),
                owned: row.bytes(at: 3)
            )
        }
        guard !incomplete.isEmpty else { return }
        let folderNames = try media.regularFileNames().sorted()
        for record in incomplete {
            // A list that is there but unreadable stays as it is: the record is unreadable and kept.
            let pending = record.pending.map(lenientMediaList)
            let owned = record.owned.map(lenientMediaList)
            if case .some(nil) = pending { continue }
            if case .some(nil) = owned { continue }
            var completedOwned = owned.flatMap { $0 } ?? pending.flatMap { $0 } ?? []
            if owned == nil, let id = record.id, OutboxOperation.isValidID(id) {
                for name in folderNames where !completedOwned.contains(where: { $0.name == name }) {
                    guard let index = mediaIndex(inFileName: name, id: id),
                        !completedOwned.contains(where: { $0.index == index })
                    else { continue }
                    completedOwned.append(MediaFile(index: index, name: name))
                }
                completedOwned.sort { $0.index < $1.index }
            }
            // Sending a file again is safe (the engine answers it as a repeat); forgetting one is not.
            let completedPending = pending.flatMap { $0 } ?? completedOwned
            try database.run(
                "UPDATE entries SET pending_media = ?, owned_media = ? WHERE sequence = ?",
                .text(StoredRecord.encodeMediaList(completedPending)),
                .text(StoredRecord.encodeMediaList(completedOwned)),
                .integer(record.sequence))
        }
    }

    /// A SHA-256 and a byte count in every media descriptor whose file is there: see `mendOlderRecords`.
    ///
    /// The intent is edited as plain JSON rather than decoded and encoded again, so that every
    /// field this version does not know stays as it was.
    private static func completeMediaDescriptors(_ database: borrowing SQLiteDatabase, media: MediaFolder)
        throws(OutboxError)
    {
        let records = try database.query(
            "SELECT sequence, owned_media, intent FROM entries WHERE intent IS NOT NULL AND owned_media IS NOT NULL"
        ) { row in (sequence: row.integer(at: 0) ?? 0, owned: row.bytes(at: 1), intent: row.bytes(at: 2)) }
        for record in records {
            guard let intentBytes = record.intent, intentBytes.count <= StoredValue.largestIntent,
                let owned = record.owned.flatMap(lenientMediaList), !owned.isEmpty,
                var envelope = (try? JSONSerialization.jsonObject(with: intentBytes)) as? [String: Any]
            else { continue }
            var arguments = envelope["arguments"] as? [String: Any] ?? [:]
            var descriptors = arguments["media"] as? [[String: Any]] ?? []
            var changed = false
            // A record that lists files but describes none gets a descriptor for each.
            if descriptors.isEmpty {
                descriptors = owned.map { ["index": $0.index, "width": 0, "height": 0] }
                changed = true
            }
            for (position, descriptor) in descriptors.enumerated() {
                let hasChecksum = (descriptor["sha256"] as? String).map(MediaDescriptor.isSHA256) ?? false
                let hasSize = ((descriptor["byteCount"] as? NSNumber)?.int64Value ?? 0) > 0
                guard !hasChecksum || !hasSize, let index = (descriptor["index"] as? NSNumber)?.intValue,
                    let file = owned.first(where: { $0.index == index }),
                    case .success(let bytes) = media.contents(
                        of: file.name, atMost: StoredValue.largestUpload, openedWith: nil)
                else { continue }
                descriptors[position]["sha256"] = Cryptography.sha256Hex(of: bytes)
                descriptors[position]["byteCount"] = bytes.count
                changed = true
            }
            guard changed else { continue }
            arguments["media"] = descriptors
            envelope["arguments"] = arguments
            guard let mended = try? JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys]) else {
                continue
            }
            try database.run(
                "UPDATE entries SET intent = ? WHERE sequence = ?", .text(String(decoding: mended, as: UTF8.self)),
                .integer(record.sequence))
        }
    }

    /// A stored media list as far as it can be read, keeping only plain file names; nil when it
    /// is not a list at all.
    private static func lenientMediaList(_ bytes: Data?) -> [MediaFile]? {
        guard let bytes, bytes.count <= StoredValue.largestMediaList,
            let files = try? JSONDecoder().decode([MediaFile].self, from: bytes)
        else { return nil }
        return files.filter { StoredValue.isPlainFileName($0.name) && StoredValue.mediaIndices.contains($0.index) }
    }

    /// The index in a media file name the outbox wrote for `id` (`ID.INDEX.TOKEN.jpg`), if it is one.
    private static func mediaIndex(inFileName name: String, id: String) -> Int? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == id, parts[1].allSatisfy(\.isASCIIDigit), let index = Int(parts[1]),
            StoredValue.mediaIndices.contains(index)
        else { return nil }
        return index
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

// MARK: - Schema 4

extension OutboxStore {
    /// Turns every record of the versions before schema 4, all photo captures, into a
    /// `capture.create` operation, once:
    ///
    /// - The intent `{"version", "operation", "arguments": {…, "media": [...]}}` becomes a
    ///   `StoredIntent`: the same operation and version, the arguments without their media as
    ///   the payload, and the media descriptors beside it (of type image/jpeg, the only files
    ///   those versions kept). An intent that is not such an object stays as it was: the record
    ///   stays unreadable, and kept. A missing intent (the first versions could leave one) reads
    ///   as an empty capture, as it did before.
    /// - A record that was ever sent (an attempt counted, a state other than queued, an upload
    ///   landed) is marked as sent, so that nothing the engine may hold is ever compacted away.
    static func convertToOperations(_ database: borrowing SQLiteDatabase) throws(OutboxError) {
        try database.run(
            """
            UPDATE outbox_entries SET first_attempt_at = COALESCE(created_at, 0)
            WHERE (typeof(attempts) = 'integer' AND attempts > 0) OR COALESCE(state, 'QUEUED') != 'QUEUED'
                OR pending_media IS NOT owned_media
            """)
        let records = try database.query("SELECT sequence, intent FROM outbox_entries") { row in
            (sequence: row.integer(at: 0) ?? 0, intent: row.bytes(at: 1))
        }
        for record in records {
            guard let converted = convertedIntent(record.intent) else { continue }
            try database.run(
                "UPDATE outbox_entries SET intent = ? WHERE sequence = ?",
                .text(String(decoding: converted, as: UTF8.self)), .integer(record.sequence))
        }
    }

    /// The schema 4 form of an older intent, or nil when it is not one that can be converted.
    private static func convertedIntent(_ stored: Data?) -> Data? {
        let envelope: [String: Any]
        if let stored {
            guard stored.count <= StoredValue.largestIntent,
                let object = (try? JSONSerialization.jsonObject(with: stored)) as? [String: Any]
            else { return nil }
            envelope = object
        } else {
            envelope = [:]
        }
        guard
            let operation = envelope["operation"] as? String ?? (envelope["operation"] == nil ? "capture.create" : nil),
            let version = (envelope["version"] as? NSNumber).map(\.intValue) ?? (envelope["version"] == nil ? 1 : nil),
            var arguments = envelope["arguments"] as? [String: Any] ?? (envelope["arguments"] == nil ? [:] : nil)
        else { return nil }
        var media = arguments.removeValue(forKey: "media") as? [[String: Any]] ?? []
        for position in media.indices where media[position]["contentType"] == nil {
            media[position]["contentType"] = "image/jpeg"
        }
        guard let payload = try? JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys]),
            let converted = try? JSONSerialization.data(
                withJSONObject: [
                    "operation": operation, "version": version, "payload": String(decoding: payload, as: UTF8.self),
                    "media": media,
                ], options: [.sortedKeys])
        else { return nil }
        return converted
    }
}

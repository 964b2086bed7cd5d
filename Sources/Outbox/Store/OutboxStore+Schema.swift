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
                throw .store(.newerSchema(path: database.path, version: found, supported: schemaVersion))
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
}

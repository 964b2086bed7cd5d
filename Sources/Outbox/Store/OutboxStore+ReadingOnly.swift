import Foundation

/// Reading a store this process may read but not change, without writing anything there.
extension OutboxStore {
    /// Every record of the store in `folder`, read without writing anything there: for a store
    /// this process may read but not change (another user's, a read-only file system, a backup).
    ///
    /// The records are copied into a database in memory and migrated there, so that a store of
    /// an older schema reads like a current one. When SQLite cannot set up its shared memory
    /// beside a write-ahead-logged file (the folder is read-only), the file is read as immutable:
    /// as of its last checkpoint, which is all of it unless a writer died without closing it.
    ///
    /// - Throws: `.store(.unreadable)` naming the cause when the database cannot be read at all;
    ///   `.store(.newerSchema)`; `.store(.database)` when SQLite fails.
    /// - Throws: `.encryption(.keyRequired)` or `.encryption(.wrongKey)` for an encrypted store without its key.
    static func recordsReadingOnly(folder: URL, catalog: OperationCatalog, keyProvider: (any KeyProvider)?)
        throws(OutboxError) -> [StoredRecord]
    {
        let databaseURL = folder.appendingPathComponent(databaseName)
        if let cause = MediaFolder.readProblem(at: databaseURL.path) {
            throw .store(.unreadable(path: folder.path, cause: cause))
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
            throw .store(.newerSchema(path: databaseURL.path, version: found, supported: schemaVersion))
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
}

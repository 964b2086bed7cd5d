import Foundation

/// Reading records and entries: in queue order, by id or name, and those an entity's order holds back.
extension OutboxStore {
    /// Every record in queue order, readable or not.
    func records() throws(OutboxError) -> [StoredRecord] {
        try database.query("SELECT \(StoredRecord.columns) FROM \(Self.table) ORDER BY sequence") { row in
            StoredRecord(row: row, catalog: catalog, cipher: cipher)
        }
    }

    /// The record with this id, readable or not; nil when there is none.
    func record(id: String) throws(OutboxError) -> StoredRecord? {
        try database.query("SELECT \(StoredRecord.columns) FROM \(Self.table) WHERE id = ?", [.text(id)]) { row in
            StoredRecord(row: row, catalog: catalog, cipher: cipher)
        }.first
    }

    /// The record with this id, or named `#SEQUENCE` (`StoredRecord.name`), readable or not;
    /// nil when there is none.
    func record(named name: String) throws(OutboxError) -> StoredRecord? {
        guard name.hasPrefix("#") else { return try record(id: name) }
        guard let sequence = Int64(name.dropFirst()) else { return nil }
        return try database.query(
            "SELECT \(StoredRecord.columns) FROM \(Self.table) WHERE sequence = ?", [.integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }.first
    }

    /// The readable entry with this id, with what it waits behind.
    ///
    /// - Throws: `.entry(.notFound)` when there is none, `.entry(.unreadable)` when this version cannot read it.
    func entry(id: String) throws(OutboxError) -> OutboxEntry {
        guard let record = try record(id: id) else { throw .entry(.notFound(id: id)) }
        var entry = try record.readableEntry()
        entry.blockedBy = try blocker(of: record)
        return entry
    }

    /// The id of the entry `record` waits behind (`EntityOrder`), or nil when it waits for none:
    /// the first earlier record of its entity that the engine does not have, found through the
    /// entity's index without reading any other record, so that a pass over a long chain costs
    /// one look per entry rather than a read of every record before it.
    func blocker(of record: StoredRecord) throws(OutboxError) -> String? {
        guard let entity = record.entity else { return nil }
        return try database.query(
            """
            SELECT sequence, id FROM \(Self.table)
            WHERE entity = ? AND sequence < ? AND state IS NOT 'SYNCED' ORDER BY sequence LIMIT 1
            """, [.text(entity), .integer(record.sequence)]
        ) { row in
            row.text(at: 1).flatMap { OutboxOperation.isValidID($0) ? $0 : nil } ?? "#\(row.integer(at: 0) ?? 0)"
        }.first
    }

    /// The records of `entity` after `sequence` that the engine does not have, readable or not,
    /// in queue order: those that waited behind the entity's leader at `sequence`
    /// (`EntityOrder`), through the entity's index.
    func unsettledRecords(ofEntity entity: String, after sequence: Int64) throws(OutboxError) -> [StoredRecord] {
        try database.query(
            """
            SELECT \(StoredRecord.columns) FROM \(Self.table)
            WHERE entity = ? AND sequence > ? AND state IS NOT 'SYNCED' ORDER BY sequence
            """, [.text(entity), .integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }
    }

    /// The first record after `sequence` in queue order that waits to be sent, readable or not.
    ///
    /// Entries whose automatic retries ran out are not among them: only `sendNow` sends those.
    func nextQueuedRecord(after sequence: Int64) throws(OutboxError) -> StoredRecord? {
        try database.query(
            """
            SELECT \(StoredRecord.columns) FROM \(Self.table)
            WHERE sequence > ? AND COALESCE(state, 'QUEUED') = 'QUEUED' AND COALESCE(awaits_send_now, 0) = 0
            ORDER BY sequence LIMIT 1
            """, [.integer(sequence)]
        ) { row in StoredRecord(row: row, catalog: catalog, cipher: cipher) }.first
    }
}

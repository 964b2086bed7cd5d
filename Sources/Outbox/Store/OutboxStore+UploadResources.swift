import Foundation

/// The resumable upload resources the engine made for an entry's uploads (`upload_resources`),
/// kept so that a send cut in one process resumes in the next, and those the outbox will not use
/// again (`outbox_abandoned_uploads`), kept until the engine has been asked to give them back.
extension OutboxStore {
    /// The most bytes of `upload_resources` read, and the most one resource's URL may have: a
    /// planted value costs nothing to refuse.
    static let largestUploadResources = 16 * 1024
    static let longestUploadResource = 2048
    /// The table of resources to give back.
    static let abandonedTable = "outbox_abandoned_uploads"
    /// The most rows it keeps: a resource not given back costs the engine a file until it
    /// expires it, never the user anything, so the oldest go first.
    static let mostAbandonedRows = 64

    /// The resumable upload resources the engine made for the entry's uploads, by index, as
    /// they were stored: untrusted (`HTTPTransport` takes only one at its own upload's path on
    /// the engine). A value that cannot be read, is too large or is sealed for another record
    /// is none: it costs a fresh start of the upload, never the upload (and the pass clears it,
    /// `clearRefusedValues`).
    func uploadResources(id: String) -> [Int: String] {
        // Sealing adds less than 64 bytes; SQLite measures a blob without reading it.
        let limit = Self.largestUploadResources + 64
        guard
            let stored = try? database.query(
                "SELECT upload_resources FROM \(Self.table) WHERE id = ? AND length(upload_resources) <= ?",
                [.text(id), .integer(Int64(limit))], row: { $0.bytes(at: 0) }
            ).first ?? nil
        else { return [:] }
        return Self.decodeUploadResources(stored, id: id, cipher: cipher).resources
    }

    /// The resources a stored `upload_resources` value holds, and why any of it is refused: the
    /// value too large, sealed for another record, not a JSON object, or an entry that is not
    /// an upload index with a URL of at most `longestUploadResource` bytes.
    static func decodeUploadResources(_ stored: Data, id: String?, cipher: StoreCipher?) -> (
        resources: [Int: String], refusal: String?
    ) {
        guard stored.count <= largestUploadResources + 64 else {
            return ([:], "larger than \(largestUploadResources / 1024) KiB")
        }
        let json: Data
        if let cipher {
            guard let id, let opened = cipher.open(stored, for: .uploadResources(id: id)) else {
                return ([:], "not sealed for it with the outbox's key")
            }
            json = opened
        } else {
            json = stored
        }
        guard json.count <= largestUploadResources,
            let map = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any]
        else { return ([:], "not resources by upload") }
        var resources: [Int: String] = [:]
        for (key, value) in map {
            guard let index = Int(key), (0..<OutboxOperation.mostAttachments).contains(index),
                let url = value as? String, url.utf8.count <= longestUploadResource
            else { continue }
            resources[index] = url
        }
        return (resources, resources.count == map.count ? nil : "not resources by upload")
    }

    /// Keeps the resource the engine made for upload `index` of an entry being sent, durably, so
    /// that the next process to send it resumes there; nil drops it.
    func setUploadResource(_ url: String?, index: Int, id: String) throws(OutboxError) {
        guard (url?.utf8.count ?? 0) <= Self.longestUploadResource,
            (0..<OutboxOperation.mostAttachments).contains(index)
        else { return }
        try database.transaction { () throws(OutboxError) in
            var resources = uploadResources(id: id)
            guard resources[index] != url else { return }
            resources[index] = url
            try database.run(
                "UPDATE \(Self.table) SET upload_resources = ? WHERE id = ? AND state = 'SYNCING'",
                storedUploadResources(resources, id: id), .text(id))
        }
    }

    /// Clears the resource kept for upload `index` of an entry being sent, which the transport
    /// refused (not that upload's on this engine), with a line in the entry's history.
    func refuseUploadResource(index: Int, id: String, at moment: Date) throws(OutboxError) {
        guard (0..<OutboxOperation.mostAttachments).contains(index) else { return }
        try database.transaction { () throws(OutboxError) in
            var resources = uploadResources(id: id)
            guard resources.removeValue(forKey: index) != nil else { return }
            try database.run(
                "UPDATE \(Self.table) SET upload_resources = ? WHERE id = ? AND state = 'SYNCING'",
                storedUploadResources(resources, id: id), .text(id))
            guard database.changes > 0 else { return }
            try addToHistory(
                ["cleared its upload resource for upload \(index): not that upload's on this engine"], at: moment,
                id: id)
        }
    }

    /// The `upload_resources` column's value: JSON by index, sealed when the store is encrypted.
    func storedUploadResources(_ resources: [Int: String], id: String) -> SQLiteValue {
        guard !resources.isEmpty,
            let json = try? JSONSerialization.data(
                withJSONObject: Dictionary(uniqueKeysWithValues: resources.map { (String($0.key), $0.value) }),
                options: [.sortedKeys, .withoutEscapingSlashes])
        else { return .null }
        guard let cipher else { return .text(String(decoding: json, as: UTF8.self)) }
        return .blob(cipher.seal(json, for: .uploadResources(id: id)))
    }

    /// Moves the resources of the entries `condition` selects to the resources to give back, in
    /// the transaction in progress: they are about to be deleted, or cleared for a fresh start.
    /// The value moves as it is stored (sealed for its record in an encrypted store), and only
    /// when it is within the size a real one has.
    func abandonUploadResources(where condition: String, _ values: [SQLiteValue]) throws(OutboxError) {
        try database.run(
            """
            INSERT INTO \(Self.abandonedTable) (id, resources)
            SELECT id, upload_resources FROM \(Self.table)
            WHERE upload_resources IS NOT NULL AND typeof(upload_resources) IN ('text', 'blob')
                AND length(upload_resources) <= \(Self.largestUploadResources + 64) AND (\(condition))
            """, values: values)
        try database.run(
            """
            DELETE FROM \(Self.abandonedTable) WHERE rowid NOT IN
                (SELECT rowid FROM \(Self.abandonedTable) ORDER BY rowid DESC LIMIT \(Self.mostAbandonedRows))
            """)
    }

    /// One row of resources to give back, and what it holds.
    struct AbandonedRow {
        let row: Int64
        let resources: [AbandonedUploadResource]
    }

    /// Up to `limit` rows of resources to give back, oldest first; a row that holds none that
    /// can be read (planted, or sealed for another record) is deleted.
    func abandonedUploadResources(limit: Int) throws(OutboxError) -> [AbandonedRow] {
        let rows = try database.query(
            """
            SELECT rowid, id, CASE WHEN length(resources) <= ? THEN resources END
            FROM \(Self.abandonedTable) ORDER BY rowid LIMIT ?
            """, [.integer(Int64(Self.largestUploadResources + 64)), .integer(Int64(limit))]
        ) { row in (row.integer(at: 0) ?? 0, row.text(at: 1), row.bytes(at: 2)) }
        var found: [AbandonedRow] = []
        for (row, id, stored) in rows {
            let decoded = stored.map { Self.decodeUploadResources($0, id: id, cipher: cipher).resources } ?? [:]
            guard let id, OutboxOperation.isValidID(id), !decoded.isEmpty else {
                try database.run("DELETE FROM \(Self.abandonedTable) WHERE rowid = ?", .integer(row))
                continue
            }
            let resources = decoded.sorted { $0.key < $1.key }.map {
                AbandonedUploadResource(id: id, index: $0.key, resource: $0.value)
            }
            found.append(AbandonedRow(row: row, resources: resources))
        }
        return found
    }

    /// Forgets rows of resources to give back: given back, or not this engine's to give.
    func forgetAbandonedUploadResources(rows: [Int64]) throws(OutboxError) {
        for row in rows { try database.run("DELETE FROM \(Self.abandonedTable) WHERE rowid = ?", .integer(row)) }
    }

    /// Counts a pass in which the engine did not answer for a row of resources to give back, and
    /// forgets the row once that is `limit` passes: the engine expires what it is never asked
    /// to give back. A planted count that is not a whole number of 0 or more counts as none; one
    /// past the limit forgets the row.
    func countUnansweredGiveBack(row: Int64, forgettingAfter limit: Int) throws(OutboxError) {
        try database.transaction { () throws(OutboxError) in
            try database.run(
                """
                UPDATE \(Self.abandonedTable) SET unanswered = CASE
                    WHEN typeof(unanswered) = 'integer' AND unanswered >= 0 THEN min(unanswered, ?) + 1 ELSE 1 END
                WHERE rowid = ?
                """, .integer(Int64(limit)), .integer(row))
            try database.run(
                "DELETE FROM \(Self.abandonedTable) WHERE rowid = ? AND unanswered >= ?", .integer(row),
                .integer(Int64(limit)))
        }
    }
}

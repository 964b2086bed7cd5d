import Foundation

/// Stored values that reading refuses are cleared, not only passed over.
///
/// A value refused by its size, its form, its seal or its owner reads as missing; left in place,
/// it is read, and refused, again on every pass, and a large one is rewritten with its row at
/// every change of the entry's state (SQLite rewrites a whole row): a planted 200 MiB value cost
/// 441 MB of disk traffic a drain, and 400 MiB of database for as long as the entry lived. So
/// each pass first sets every refused value to NULL, which reads the same, with a line in the
/// entry's history (`EntryHistory`) that says which value and why.
///
/// Every column the store reads back, and what becomes of a refused value:
///
/// | column | refused when | then |
/// | --- | --- | --- |
/// | `created_at`, `next_attempt_at`, `first_attempt_at` | not a number | cleared (a time out of 1970...9999 is clamped, and a far `next_attempt_at` brought forward, as before) |
/// | `attempts`, `transient_failures`, `upload_resends` | not a whole number of 0 or more | cleared (reads 0) |
/// | `awaits_send_now` | not a whole number | cleared (reads no) |
/// | `last_error` | not text, over 16 KiB, or in an encrypted store not sealed for its record | cleared |
/// | `upload_resources` | over 16 KiB, not resources by upload index, not sealed for its record, or (`HTTPTransport`) not its upload's on this engine | cleared, or the entries refused taken out |
/// | `history` | not text, or over 8 KiB | replaced by the line that says so |
/// | `id`, `state`, `entity`, `intent`, `pending_media`, `owned_media` | see `StoredRecord` | never changed: the record is listed as unreadable and kept for the user (or a newer version) to decide, as before |
/// | `outbox_abandoned_uploads` rows | as `upload_resources` | deleted |
/// | `outbox_encryption` | the key does not open it | the store does not open (`.encryption(.wrongKey)`); never changed |
extension OutboxStore {
    /// The most bytes of `last_error` read back: the outbox writes a few hundred.
    static let largestLastError = 16 * 1024

    /// A column whose refused value is cleared, and the SQL that says why it is refused (NULL when it is not).
    private struct RefusableColumn {
        let name: String
        /// What the history calls it: "its …".
        let wording: String
        let refusal: String
    }

    private static let refusableColumns: [RefusableColumn] = [
        moment("created_at", "creation time"),
        count("attempts", "attempt count"),
        RefusableColumn(
            name: "last_error", wording: "last error",
            refusal: """
                CASE WHEN last_error IS NULL THEN NULL WHEN typeof(last_error) NOT IN ('text', 'blob') THEN 'not text'
                WHEN length(last_error) > \(largestLastError) THEN 'larger than \(largestLastError / 1024) KiB' END
                """),
        moment("next_attempt_at", "time of its next try"),
        count("transient_failures", "count of failures in a row"),
        RefusableColumn(
            name: "awaits_send_now", wording: "wait for send-now",
            refusal: """
                CASE WHEN awaits_send_now IS NOT NULL AND typeof(awaits_send_now) != 'integer'
                THEN 'not a whole number' END
                """),
        moment("first_attempt_at", "time of its first send"),
        count("upload_resends", "count of uploads sent again"),
        RefusableColumn(
            name: "upload_resources", wording: "upload resources",
            refusal: """
                CASE WHEN upload_resources IS NULL THEN NULL
                WHEN typeof(upload_resources) NOT IN ('text', 'blob') THEN 'not resources by upload'
                WHEN length(upload_resources) > \(largestUploadResources + 64)
                THEN 'larger than \(largestUploadResources / 1024) KiB' END
                """),
        RefusableColumn(
            name: "history", wording: "history",
            refusal: """
                CASE WHEN history IS NULL THEN NULL WHEN typeof(history) != 'text' THEN 'not text'
                WHEN length(CAST(history AS BLOB)) > \(EntryHistory.largestStored)
                THEN 'larger than \(EntryHistory.largestStored / 1024) KiB' END
                """),
    ]

    private static func moment(_ name: String, _ wording: String) -> RefusableColumn {
        RefusableColumn(
            name: name, wording: wording,
            refusal:
                "CASE WHEN \(name) IS NOT NULL AND typeof(\(name)) NOT IN ('integer', 'real') THEN 'not a time' END")
    }

    private static func count(_ name: String, _ wording: String) -> RefusableColumn {
        RefusableColumn(
            name: name, wording: wording,
            refusal: """
                CASE WHEN \(name) IS NOT NULL AND (typeof(\(name)) != 'integer' OR \(name) < 0)
                THEN 'not a count' END
                """)
    }

    /// Sets every stored value that reading refuses to NULL (or, for `upload_resources`, takes
    /// out the entries refused), with a line in each entry's history; see the extension's table.
    /// The values are looked at first without the write lock, which a pass then takes only when
    /// there is something to clear.
    ///
    /// - Parameter moment: The time the history's lines give.
    /// - Returns: The ids of the entries whose values were cleared.
    @discardableResult
    func clearRefusedValues(at moment: Date) throws(OutboxError) -> [String] {
        guard try !refusedValues().isEmpty else { return [] }
        return try database.transaction { () throws(OutboxError) -> [String] in
            // Again inside the transaction: another process may have written them meanwhile.
            var ids: [String] = []
            for refused in try refusedValues() {
                var assignments = refused.cleared.sorted().map { "\($0) = NULL" }
                var values: [SQLiteValue] = []
                if let kept = refused.keptResources, let id = refused.id {
                    assignments.append("upload_resources = ?")
                    values.append(storedUploadResources(kept, id: id))
                }
                assignments.append("history = ?")
                values.append(.text(EntryHistory.adding(refused.sentences, at: moment, to: refused.history)))
                try database.run(
                    "UPDATE \(Self.table) SET \(assignments.joined(separator: ", ")) WHERE sequence = ?",
                    values: values + [.integer(refused.sequence)])
                if let id = refused.id { ids.append(id) }
            }
            return ids
        }
    }

    /// What one record holds that reading refuses.
    private struct RefusedValues {
        let sequence: Int64
        let id: String?
        /// The columns to set to NULL.
        var cleared: Set<String> = []
        /// The lines for the history, one for each value cleared.
        var sentences: [String] = []
        /// The upload resources to keep when only some were refused.
        var keptResources: [Int: String]?
        /// The history to add the lines to; nil when it is itself refused (or empty).
        var history: String?
    }

    /// Every record that holds a value reading refuses, and which.
    private func refusedValues() throws(OutboxError) -> [RefusedValues] {
        let columns = Self.refusableColumns
        let refusals = columns.map(\.refusal).joined(separator: ",\n")
        // Then the values whose seal or form only Swift can check, when their size is within bounds.
        let select = """
            SELECT sequence, id, \(refusals),
                CASE WHEN typeof(last_error) IN ('text', 'blob') AND length(last_error) <= \(Self.largestLastError)
                    THEN last_error END, typeof(last_error) = 'text',
                CASE WHEN typeof(upload_resources) IN ('text', 'blob')
                    AND length(upload_resources) <= \(Self.largestUploadResources + 64) THEN upload_resources END,
                CASE WHEN typeof(history) = 'text' AND length(CAST(history AS BLOB)) <= \(EntryHistory.largestStored)
                    THEN history END
            FROM \(Self.table)
            WHERE last_error IS NOT NULL OR upload_resources IS NOT NULL OR
                \(columns.map { "(\($0.refusal)) IS NOT NULL" }.joined(separator: " OR "))
            """
        let cipher = cipher
        let found = try database.query(select) { row -> RefusedValues in
            let id = row.text(at: 1).flatMap { OutboxOperation.isValidID($0) ? $0 : nil }
            let base = Int32(2 + columns.count)
            var refused = RefusedValues(sequence: row.integer(at: 0) ?? 0, id: id, history: row.text(at: base + 3))
            for (offset, column) in columns.enumerated() {
                guard let why = row.text(at: Int32(2 + offset)) else { continue }
                refused.sentences.append("cleared its \(column.wording): \(why)")
                if column.name == "history" { refused.history = nil } else { refused.cleared.insert(column.name) }
            }
            if !refused.cleared.contains("last_error"), let stored = row.bytes(at: base),
                let why = Self.lastErrorRefusal(stored, isText: row.integer(at: base + 1) == 1, id: id, cipher: cipher)
            {
                refused.cleared.insert("last_error")
                refused.sentences.append("cleared its last error: \(why)")
            }
            if !refused.cleared.contains("upload_resources"), let stored = row.bytes(at: base + 2) {
                let decoded = Self.decodeUploadResources(stored, id: id, cipher: cipher)
                if let why = decoded.refusal, decoded.resources.isEmpty {
                    refused.cleared.insert("upload_resources")
                    refused.sentences.append("cleared its upload resources: \(why)")
                } else if let why = decoded.refusal {
                    refused.keptResources = decoded.resources
                    refused.sentences.append("cleared some of its upload resources: \(why)")
                }
            }
            return refused
        }
        return found.filter { !$0.sentences.isEmpty }
    }

    /// Why a `last_error` within its size is refused, or nil when it reads: in a plaintext store
    /// it must be text; in an encrypted one sealed for its record (or plaintext text of a format-1
    /// store, until the upgrade seals it).
    private static func lastErrorRefusal(_ stored: Data, isText: Bool, id: String?, cipher: StoreCipher?) -> String? {
        guard let cipher else { return isText ? nil : "not text" }
        if let id, cipher.open(stored, for: .lastError(id: id)) != nil { return nil }
        if isText, cipher.format < 2, !StoreCipher.isSealed(stored) { return nil }
        return "not sealed for it with the outbox's key"
    }

    /// Adds lines to an entry's history, in the transaction in progress or on its own.
    func addToHistory(_ sentences: [String], at moment: Date, id: String) throws(OutboxError) {
        let stored =
            try database.query(
                """
                SELECT CASE WHEN typeof(history) = 'text' AND length(CAST(history AS BLOB)) <= ? THEN history END
                FROM \(Self.table) WHERE id = ?
                """, [.integer(Int64(EntryHistory.largestStored)), .text(id)]
            ) { $0.text(at: 0) }.first ?? nil
        try database.run(
            "UPDATE \(Self.table) SET history = ? WHERE id = ?",
            .text(EntryHistory.adding(sentences, at: moment, to: stored)), .text(id))
    }
}

import Foundation

/// Schema 4: the records of older versions, all photo captures, become operations.
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

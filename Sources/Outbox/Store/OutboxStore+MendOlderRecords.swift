import Foundation

/// Schema 3: mending what the versions before it could leave in a store.
extension OutboxStore {
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

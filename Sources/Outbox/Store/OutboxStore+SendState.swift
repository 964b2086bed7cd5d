import Foundation

/// What a send, a park or the user's "send now" changes in an entry's record.
extension OutboxStore {
    /// The `last_error` column's value: the text, or sealed for the record when the store is
    /// encrypted, since an engine's answer may quote the note or the place it was sent.
    func storedError(_ text: String?, id: String) -> SQLiteValue {
        guard let text else { return .null }
        guard let cipher else { return .text(text) }
        return .blob(cipher.seal(Data(text.utf8), for: .lastError(id: id)))
    }

    /// Sets the state (and the error shown with it) of the entry with this id.
    ///
    /// - Returns: whether an entry changed.
    @discardableResult
    func setState(_ state: OutboxEntry.State, lastError: String?, id: String) throws(OutboxError) -> Bool {
        try database.run(
            "UPDATE \(Self.table) SET state = ?, last_error = ? WHERE id = ?",
            .text(state.rawValue), storedError(lastError, id: id), .text(id))
        return database.changes > 0
    }

    /// Marks the entry as being sent, only when it is `QUEUED` (or has no state yet), counts the
    /// attempt, and remembers, for good, that a send of it started (so that it is never
    /// compacted away). The condition is the claim: of two drains in two processes, one wins.
    ///
    /// - Returns: whether this caller claimed it.
    func claim(id: String, at moment: Date) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'SYNCING', attempts = \(Self.attemptsPlusOne),
                first_attempt_at = COALESCE(first_attempt_at, ?)
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, .real(moment.timeIntervalSince1970), .text(id))
        return database.changes > 0
    }

    /// The attempt count plus one, saturating at the largest integer instead of overflowing (SQLite
    /// would turn the sum into a REAL); a count that is not a whole number of 0 or more restarts at 1.
    private static let attemptsPlusOne = """
        CASE WHEN typeof(attempts) != 'integer' OR attempts < 0 THEN 1
            WHEN attempts = 9223372036854775807 THEN attempts ELSE attempts + 1 END
        """

    /// Puts an entry that was claimed but not sent back in the queue as it was: its attempt no
    /// longer counted, its error and schedule untouched. For a send that was cancelled (the app
    /// was suspended, the user pressed Ctrl-C), which is no failure. That a send of it started is
    /// still remembered: the cancelled one may have reached the engine.
    ///
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func returnUnsent(id: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'QUEUED',
                attempts = CASE WHEN typeof(attempts) = 'integer' AND attempts > 0 THEN attempts - 1 ELSE 0 END
            WHERE id = ? AND state = 'SYNCING'
            """, .text(id))
        return database.changes > 0
    }

    /// Parks a queued entry without sending it, because something on this device keeps it from
    /// being sent (its photo file is gone); no attempt is counted.
    ///
    /// - Returns: whether the entry was queued (and so is now parked).
    @discardableResult
    func park(id: String, reason: String) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'FAILED_NEEDS_ATTENTION', last_error = ?, transient_failures = 0,
                next_attempt_at = NULL, awaits_send_now = 0
            WHERE id = ? AND COALESCE(state, 'QUEUED') = 'QUEUED'
            """, storedError(reason, id: id), .text(id))
        return database.changes > 0
    }

    /// Records how a send ended, only while the entry is still `SYNCING` (a discard or a
    /// `markSynced` during the send wins).
    ///
    /// - Parameters:
    ///   - state: The entry's new state.
    ///   - lastError: The failure's reason, or nil after a success.
    ///   - retry: The retry schedule; the default (no failures, no wait) after a success or a park.
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func finishSend(
        id: String, state: OutboxEntry.State, lastError: String?, retry: RetrySchedule = RetrySchedule()
    ) throws(OutboxError) -> Bool {
        try database.run(
            """
            UPDATE \(Self.table) SET state = ?, last_error = ?, transient_failures = ?, next_attempt_at = ?,
                awaits_send_now = ?
            WHERE id = ? AND state = 'SYNCING'
            """,
            .text(state.rawValue), storedError(lastError, id: id), .integer(Int64(retry.transientFailures)),
            retry.nextAttemptAt.map { .real($0.timeIntervalSince1970) } ?? .null,
            .integer(retry.awaitsSendNow ? 1 : 0), .text(id))
        return database.changes > 0
    }

    /// Puts an entry back in the queue for the user's "send now": due at once, its failures
    /// forgotten, parked or not; its last error stays readable until the next send ends. A
    /// parked entry sends all its uploads again: the engine may have lost those that landed
    /// (it answers a repeat it holds with 200, so this costs bytes, never a duplicate).
    func releaseForSendNow(id: String) throws(OutboxError) {
        try database.run(
            """
            UPDATE \(Self.table) SET state = 'QUEUED', transient_failures = 0, next_attempt_at = NULL,
                awaits_send_now = 0, upload_resends = 0,
                pending_media = CASE WHEN state = 'FAILED_NEEDS_ATTENTION' THEN owned_media ELSE pending_media END
            WHERE id = ? AND COALESCE(state, 'QUEUED') IN ('QUEUED', 'FAILED_NEEDS_ATTENTION')
            """, .text(id))
    }

    /// How many times in a row the entry's uploads were sent again because the engine did not
    /// hold them; 0 for none (or a value that is not a count).
    func uploadResends(id: String) throws(OutboxError) -> Int {
        let stored =
            try database.query(
                "SELECT upload_resends FROM \(Self.table) WHERE id = ?", [.text(id)]
            ) { row in row.integer(at: 0) }.first ?? nil
        return StoredValue.count(stored)
    }

    /// Puts a claimed entry back in the queue with every upload pending again, due at once, one
    /// more resend counted: the engine answered that it does not hold them.
    ///
    /// - Returns: whether the entry was still being sent.
    @discardableResult
    func sendUploadsAgain(id: String, resends: Int, lastError: String) throws(OutboxError) -> Bool {
        try database.transaction { () throws(OutboxError) -> Bool in
            // The uploads start afresh: the resources made for them are given back.
            try abandonUploadResources(where: "id = ? AND state = 'SYNCING'", [.text(id)])
            try database.run(
                """
                UPDATE \(Self.table) SET state = 'QUEUED', pending_media = owned_media, upload_resends = ?,
                    last_error = ?, next_attempt_at = NULL, upload_resources = NULL
                WHERE id = ? AND state = 'SYNCING'
                """, .integer(Int64(resends)), storedError(lastError, id: id), .text(id))
            return database.changes > 0
        }
    }

    /// Moves the entry's next automatic try to `moment` when it is later than that.
    func bringForward(id: String, to moment: Date) throws(OutboxError) {
        let seconds = SQLiteValue.real(moment.timeIntervalSince1970)
        try database.run(
            "UPDATE \(Self.table) SET next_attempt_at = ? WHERE id = ? AND next_attempt_at > ?", seconds, .text(id),
            seconds)
    }

    /// Removes a landed upload from the entry's pending media, durably, and the upload resource
    /// kept for it.
    ///
    /// - Throws: `.entry(.notFound)` when the entry is gone (discarded mid-send).
    func removePending(index: Int, id: String) throws(OutboxError) {
        try database.transaction { () throws(OutboxError) in
            let entry = try entry(id: id)
            let remaining = entry.pendingMedia.filter { $0.index != index }
            var resources = uploadResources(id: id)
            resources[index] = nil
            try database.run(
                "UPDATE \(Self.table) SET pending_media = ?, upload_resources = ? WHERE id = ?",
                .text(StoredRecord.encodeMediaList(remaining)), storedUploadResources(resources, id: id), .text(id))
        }
    }
}

import Foundation

/// The transactions every write of the store runs in, and the media files they leave or remove.
extension OutboxStore {
    /// Runs `body` inside one write transaction (`BEGIN IMMEDIATE … COMMIT`), in which `insert`
    /// may write operations and the app its own rows: all of it commits, or none of it does.
    ///
    /// When the body throws, or anything before the commit fails, the transaction rolls back and
    /// the media files it wrote are removed again. When the commit itself fails the outcome is
    /// uncertain (an fsync error may still have left the records on disk), so the files stay for
    /// the next open's sweep, which keeps them exactly when a record names them. The files of
    /// entries it replaced are removed only once it has committed: a crash before then leaves
    /// them to the sweep too.
    ///
    /// - Parameter wrap: Turns the store's own failure into the error the caller throws.
    func writeTransaction<R, E: Error>(_ body: () throws(E) -> R, wrap: (OutboxError) -> E) throws(E) -> R {
        precondition(transactionFiles == nil, "one write transaction at a time")
        transactionFiles = ([], [])
        insertionsInTransaction = []
        defer {
            transactionFiles = nil
            insertionsInTransaction = []
        }
        do throws(OutboxError) { try database.run("BEGIN IMMEDIATE") } catch { throw wrap(error) }
        let result: R
        do throws(E) {
            result = try body()
        } catch {
            rollBack()
            throw error
        }
        do throws(OutboxError) {
            try database.run("COMMIT")
        } catch {
            if database.isInTransaction { rollBack() }
            throw wrap(error)
        }
        committedInsertions += insertionsInTransaction
        if let replaced = transactionFiles?.replaced, !replaced.isEmpty {
            media.removeQuietly(replaced)
            try? media.synchronize()
        }
        return result
    }

    /// The operations queued by write transactions that committed since the last call.
    func takeCommittedInsertions() -> [Insertion] {
        defer { committedInsertions = [] }
        return committedInsertions
    }

    /// Runs `body` inside one read transaction, so that all it reads is of one moment.
    func readTransaction<R>(_ body: () throws -> R) throws -> R {
        try database.run("BEGIN")
        // Ending a transaction that only read cannot lose anything.
        defer { if database.isInTransaction { try? database.run("COMMIT") } }
        return try body()
    }

    /// Rolls the transaction in progress back and removes the files it wrote.
    private func rollBack() {
        try? database.run("ROLLBACK")
        media.removeQuietly(transactionFiles?.written ?? [])
    }
}

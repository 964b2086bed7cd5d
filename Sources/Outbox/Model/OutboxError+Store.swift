extension OutboxError {
    /// The store (its database, its folder, its lock file) cannot be opened, read or written.
    public enum Store: Equatable, Sendable, CustomStringConvertible {
        /// SQLite failed; `code` is its (extended) result code and `message` its explanation.
        case database(path: String, code: Int, message: String)
        /// The database was written by a newer version of the outbox, whose records this version could damage.
        case newerSchema(path: String, version: Int, supported: Int)
        /// The database could not be put in WAL mode (for example on a network file system).
        case walUnavailable(path: String, journalMode: String)
        /// The store's folder (or its media folder, or its lock file) could not be created or opened.
        case folder(path: String, cause: Cause)
        /// The store is there but this process may not change it (permissions, a read-only file
        /// system); `Outbox.readOnlyListing(folder:)` can still read it.
        case notWritable(path: String, cause: Cause)
        /// The store cannot even be read (its database is missing, or this user may not open it).
        case unreadable(path: String, cause: Cause)
        /// The store this outbox opened is no longer at its folder: the folder or the database was
        /// deleted, moved or replaced while it ran. Sending on from the old file would report a
        /// queue that is not the one there.
        case replaced(path: String, reason: String)

        /// The error's own sentence.
        public var description: String {
            switch self {
            case .database(let path, let code, let message):
                "The outbox database '\(path)' failed: \(message) (SQLite result code \(code))."
            case .newerSchema(let path, let version, let supported):
                "The outbox database '\(path)' was written by a newer version of the app"
                    + " (schema \(version); this version reads up to \(supported))."
            case .walUnavailable(let path, let journalMode):
                "The outbox database '\(path)' cannot use write-ahead logging on this file system:"
                    + " SQLite stayed in '\(journalMode)' mode."
            case .folder(let path, let cause):
                "The outbox folder '\(path)' could not be opened: \(cause)."
            case .notWritable(let path, let cause):
                "The outbox '\(path)' cannot be changed by this user: \(cause)."
            case .unreadable(let path, let cause):
                "The outbox '\(path)' cannot be read: \(cause)."
            case .replaced(let path, let reason):
                "The outbox '\(path)' was replaced while it was open: \(reason); open it again to go on."
            }
        }
    }
}

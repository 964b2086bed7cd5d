extension OutboxError {
    /// A media file could not be written, read or removed.
    public enum Media: Equatable, Sendable, CustomStringConvertible {
        /// A media file could not be written and flushed to disk.
        case write(path: String, cause: Cause)
        /// A media file could not be read (to send it).
        case read(path: String, cause: Cause)
        /// A media file could not be removed.
        case remove(path: String, cause: Cause)

        /// The error's own sentence.
        public var description: String {
            switch self {
            case .write(let path, let cause): "The photo file '\(path)' could not be written to disk: \(cause)."
            case .read(let path, let cause): "The photo file '\(path)' could not be read: \(cause)."
            case .remove(let path, let cause): "The photo file '\(path)' could not be removed: \(cause)."
            }
        }
    }
}

extension OutboxError {
    /// The app asked for something the outbox does not take.
    public enum Request: Equatable, Sendable, CustomStringConvertible {
        /// The id cannot name an entry: it must be 1–128 letters, digits, '-' or '_'.
        case invalidID(String)
        /// The prefix cannot start an id: it must be at most 64 letters, digits, '-' or '_'.
        case invalidIDPrefix(String)
        /// The operation's payload could not be encoded as JSON.
        case encoding(id: String, reason: String)
        /// The operation cannot be queued as it is: its type, entity, version, payload or an
        /// attachment breaks a rule; `reason` says which, without quoting the payload.
        case invalidOperation(id: String, reason: String)
        /// This outbox's configuration does not know the operation's type, or not at this version
        /// (`Outbox.Configuration.operationTypes`).
        case unknownOperationType(type: String, version: Int)
        /// The app's SQL inside `Outbox.write` or `Outbox.read` was refused; `reason` says why.
        case appStatementRefused(reason: String)
        /// `OutboxTransaction.enqueue` was called inside `Outbox.read`, which changes nothing.
        case readOnlyTransaction
        /// A setting is outside what it allows: `setting` names it, `value` is what it was given and
        /// `allowed` what it takes.
        case invalidSetting(setting: String, value: String, allowed: String)
        /// `drainNow()` or `sendNow(id:)` without a transport needs the scheduler's: call
        /// `start(transport:)` first, or pass a transport.
        case notStarted

        /// The error's own sentence.
        public var description: String {
            switch self {
            case .invalidID(let id):
                "'\(id)' cannot be an outbox id: use 1 to 128 letters, digits, '-' or '_'."
            case .invalidIDPrefix(let prefix):
                "'\(prefix)' cannot start an outbox id: use at most 64 letters, digits, '-' or '_'."
            case .encoding(let id, let reason):
                "The operation '\(id)' could not be encoded for storage: \(reason)."
            case .invalidOperation(let id, let reason):
                "The operation '\(id)' cannot be queued: \(reason)."
            case .unknownOperationType(let type, let version):
                "This outbox does not know the operation type '\(type)' at version \(version):"
                    + " declare it in Outbox.Configuration.operationTypes."
            case .appStatementRefused(let reason):
                "The outbox refused the app's SQL statement: \(reason)."
            case .readOnlyTransaction:
                "Nothing can be queued inside Outbox.read, which changes nothing; use Outbox.write."
            case .invalidSetting(let setting, let value, let allowed):
                "The outbox setting \(setting) cannot be \(value): it must be \(allowed)."
            case .notStarted:
                "The outbox has no transport to send with: call start(transport:) first, or pass one."
            }
        }
    }
}

extension OutboxError {
    /// A key, or the encryption of the store. Nothing was sent, changed or deleted.
    public enum Encryption: Equatable, Sendable, CustomStringConvertible {
        /// The outbox is encrypted and was opened without a key (`Configuration.keyProvider`).
        case keyRequired(path: String)
        /// The key given is not the one the outbox was encrypted with.
        case wrongKey(path: String)
        /// A key was given for an outbox that holds entries in plaintext: `Outbox.encrypt(with:)`
        /// converts it first.
        case notEncrypted(path: String)
        /// Bytes that cannot be a key (`OutboxKey(bytes:)`).
        case invalidKey(reason: String)
        /// A key file cannot be used; `cause` says why (never its contents).
        case keyFile(path: String, cause: Cause)
        /// A new key file cannot be written (`KeyFile.create(at:)`); `cause` says why.
        case keyFileNotCreated(path: String, cause: Cause)
        /// The Keychain could not give or keep the key; `reason` has its message.
        case keychain(reason: String)
        /// The app's own `KeyProvider` threw an error of its own (any but an `OutboxError`, which
        /// comes through as it is); `cause` keeps it, to match on or log.
        case keyProviderFailed(path: String, cause: UnderlyingError)
        /// The outbox cannot be encrypted as it is now; `reason` says why.
        case refused(path: String, reason: String)
        /// The outbox holds encrypted entries but no longer the record of its encryption (its key
        /// check): it can be neither read with a key nor encrypted again, which would seal them twice.
        case recordLost(path: String)

        /// The error's own sentence.
        public var description: String {
            switch self {
            case .keyRequired(let path):
                "The outbox '\(path)' is encrypted: open it with its key (Outbox.Configuration.keyProvider)."
            case .wrongKey(let path):
                "The key does not open the outbox '\(path)': it is not the key this outbox was encrypted with."
            case .notEncrypted(let path):
                "The outbox '\(path)' holds entries in plaintext, so a key cannot open it:"
                    + " encrypt it first (Outbox.encrypt(with:), or 'outbox encrypt')."
            case .invalidKey(let reason):
                "These bytes cannot be an outbox key: \(reason)."
            case .keyFile(let path, let cause):
                "The key file '\(path)' cannot be used: \(cause)."
            case .keyFileNotCreated(let path, let cause):
                "A new key file cannot be written at '\(path)': \(cause)."
            case .keychain(let reason):
                "The Keychain could not give the outbox its key: \(reason)."
            case .keyProviderFailed(let path, let cause):
                "The key provider gave no key for the outbox '\(path)': \(cause)."
            case .refused(let path, let reason):
                "The outbox '\(path)' cannot be encrypted now: \(reason); nothing was changed."
            case .recordLost(let path):
                "The outbox '\(path)' holds encrypted entries but has lost the record of its encryption"
                    + " (its outbox_encryption row), so it can be neither opened with a key nor encrypted again:"
                    + " restore the store from a backup, or discard those entries."
            }
        }
    }
}

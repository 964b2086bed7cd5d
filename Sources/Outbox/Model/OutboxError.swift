import Foundation

/// Why the outbox could not do what was asked. Every case names what it is about (an entry id, a
/// file path, the database path with SQLite's result code and message), and `description` is one
/// sentence an app can show after "Not saved on this phone:"; it is also the error's
/// `localizedDescription` (`LocalizedError`).
///
/// Messages never contain GPS values or photo bytes: they may end up in logs.
public enum OutboxError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The id cannot name an entry: it must be 1–128 letters, digits, '-' or '_'.
    case invalidID(String)
    /// The prefix cannot start an id: it must be at most 64 letters, digits, '-' or '_'.
    case invalidIDPrefix(String)
    /// The store holds no entry with this id.
    case notFound(id: String)
    /// Only a synced entry can be retired; retiring any other would lose the capture.
    case notSynced(id: String, state: OutboxEntry.State)
    /// The entry's record cannot be read by this version, so it cannot be sent or changed (only discarded).
    case unreadableEntry(id: String, reason: String)
    /// SQLite failed; `code` is its (extended) result code and `message` its explanation.
    case database(path: String, code: Int, message: String)
    /// The database was written by a newer version of the outbox, whose records this version could damage.
    case newerSchema(path: String, version: Int, supported: Int)
    /// The database could not be put in WAL mode (for example on a network file system).
    case walUnavailable(path: String, journalMode: String)
    /// A media file could not be written and flushed to disk.
    case mediaWrite(path: String, reason: String)
    /// A media file could not be read (to send it).
    case mediaRead(path: String, reason: String)
    /// A media file could not be removed.
    case mediaRemove(path: String, reason: String)
    /// The store's folder (or its media folder, or its lock file) could not be created or opened.
    case folder(path: String, reason: String)
    /// The store is there but this process may not change it (permissions, a read-only file
    /// system); `Outbox.readOnlyListing(folder:)` can still read it.
    case notWritable(path: String, reason: String)
    /// The store cannot even be read (its database is missing, or this user may not open it).
    case unreadableStore(path: String, reason: String)
    /// The operation's payload could not be encoded as JSON.
    case encoding(id: String, reason: String)
    /// The operation cannot be queued as it is: its type, entity, version, payload or an
    /// attachment breaks a rule; `reason` says which, without quoting the payload.
    case invalidOperation(id: String, reason: String)
    /// This outbox's configuration does not know the operation's type, or not at this version
    /// (`Outbox.Configuration.operationTypes`).
    case unknownOperationType(type: String, version: Int)
    /// The entry waits behind an earlier one of its entity, which must reach the engine (or be
    /// discarded) first.
    case blockedBehind(id: String, blockedBy: String, entity: String)
    /// The entry's type may not be sent on the network the device is on (`OperationType.network`),
    /// so "send now" cannot send it; it goes once the device is on one it allows.
    case waitsForNetwork(id: String, type: String, network: NetworkPath, awaited: String)
    /// The app's SQL inside `Outbox.write` or `Outbox.read` was refused; `reason` says why.
    case appStatementRefused(reason: String)
    /// `OutboxTransaction.enqueue` was called inside `Outbox.read`, which changes nothing.
    case readOnlyTransaction
    /// The outbox is encrypted and was opened without a key (`Configuration.keyProvider`);
    /// nothing was sent, changed or deleted.
    case keyRequired(path: String)
    /// The key given is not the one the outbox was encrypted with; nothing was sent, changed or deleted.
    case wrongKey(path: String)
    /// A key was given for an outbox that holds entries in plaintext: `Outbox.encrypt(with:)`
    /// converts it first.
    case notEncrypted(path: String)
    /// Bytes that cannot be a key (`OutboxKey(bytes:)`).
    case invalidKey(reason: String)
    /// A key file cannot be used; `reason` says why (never its contents).
    case keyFile(path: String, reason: String)
    /// A new key file cannot be written (`KeyFile.create(at:)`); `reason` says why.
    case keyFileNotCreated(path: String, reason: String)
    /// The Keychain could not give or keep the key; `reason` has its message.
    case keychain(reason: String)
    /// The app's own `KeyProvider` threw an error of its own (any but an `OutboxError`, which
    /// comes through as it is); `cause` keeps it, to match on or log. Nothing was sent, changed
    /// or deleted.
    case keyProviderFailed(path: String, cause: UnderlyingError)
    /// The outbox cannot be encrypted as it is now; `reason` says why, and nothing was changed.
    case encryptionRefused(path: String, reason: String)
    /// The outbox holds encrypted entries but no longer the record of its encryption (its key
    /// check): it can be neither read with a key nor encrypted again, which would seal them twice.
    case encryptionRecordLost(path: String)
    /// The store this outbox opened is no longer at its folder: the folder or the database was
    /// deleted, moved or replaced while it ran. Sending on from the old file would report a
    /// queue that is not the one there.
    case storeReplaced(path: String, reason: String)
    /// A setting is outside what it allows: `setting` names it, `value` is what it was given and
    /// `allowed` what it takes.
    case invalidSetting(setting: String, value: String, allowed: String)
    /// `drainNow()` or `sendNow(id:)` without a transport needs the scheduler's: call
    /// `start(transport:)` first, or pass a transport.
    case notStarted

    /// The error's own sentence, naming what it is about and the cause; `errorDescription` gives
    /// the same.
    public var description: String {
        switch self {
        case .invalidID(let id):
            return "'\(id)' cannot be an outbox id: use 1 to 128 letters, digits, '-' or '_'."
        case .invalidIDPrefix(let prefix):
            return "'\(prefix)' cannot start an outbox id: use at most 64 letters, digits, '-' or '_'."
        case .notFound(let id):
            return "The outbox holds no entry with the id '\(id)'."
        case .notSynced(let id, let state):
            return
                "The capture '\(id)' cannot be retired because the engine does not have it yet: it is \(state.rawValue)."
        case .unreadableEntry(let id, let reason):
            return "The entry '\(id)' cannot be read by this version of the app: \(reason)."
        case .database(let path, let code, let message):
            return "The outbox database '\(path)' failed: \(message) (SQLite result code \(code))."
        case .newerSchema(let path, let version, let supported):
            return "The outbox database '\(path)' was written by a newer version of the app"
                + " (schema \(version); this version reads up to \(supported))."
        case .walUnavailable(let path, let journalMode):
            return "The outbox database '\(path)' cannot use write-ahead logging on this file system:"
                + " SQLite stayed in '\(journalMode)' mode."
        case .mediaWrite(let path, let reason):
            return "The photo file '\(path)' could not be written to disk: \(reason)."
        case .mediaRead(let path, let reason):
            return "The photo file '\(path)' could not be read: \(reason)."
        case .mediaRemove(let path, let reason):
            return "The photo file '\(path)' could not be removed: \(reason)."
        case .folder(let path, let reason):
            return "The outbox folder '\(path)' could not be opened: \(reason)."
        case .notWritable(let path, let reason):
            return "The outbox '\(path)' cannot be changed by this user: \(reason)."
        case .unreadableStore(let path, let reason):
            return "The outbox '\(path)' cannot be read: \(reason)."
        case .encoding(let id, let reason):
            return "The operation '\(id)' could not be encoded for storage: \(reason)."
        case .invalidOperation(let id, let reason):
            return "The operation '\(id)' cannot be queued: \(reason)."
        case .unknownOperationType(let type, let version):
            return "This outbox does not know the operation type '\(type)' at version \(version):"
                + " declare it in Outbox.Configuration.operationTypes."
        case .blockedBehind(let id, let blockedBy, let entity):
            return "The entry '\(id)' waits behind '\(blockedBy)', an earlier one of '\(entity)':"
                + " send or discard that one first."
        case .waitsForNetwork(let id, let type, let network, let awaited):
            return "The entry '\(id)' waits for \(awaited): operations '\(type)' are not sent on a"
                + " \(network) network, and the device is on one. It goes once it is on \(awaited)."
        case .appStatementRefused(let reason):
            return "The outbox refused the app's SQL statement: \(reason)."
        case .readOnlyTransaction:
            return "Nothing can be queued inside Outbox.read, which changes nothing; use Outbox.write."
        case .keyRequired(let path):
            return "The outbox '\(path)' is encrypted: open it with its key (Outbox.Configuration.keyProvider)."
        case .wrongKey(let path):
            return "The key does not open the outbox '\(path)': it is not the key this outbox was encrypted with."
        case .notEncrypted(let path):
            return "The outbox '\(path)' holds entries in plaintext, so a key cannot open it:"
                + " encrypt it first (Outbox.encrypt(with:), or 'outbox encrypt')."
        case .invalidKey(let reason):
            return "These bytes cannot be an outbox key: \(reason)."
        case .keyFile(let path, let reason):
            return "The key file '\(path)' cannot be used: \(reason)."
        case .keyFileNotCreated(let path, let reason):
            return "A new key file cannot be written at '\(path)': \(reason)."
        case .keychain(let reason):
            return "The Keychain could not give the outbox its key: \(reason)."
        case .keyProviderFailed(let path, let cause):
            return "The key provider gave no key for the outbox '\(path)': \(cause)."
        case .encryptionRefused(let path, let reason):
            return "The outbox '\(path)' cannot be encrypted now: \(reason); nothing was changed."
        case .encryptionRecordLost(let path):
            return "The outbox '\(path)' holds encrypted entries but has lost the record of its encryption"
                + " (its outbox_encryption row), so it can be neither opened with a key nor encrypted again:"
                + " restore the store from a backup, or discard those entries."
        case .storeReplaced(let path, let reason):
            return "The outbox '\(path)' was replaced while it was open: \(reason); open it again to go on."
        case .invalidSetting(let setting, let value, let allowed):
            return "The outbox setting \(setting) cannot be \(value): it must be \(allowed)."
        case .notStarted:
            return "The outbox has no transport to send with: call start(transport:) first, or pass one."
        }
    }

    /// The same sentence as `description`, for `error.localizedDescription`.
    public var errorDescription: String? { description }
}

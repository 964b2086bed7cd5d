import Foundation
public import PlatformLayer

/// Why the outbox could not do what was asked, grouped by what an app does about it: a
/// `request` it should not have made, an `entry` that cannot go as asked, the `store` or a
/// `media` file that failed, and `encryption`. Every case names what it is about (an entry id, a
/// file path, the database path with SQLite's result code and message), and `description` is one
/// sentence an app can show after "Not saved on this phone:"; it is also the error's
/// `localizedDescription` (`LocalizedError`).
///
/// ```swift
/// do {
///     try await outbox.sendNow(id: id, using: transport)
/// } catch OutboxError.entry(.blockedBehind(_, let earlier, _)) {
///     showFirst(earlier)
/// } catch let error as OutboxError where error.systemError?.code == ENOSPC {
///     askToFreeSpace()
/// }
/// ```
///
/// Messages never contain GPS values or photo bytes: they may end up in logs.
public enum OutboxError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The app asked for something the outbox does not take: an id, an operation, a setting, or
    /// a call it cannot make now. A bug to fix in the app rather than a condition to show.
    case request(Request)
    /// The entry cannot be found, read, sent or changed as asked.
    case entry(Entry)
    /// The store (its database, its folder, its lock file) cannot be opened, read or written.
    case store(Store)
    /// A media file could not be written, read or removed.
    case media(Media)
    /// A key, or the encryption of the store.
    case encryption(Encryption)

    /// The system call's failure behind the error, when a system call failed: its `errno` value
    /// (`ENOSPC` for a full disk), the call and the path.
    public var systemError: SystemError? {
        let cause: Cause? =
            switch self {
            case .store(.folder(_, let cause)), .store(.notWritable(_, let cause)),
                .store(.unreadable(_, let cause)), .media(.write(_, let cause)), .media(.read(_, let cause)),
                .media(.remove(_, let cause)), .encryption(.keyFile(_, let cause)),
                .encryption(.keyFileNotCreated(_, let cause)):
                cause
            default: nil
            }
        guard case .system(let error) = cause else { return nil }
        return error
    }

    /// The error's own sentence, naming what it is about and the cause; `errorDescription` gives
    /// the same.
    public var description: String {
        switch self {
        case .request(let error): error.description
        case .entry(let error): error.description
        case .store(let error): error.description
        case .media(let error): error.description
        case .encryption(let error): error.description
        }
    }

    /// The same sentence as `description`, for `error.localizedDescription`.
    public var errorDescription: String? { description }
}

extension OutboxError {
    /// A system call that failed: the call, the path and the `errno` value (`code`).
    public typealias SystemError = PlatformLayer.SystemError

    /// Why a file or folder could not be used: a system call that failed, or what the outbox
    /// found there instead.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// A system call failed; `SystemError.code` is its `errno` value.
        case system(SystemError)
        /// What the outbox found, in words ("it is a symbolic link, which could lead anywhere").
        case found(String)

        /// The system's reason ("No space left on device"), or the words.
        public var description: String {
            switch self {
            case .system(let error): error.reason
            case .found(let words): words
            }
        }
    }
}

/// A system call that failed: which call, on which path, and the `errno` value it set.
///
/// Compare `code` with the C library's constants (`ENOSPC`, `EACCES`, …); `reason` is the
/// system's own sentence for it, which messages quote.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, as its manual page names it: "open", "fsync", "unlink", ….
    public let operation: String
    /// The file or folder it was given.
    public let path: String
    /// The `errno` value it set.
    public let code: Int32

    /// A failure of `operation` on `path` with the `errno` value `code`.
    public init(operation: String, path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    /// The system's explanation of `code` (`strerror`), for example "No space left on device".
    public var reason: String { String(cString: strerror(code)) }

    /// The call, the path and the reason: "open '/var/outbox/media/a.0.jpg': Permission denied".
    public var description: String { "\(operation) '\(path)': \(reason)" }

    /// The failure `operation` on `path` just left in `errno`.
    package static func last(_ operation: String, path: String) -> SystemError {
        SystemError(operation: operation, path: path, code: errno)
    }

    /// `operation` on `path` refused because something is there already (`EEXIST`, "File exists").
    package static func alreadyThere(_ operation: String, path: String) -> SystemError {
        SystemError(operation: operation, path: path, code: EEXIST)
    }

    /// `operation` on `path` refused because a folder has that name (`EISDIR`, "Is a directory").
    package static func isAFolder(_ operation: String, path: String) -> SystemError {
        SystemError(operation: operation, path: path, code: EISDIR)
    }

    /// `operation` on `path` without the memory it needed (`ENOMEM`).
    package static func outOfMemory(_ operation: String, path: String) -> SystemError {
        SystemError(operation: operation, path: path, code: ENOMEM)
    }

    /// Whether nothing is at the path (`ENOENT`).
    package var isNoSuchFile: Bool { code == ENOENT }

    /// Whether something is at the path already (`EEXIST`).
    package var isAlreadyThere: Bool { code == EEXIST }

    /// Whether the path is a symbolic link that the call was told not to follow (`ELOOP`).
    package var isSymbolicLink: Bool { code == ELOOP }

    /// Whether a failed `link` means the file system has no hard links (FAT, exFAT).
    package var meansNoHardLinks: Bool { [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(code) }

    /// Whether the caller may not write there (`EACCES`, `EPERM`, `EROFS`), rather than
    /// something being broken.
    package var meansNotWritable: Bool { [EACCES, EPERM, EROFS].contains(code) }
}

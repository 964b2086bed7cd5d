/// The POSIX calls on files, folders and locks that the outbox makes, each named for what it is
/// for and throwing a `SystemError` that names the call and the path. The descriptors they
/// return are the caller's to close, once (`close(_:path:)` or `Platform.close`).
package enum FileCalls {
    /// Creates a new file at `path`, owner-only (0600), and opens it for writing; never over
    /// anything already there (`O_EXCL`), nor through a symbolic link.
    package static func createNew(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        return descriptor
    }

    /// Opens the file at `path` for reading, without waiting for a writer (`O_NONBLOCK`: a FIFO
    /// planted in the file's place must not hang the caller).
    ///
    /// - Parameter followsLinks: False to refuse a symbolic link (`ELOOP`) rather than read
    ///   what it leads to.
    package static func openForReading(_ path: String, followsLinks: Bool) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followsLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { throw .last("open", path: path) }
        return descriptor
    }

    /// Opens the folder at `path`, for flushing its entries.
    package static func openFolder(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        return descriptor
    }

    /// Opens the lock file at `path` for reading and writing, creating it owner-only when absent.
    package static func openLockFile(_ path: String) throws(SystemError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .last("open", path: path) }
        return descriptor
    }

    /// Closes `descriptor`, which is then gone whatever this throws; `close` can report a
    /// deferred write error, so a writer checks it.
    package static func close(_ descriptor: Int32, path: String) throws(SystemError) {
        guard Platform.close(descriptor) == 0 else { throw .last("close", path: path) }
    }

    /// Writes every byte of `buffer`, retrying short writes and interruptions.
    package static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32, path: String)
        throws(SystemError)
    {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = Platform.write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw .last("write", path: path)
            }
            offset += written
        }
    }

    /// Reads into all of `buffer` unless the file ends first, retrying interruptions.
    ///
    /// - Returns: How many bytes were read.
    package static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String)
        throws(SystemError) -> Int
    {
        guard let base = buffer.baseAddress else { return 0 }
        var offset = 0
        while offset < buffer.count {
            let count = Platform.read(descriptor, base + offset, buffer.count - offset)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw .last("read", path: path) }
            if count == 0 { break }
            offset += count
        }
        return offset
    }

    /// Makes the open file its owner's only (0600): the umask may have narrowed it further.
    package static func restrictToOwner(_ descriptor: Int32, path: String) throws(SystemError) {
        guard fchmod(descriptor, 0o600) == 0 else { throw .last("fchmod", path: path) }
    }

    /// Flushes the open file's (or folder's) data to stable storage (`Platform.flushToStorage`).
    package static func flushToStorage(_ descriptor: Int32, path: String) throws(SystemError) {
        guard Platform.flushToStorage(descriptor) == 0 else { throw .last("fsync", path: path) }
    }

    /// Removes the file at `path`.
    package static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .last("unlink", path: path) }
    }

    /// Makes the folder at `path`, owner-only (0700).
    package static func makeFolder(_ path: String) throws(SystemError) {
        guard mkdir(path, 0o700) == 0 else { throw .last("mkdir", path: path) }
    }

    /// Checks that this process may create and remove files in the folder at `path`.
    package static func checkMayWriteIn(_ path: String) throws(SystemError) {
        guard access(path, W_OK | X_OK) == 0 else { throw .last("access", path: path) }
    }

    /// What the open file is.
    package static func status(of descriptor: Int32, path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .last("fstat", path: path) }
        return FileStatus(info)
    }

    /// What is at `path`, a symbolic link itself rather than what it leads to.
    package static func statusNotFollowingLinks(_ path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .last("lstat", path: path) }
        return FileStatus(info)
    }

    /// `path` with every link and `..` resolved, or nil when it does not exist.
    package static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Takes the file's advisory lock exclusively when nobody else holds it, retrying interruptions.
    ///
    /// - Returns: Whether it did; false when another holder has it.
    package static func lockExclusivelyIfFree(_ descriptor: Int32, path: String) throws(SystemError) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            guard errno == EWOULDBLOCK else { throw .last("flock", path: path) }
            return false
        }
        return true
    }

    /// Takes (or converts to) a shared advisory lock on the file, waiting for an exclusive holder.
    package static func lockShared(_ descriptor: Int32, path: String) throws(SystemError) {
        while flock(descriptor, LOCK_SH) != 0 {
            guard errno == EINTR else { throw .last("flock", path: path) }
        }
    }
}

/// What `fstat` or `lstat` said of a file: its kind, size, owner and permissions.
package struct FileStatus: Sendable {
    /// What kind of file it is.
    package enum Kind: Sendable {
        case regular, folder, symbolicLink, namedPipe, socket, device, other
    }

    package let kind: Kind
    /// Its size in bytes.
    package let size: Int64
    /// Whether it belongs to this process's effective user.
    package let isOwnedByThisUser: Bool
    /// Its permission bits (`mode & 0o777`).
    package let permissions: UInt32

    fileprivate init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .folder
        case S_IFLNK: kind = .symbolicLink
        case S_IFIFO: kind = .namedPipe
        case S_IFSOCK: kind = .socket
        case S_IFCHR, S_IFBLK: kind = .device
        default: kind = .other
        }
        size = Int64(info.st_size)
        isOwnedByThisUser = info.st_uid == geteuid()
        permissions = UInt32(info.st_mode & 0o777)
    }
}

/// The POSIX calls on files, folders and locks that the package makes, each named for what it
/// is for and throwing a `SystemError` that names the call and the path. The descriptors they
/// return are the caller's to close, once (`close(_:path:)` or `Platform.close`).
package enum FileCalls {
    /// How `openForReading` opens a file, as the `open` flags of the same names.
    package struct OpenOptions: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// Without waiting for a writer (`O_NONBLOCK`): a FIFO planted in a file's place must
        /// not hang the caller.
        package static let nonBlocking = OpenOptions(rawValue: O_NONBLOCK)
        /// Refusing a symbolic link (`ELOOP`) rather than reading what it leads to (`O_NOFOLLOW`).
        package static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
        /// A terminal opened never becomes the process's controlling terminal (`O_NOCTTY`).
        package static let noControllingTerminal = OpenOptions(rawValue: O_NOCTTY)
    }

    /// The descriptor of the process's standard input.
    package static let standardInput: Int32 = STDIN_FILENO

    /// Creates a new file at `path`, owner-only (0600) unless told otherwise, and opens it for
    /// writing; never over anything already there (`O_EXCL`), nor through a symbolic link.
    package static func createNew(_ path: some SystemPath, permissions: mode_t = 0o600) throws(SystemError) -> Int32 {
        let descriptor = path.withCString {
            open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
        }
        guard descriptor >= 0 else { throw .last("open", path: path.description) }
        return descriptor
    }

    /// Opens the file at `path` for writing, creating it when absent and emptying it when
    /// present (`O_TRUNC`): for a temporary file whose name only this process uses, where a
    /// leftover of an earlier run is to be written over rather than refused.
    package static func createOrEmpty(_ path: some SystemPath, permissions: mode_t) throws(SystemError) -> Int32 {
        let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, permissions) }
        guard descriptor >= 0 else { throw .last("open", path: path.description) }
        return descriptor
    }

    /// Opens the file at `path` for reading, in the ways `options` says.
    package static func openForReading(_ path: some SystemPath, options: OpenOptions) throws(SystemError) -> Int32 {
        let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC | options.rawValue) }
        guard descriptor >= 0 else { throw .last("open", path: path.description) }
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

    /// Reads what the file has next, up to all of `buffer`, retrying interruptions; a file that
    /// is a pipe may give less than it will later.
    ///
    /// - Returns: How many bytes were read: 0 at the end of the file.
    package static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String)
        throws(SystemError) -> Int
    {
        guard let base = buffer.baseAddress else { return 0 }
        while true {
            let count = Platform.read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            guard errno == EINTR else { throw .last("read", path: path) }
        }
    }

    /// Makes the open file its owner's only (0600): the umask may have narrowed it further.
    package static func restrictToOwner(_ descriptor: Int32, path: String) throws(SystemError) {
        guard fchmod(descriptor, 0o600) == 0 else { throw .last("fchmod", path: path) }
    }

    /// Flushes the open file's (or folder's) data to stable storage (`Platform.flushToStorage`).
    package static func flushToStorage(_ descriptor: Int32, path: String) throws(SystemError) {
        guard Platform.flushToStorage(descriptor) == 0 else { throw .last("fsync", path: path) }
    }

    /// Hands the open file's data to the drive (`fsync`), which on Apple's platforms may still
    /// hold it in its cache: enough for a copy that can be made again, where the outbox's
    /// durability points need `flushToStorage`.
    package static func synchronize(_ descriptor: Int32, path: String) throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw .last("fsync", path: path) }
    }

    /// Gives the open file the modification (and access) time `nanoseconds` since 1970. Best
    /// effort: a file system that refuses leaves the file's own time.
    package static func setModified(_ descriptor: Int32, nanoseconds: Int64) {
        // Whole seconds rounded down, so that a time before 1970 keeps its nanoseconds in 0..<10^9.
        var (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        if remainder < 0 { (seconds, remainder) = (seconds - 1, remainder + 1_000_000_000) }
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int(remainder))
        _ = futimens(descriptor, [time, time])
    }

    /// Removes the file at `path`.
    package static func remove(_ path: some SystemPath) throws(SystemError) {
        guard path.withCString({ unlink($0) }) == 0 else { throw .last("unlink", path: path.description) }
    }

    /// Moves `source` to `destination`, replacing what is there.
    package static func rename(_ source: some SystemPath, to destination: some SystemPath) throws(SystemError) {
        let result = source.withCString { from in destination.withCString { to in Platform.rename(from, to) } }
        guard result == 0 else { throw .last("rename", path: source.description) }
    }

    /// Gives `source` the name `destination` too, failing with `EEXIST` when that name is taken:
    /// the one atomic "create unless it exists" for a finished file.
    package static func link(_ source: some SystemPath, to destination: some SystemPath) throws(SystemError) {
        let result = source.withCString { from in destination.withCString { to in Platform.link(from, to) } }
        guard result == 0 else { throw .last("link", path: source.description) }
    }

    /// Makes the folder at `path`, owner-only (0700) unless told otherwise.
    package static func makeFolder(_ path: some SystemPath, permissions: mode_t = 0o700) throws(SystemError) {
        guard path.withCString({ mkdir($0, permissions) }) == 0 else { throw .last("mkdir", path: path.description) }
    }

    /// The names in the folder at `path`, as the file system's bytes, in its order, without `.`
    /// and `..`.
    package static func names(inFolder path: some SystemPath) throws(SystemError) -> [[UInt8]] {
        guard let folder = path.withCString({ opendir($0) }) else { throw .last("opendir", path: path.description) }
        defer { closedir(folder) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(folder) else {
                if errno != 0 { throw .last("readdir", path: path.description) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
    }

    /// The working folder's path, as `getcwd` gives it; nil when it has none (removed, or
    /// longer than `PATH_MAX`).
    package static func workingFolder() -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
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

    /// What is at `path`: what a symbolic link leads to (`stat`), or, when `followsLinks` is
    /// false, the link itself (`lstat`).
    package static func status(at path: some SystemPath, followsLinks: Bool) throws(SystemError) -> FileStatus {
        var info = stat()
        let result = path.withCString { followsLinks ? stat($0, &info) : lstat($0, &info) }
        guard result == 0 else { throw .last(followsLinks ? "stat" : "lstat", path: path.description) }
        return FileStatus(info)
    }

    /// `path` with every link and `..` resolved, or nil when it does not exist.
    package static func resolvedPath(_ path: String) -> String? {
        resolved(path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The bytes of `path` with every link and `..` resolved, or nil when it does not exist.
    package static func resolved(_ path: some SystemPath) -> [UInt8]? {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return UnsafeBufferPointer(start: resolved, count: strlen(resolved)).map { UInt8(bitPattern: $0) }
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

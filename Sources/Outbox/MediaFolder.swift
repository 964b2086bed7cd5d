import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder beside the database that holds one file per upload copy, and the module's POSIX
/// calls on files and folders.
///
/// Every write is flushed with `fsync` before it returns, and `synchronize()` flushes the folder
/// itself: on Linux a new file's name is only durable once its directory has been synced, and a
/// record must never commit while the name it points at could still vanish in a power cut.
///
/// Every name it is given must be a plain file name (`StoredValue.isPlainFileName`), so that no
/// name read back from a record can write, read or delete anything outside the folder; files are
/// read without following a symbolic link, so that no link planted in the folder can send another
/// file to the engine.
struct MediaFolder: Sendable {
    /// The folder.
    let url: URL

    /// Opens the folder, creating it (owner-only) when absent.
    ///
    /// - Parameter isCreated: Whether a missing folder is created; false for reading a store only.
    /// - Throws: `OutboxError.folder` when it cannot be made, is not a folder, or is a symbolic
    ///   link (which could lead anywhere).
    init(url: URL, isCreated: Bool = true) throws(OutboxError) {
        self.url = url
        if isCreated { try Self.makeFolder(url) }
    }

    /// The location of the file called `name`.
    func fileURL(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: false) }

    /// Writes `data` to a new file called `name`, readable and writable by the owner only, and
    /// flushes it to disk. The name must not exist yet; a half-written file is removed.
    ///
    /// - Throws: `OutboxError.mediaWrite` with the system's reason.
    func write(_ data: Data, named name: String) throws(OutboxError) {
        let path = fileURL(name).path
        guard StoredValue.isPlainFileName(name) else { throw .mediaWrite(path: path, reason: Self.notAPlainName) }
        // O_EXCL: a file an existing record names is never overwritten, whatever the caller does.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .mediaWrite(path: path, reason: Self.lastErrno()) }
        var failure = Self.writeAll(data, to: descriptor)
        // fchmod because the umask could have narrowed 0600 further (never widened it).
        if failure == nil, fchmod(descriptor, 0o600) != 0 { failure = Self.lastErrno() }
        if failure == nil, fsync(descriptor) != 0 { failure = Self.lastErrno() }
        // close can report a deferred write error, so it counts too.
        if close(descriptor) != 0, failure == nil { failure = Self.lastErrno() }
        if let failure {
            unlink(path)
            throw .mediaWrite(path: path, reason: failure)
        }
    }

    /// Flushes the folder, so that names just created or removed survive a power cut.
    func synchronize() throws(OutboxError) {
        try Self.synchronizeDirectory(url)
    }

    /// Removes the files called `names`; a file that is already gone is not an error.
    ///
    /// - Throws: `OutboxError.mediaRemove` for a name that is not a plain file name (nothing is
    ///   removed then) or a file that cannot be removed.
    func remove(_ names: some Sequence<String>) throws(OutboxError) {
        let names = Array(names)
        if let bad = names.first(where: { !StoredValue.isPlainFileName($0) }) {
            throw .mediaRemove(path: fileURL(bad).path, reason: Self.notAPlainName)
        }
        for name in names {
            let path = fileURL(name).path
            if unlink(path) != 0, errno != ENOENT { throw .mediaRemove(path: path, reason: Self.lastErrno()) }
        }
    }

    /// Removes what it can and says nothing: for undoing a write that already failed, where the
    /// first error is the one worth reporting (and the sweep at the next open gets the rest).
    func removeQuietly(_ names: some Sequence<String>) {
        for name in names where StoredValue.isPlainFileName(name) { unlink(fileURL(name).path) }
    }

    /// The names of the regular files in the folder (never subfolders or links), plain names only.
    func regularFileNames() throws(OutboxError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw .folder(path: url.path, reason: Self.reason(error))
        }
        return names.filter { name in
            var info = stat()
            return StoredValue.isPlainFileName(name) && lstat(fileURL(name).path, &info) == 0
                && (info.st_mode & S_IFMT) == S_IFREG
        }
    }

    /// What keeps the file called `name` from being sent, or nil when it is a regular file this
    /// process can read.
    func problem(with name: String) -> MediaProblem? {
        guard StoredValue.isPlainFileName(name) else { return .notAPlainName }
        var info = stat()
        guard lstat(fileURL(name).path, &info) == 0 else {
            return errno == ENOENT ? .missing : .unreadable(reason: Self.lastErrno())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .notAFile(kind: Self.kind(of: info.st_mode)) }
        let descriptor = open(fileURL(name).path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return .unreadable(reason: Self.lastErrno()) }
        close(descriptor)
        return nil
    }

    /// The bytes of the file called `name`.
    func contents(of name: String, atMost limit: Int) -> Result<Data, MediaProblem> {
        guard StoredValue.isPlainFileName(name) else { return .failure(.notAPlainName) }
        return Self.contents(ofFileAt: fileURL(name).path, atMost: limit)
    }

    /// The bytes of the regular file at `path`, read without following a symbolic link and never
    /// more than `limit` of them.
    static func contents(ofFileAt path: String, atMost limit: Int) -> Result<Data, MediaProblem> {
        // O_NONBLOCK: opening a FIFO planted in the file's place must not wait for a writer.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return .failure(.missing)
            case ELOOP: return .failure(.notAFile(kind: "a symbolic link"))
            default: return .failure(.unreadable(reason: lastErrno()))
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.unreadable(reason: lastErrno())) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notAFile(kind: kind(of: info.st_mode))) }
        guard info.st_size <= limit else { return .failure(.tooLarge(limit: limit)) }
        var data = Data(count: Int(info.st_size))
        var offset = 0
        let failure = data.withUnsafeMutableBytes { buffer -> MediaProblem? in
            guard let base = buffer.baseAddress else { return nil }
            while offset < buffer.count {
                let count = read(descriptor, base + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                if count < 0 { return .unreadable(reason: lastErrno()) }
                if count == 0 { break }
                offset += count
            }
            return nil
        }
        if let failure { return .failure(failure) }
        // A file that shrank while it was read; one that grew is read as it was when opened.
        return .success(data.prefix(offset))
    }

    /// Makes `folder` (owner-only) when it is absent, and checks that what is there is a folder.
    ///
    /// - Throws: `OutboxError.folder` naming the cause: the system's reason, "it is a file, not a
    ///   folder", or "it is a symbolic link".
    static func makeFolder(_ folder: URL) throws(OutboxError) {
        let path = folder.path
        if mkdir(path, 0o700) == 0 { return }
        var failure = errno
        if failure == ENOENT {
            // Folders above it are made as `mkdir -p` makes them, then this one owner-only.
            do {
                try FileManager.default.createDirectory(
                    at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .folder(path: path, reason: reason(error))
            }
            if mkdir(path, 0o700) == 0 { return }
            failure = errno
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // The reason for a missing parent, say, is mkdir's; for a folder that exists and
            // cannot be looked at, lstat's.
            throw .folder(path: path, reason: failure == EEXIST ? lastErrno() : String(cString: strerror(failure)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return
        case S_IFLNK: throw .folder(path: path, reason: "it is a symbolic link, which could lead anywhere")
        default: throw .folder(path: path, reason: "it is \(kind(of: info.st_mode)), not a folder")
        }
    }

    /// Why this process may not create or remove files in `folder` ("Permission denied",
    /// "Read-only file system"), or nil when it may.
    static func writeProblem(at folder: URL) -> String? {
        access(folder.path, W_OK | X_OK) == 0 ? nil : lastErrno()
    }

    /// Why this process cannot open the file at `path` for reading, in words ("it does not exist",
    /// "Permission denied"); nil when it can.
    static func readProblem(at path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            return errno == ENOENT ? "'\((path as NSString).lastPathComponent)' does not exist there" : lastErrno()
        }
        close(descriptor)
        return nil
    }

    /// Flushes a directory's entries (names created or removed in it) to disk.
    static func synchronizeDirectory(_ directory: URL) throws(OutboxError) {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .folder(path: directory.path, reason: lastErrno()) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .folder(path: directory.path, reason: lastErrno()) }
    }

    /// Writes every byte, retrying short writes and interruptions; returns the failure's reason.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return lastErrno()
                }
                offset += written
            }
            return nil
        }
    }

    /// What a file of this mode is, in words: "a folder", "a symbolic link", ...
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFREG: "a file"
        default: "something other than a file"
        }
    }

    private static let notAPlainName = "it is not a plain file name inside the media folder"

    /// The system's explanation of `errno`, for example "No space left on device".
    static func lastErrno() -> String { String(cString: strerror(errno)) }

    /// Whether an `errno` value says that the caller may not write, rather than that something is broken.
    static func meansNotWritable(_ code: Int32) -> Bool { [EACCES, EPERM, EROFS].contains(code) }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// Why a media file cannot be sent, in words that finish "its photo file …".
enum MediaProblem: Error, Equatable {
    /// No file has the name.
    case missing
    /// Something other than a regular file has the name (a folder, a link, a pipe).
    case notAFile(kind: String)
    /// The file cannot be opened or read; the system's reason.
    case unreadable(reason: String)
    /// The file is larger than anything the engine takes.
    case tooLarge(limit: Int)
    /// The file no longer holds the bytes that were saved (its size or SHA-256 differs).
    case changed
    /// The record names it with something other than a plain file name.
    case notAPlainName

    /// What is wrong, as the end of a sentence about the photo file.
    var wording: String {
        switch self {
        case .missing: "is missing from the outbox"
        case .notAFile(let kind): "is \(kind), not a file"
        case .unreadable(let reason): "cannot be read: \(reason)"
        case .tooLarge(let limit): "is larger than \(limit / (1024 * 1024)) MiB"
        case .changed: "no longer holds the bytes that were saved (its SHA-256 differs)"
        case .notAPlainName: "is named outside the media folder"
        }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The folder beside the database that holds one file per upload copy.
///
/// Every write is flushed with `fsync` before it returns, and `synchronize()` flushes the folder
/// itself: on Linux a new file's name is only durable once its directory has been synced, and a
/// record must never commit while the name it points at could still vanish in a power cut.
struct MediaFolder: Sendable {
    /// The folder.
    let url: URL

    /// Opens the folder, creating it (owner-only) when absent.
    init(url: URL) throws(OutboxError) {
        self.url = url
        do {
            try FileManager.default.createDirectory(
                at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .folder(path: url.path, reason: Self.reason(error))
        }
    }

    /// The location of the file called `name`.
    func fileURL(_ name: String) -> URL { url.appendingPathComponent(name, isDirectory: false) }

    /// Writes `data` to a new file called `name`, readable and writable by the owner only, and
    /// flushes it to disk. The name must not exist yet; a half-written file is removed.
    ///
    /// - Throws: `OutboxError.mediaWrite` with the system's reason.
    func write(_ data: Data, named name: String) throws(OutboxError) {
        let path = fileURL(name).path
        // O_EXCL: a file an existing record names is never overwritten, whatever the caller does.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
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
    func remove(_ names: some Sequence<String>) throws(OutboxError) {
        for name in names {
            let path = fileURL(name).path
            if unlink(path) != 0, errno != ENOENT { throw .mediaRemove(path: path, reason: Self.lastErrno()) }
        }
    }

    /// Removes what it can and says nothing: for undoing a write that already failed, where the
    /// first error is the one worth reporting (and the sweep at the next open gets the rest).
    func removeQuietly(_ names: some Sequence<String>) {
        for name in names { unlink(fileURL(name).path) }
    }

    /// The names of the regular files in the folder (never subfolders or links).
    func regularFileNames() throws(OutboxError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw .folder(path: url.path, reason: Self.reason(error))
        }
        return names.filter { name in
            var info = stat()
            return lstat(fileURL(name).path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
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

    /// The system's explanation of `errno`, for example "No space left on device".
    static func lastErrno() -> String { String(cString: strerror(errno)) }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

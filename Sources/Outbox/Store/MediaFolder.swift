import Foundation
internal import PlatformLayer

/// The folder beside the database that holds one file per upload copy, and the module's POSIX
/// calls on files and folders.
///
/// Every write is flushed (`Platform.flushToStorage`: `F_FULLFSYNC` on Apple's platforms, `fsync`
/// on Linux) before it returns, and `synchronize()` flushes the folder itself: on Linux a new file's name is only durable once its directory has been synced, and a
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
    /// - Parameter seal: For an encrypted outbox, what seals the file: its bytes are then
    ///   encrypted a chunk at a time on their way to the file, so no plaintext reaches the disk.
    /// - Throws: `OutboxError.mediaWrite` with the system's reason.
    func write(_ data: Data, named name: String, sealedWith seal: MediaSeal? = nil) throws(OutboxError) {
        let path = fileURL(name).path
        guard StoredValue.isPlainFileName(name) else { throw .mediaWrite(path: path, reason: Self.notAPlainName) }
        // O_EXCL: a file an existing record names is never overwritten, whatever the caller does.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .mediaWrite(path: path, reason: Self.lastErrno()) }
        Self.protect(path)
        var failure: String?
        if let seal {
            failure = seal.cipher.sealFile(data, id: seal.id, index: seal.index) { Self.writeAll($0, to: descriptor) }
        } else {
            failure = data.withUnsafeBytes { Self.writeAll($0, to: descriptor) }
        }
        // fchmod because the umask could have narrowed 0600 further (never widened it).
        if failure == nil, fchmod(descriptor, 0o600) != 0 { failure = Self.lastErrno() }
        if failure == nil, Platform.flushToStorage(descriptor) != 0 { failure = Self.lastErrno() }
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

    /// Makes every file in the folder its owner's only: an older version's files could be
    /// readable by anyone on the device.
    func protectFiles() throws(OutboxError) {
        for name in try regularFileNames() { Self.protect(fileURL(name).path) }
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

    /// The bytes of the file called `name`, opened with `seal` when the outbox is encrypted.
    func contents(of name: String, atMost limit: Int, openedWith seal: MediaSeal?) -> Result<Data, MediaProblem> {
        guard StoredValue.isPlainFileName(name) else { return .failure(.notAPlainName) }
        return Self.contents(ofFileAt: fileURL(name).path, atMost: limit, openedWith: seal)
    }

    /// The bytes of the regular file at `path`, read without following a symbolic link and never
    /// more than `limit` of them (of plaintext).
    ///
    /// - Parameter seal: For an encrypted outbox, what opens the file: it is read and opened a
    ///   chunk at a time straight into the result, and no byte of it is returned unless every
    ///   chunk opens (`failsAuthentication` otherwise).
    static func contents(ofFileAt path: String, atMost limit: Int, openedWith seal: MediaSeal? = nil)
        -> Result<Data, MediaProblem>
    {
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
        if let seal {
            guard let size = StoreCipher.plaintextSize(ofSealedFileSize: Int(clamping: info.st_size)) else {
                return .failure(.failsAuthentication)
            }
            guard size <= limit else { return .failure(.tooLarge(limit: limit)) }
            return openSealed(descriptor, plaintextSize: size, seal: seal)
        }
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

    /// Reads a sealed media file of `plaintextSize` bytes from `descriptor` (at its start) and
    /// opens it chunk by chunk into one buffer of that size; the only other memory is one chunk.
    private static func openSealed(_ descriptor: Int32, plaintextSize: Int, seal: MediaSeal) -> Result<
        Data, MediaProblem
    > {
        var header = [UInt8](repeating: 0, count: StoreCipher.magic.count)
        switch header.withUnsafeMutableBytes({ readFully(descriptor, into: $0) }) {
        case .failure(let problem): return .failure(problem)
        case .success(let count) where count < header.count || header != StoreCipher.magic:
            return .failure(.failsAuthentication)
        case .success: break
        }
        let chunks = max(1, (plaintextSize + StoreCipher.chunkByteCount - 1) / StoreCipher.chunkByteCount)
        var plaintext = Data(count: plaintextSize)
        var sealedChunk = [UInt8](repeating: 0, count: StoreCipher.sealedChunkByteCount)
        for chunk in 0..<chunks {
            let start = chunk * StoreCipher.chunkByteCount
            let count = min(StoreCipher.chunkByteCount, plaintextSize - start)
            let sealedCount = count + StoreCipher.chunkOverhead
            let read = sealedChunk.withUnsafeMutableBytes {
                readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<sealedCount]))
            }
            switch read {
            case .failure(let problem): return .failure(problem)
            // The file shrank while it was read.
            case .success(let got) where got < sealedCount: return .failure(.failsAuthentication)
            case .success: break
            }
            let opened = sealedChunk.withUnsafeBytes { input in
                plaintext.withUnsafeMutableBytes { output in
                    seal.cipher.openFileChunk(
                        UnsafeRawBufferPointer(rebasing: input[..<sealedCount]), id: seal.id, index: seal.index,
                        chunk: chunk, isLast: chunk == chunks - 1,
                        into: UnsafeMutableRawBufferPointer(rebasing: output[start..<(start + count)]))
                }
            }
            guard opened else { return .failure(.failsAuthentication) }
        }
        return .success(plaintext)
    }

    /// Reads into all of `buffer` unless the file ends first; the count read, or why it failed.
    private static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<
        Int, MediaProblem
    > {
        guard let base = buffer.baseAddress else { return .success(0) }
        var offset = 0
        while offset < buffer.count {
            let count = read(descriptor, base + offset, buffer.count - offset)
            if count < 0, errno == EINTR { continue }
            if count < 0 { return .failure(.unreadable(reason: lastErrno())) }
            if count == 0 { break }
            offset += count
        }
        return .success(offset)
    }

    /// Makes `folder` (owner-only) when it is absent, and checks that what is there is a folder.
    ///
    /// - Throws: `OutboxError.folder` naming the cause: the system's reason, "it is a file, not a
    ///   folder", or "it is a symbolic link".
    static func makeFolder(_ folder: URL) throws(OutboxError) {
        let path = folder.path
        if mkdir(path, 0o700) == 0 { return protect(path) }
        var failure = errno
        if failure == ENOENT {
            // Folders above it are made as `mkdir -p` makes them, then this one owner-only.
            do {
                try FileManager.default.createDirectory(
                    at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .folder(path: path, reason: reason(error))
            }
            if mkdir(path, 0o700) == 0 { return protect(path) }
            failure = errno
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // The reason for a missing parent, say, is mkdir's; for a folder that exists and
            // cannot be looked at, lstat's.
            throw .folder(path: path, reason: failure == EEXIST ? lastErrno() : String(cString: strerror(failure)))
        }
        switch info.st_mode & S_IFMT {
        // A folder that was there (made by hand, or by an older version) is tightened too.
        case S_IFDIR: return protect(path)
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
        guard Platform.flushToStorage(descriptor) == 0 else { throw .folder(path: directory.path, reason: lastErrno()) }
    }

    /// Writes every byte, retrying short writes and interruptions; returns the failure's reason.
    private static func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> String? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = Platform.write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return lastErrno()
            }
            offset += written
        }
        return nil
    }

    // MARK: Key files

    /// Creates the file at `path` holding `contents`, owner-only (0600), flushed with its folder;
    /// never over anything already there. Returns the failure's reason, or nil.
    static func createOwnerOnlyFile(atPath path: String, contents: Data) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            return errno == EEXIST ? "something is there already, and a key is never overwritten" : lastErrno()
        }
        var failure = contents.withUnsafeBytes { writeAll($0, to: descriptor) }
        if failure == nil, fchmod(descriptor, 0o600) != 0 { failure = lastErrno() }
        if failure == nil, Platform.flushToStorage(descriptor) != 0 { failure = lastErrno() }
        if close(descriptor) != 0, failure == nil { failure = lastErrno() }
        if failure == nil {
            do throws(OutboxError) {
                try synchronizeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent())
            } catch {
                failure = "its folder could not be flushed to disk"
            }
        }
        if failure != nil { unlink(path) }
        return failure
    }

    /// The bytes of the file at `path` (links followed), when it is a regular file of this user
    /// that nobody else may read or write, and at most `limit` bytes.
    static func ownerOnlyFileContents(atPath path: String, atMost limit: Int) -> Result<Data, KeyFileProblem> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            return .failure(KeyFileProblem(errno == ENOENT ? "it does not exist" : lastErrno()))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(KeyFileProblem(lastErrno())) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            return .failure(KeyFileProblem("it is \(kind(of: info.st_mode)), not a file"))
        }
        guard info.st_uid == geteuid() else { return .failure(KeyFileProblem("it belongs to another user")) }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return .failure(
                KeyFileProblem("others may read or change it (mode \(mode)): make it owner-only with 'chmod 600'"))
        }
        guard info.st_size <= limit else { return .failure(KeyFileProblem("it is too large to be a key file")) }
        var data = Data(count: Int(info.st_size))
        switch data.withUnsafeMutableBytes({ readFully(descriptor, into: $0) }) {
        case .success(let count): return .success(data.prefix(count))
        case .failure(let problem): return .failure(KeyFileProblem("it \(problem.wording)"))
        }
    }

    /// `path` with every link and `..` resolved, or nil when it does not exist.
    static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: File protection

    /// Makes the file or folder at `path` its owner's only (`Platform.restrictToOwner`), and on
    /// iOS gives the file or folder at `path` the protection class
    /// `completeUntilFirstUserAuthentication`: encrypted by the device with a key that exists
    /// only once the user has unlocked the phone after it started, and that stays while the phone
    /// locks again, so that a background upload can still read the queue. `complete` would lock
    /// the files ten seconds after every lock, and a drain in the background would fail. Files
    /// made in a folder take its class, so the database's log files get it too.
    static func protect(_ path: String) {
        Platform.restrictToOwner(path)
        #if os(iOS)
        try? FileManager.default.setAttributes(
            [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: path)
        #endif
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
    /// The file of an encrypted outbox does not open with the store's key for its entry: a byte
    /// of it changed, or it is another entry's file.
    case failsAuthentication
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
        case .failsAuthentication:
            "fails authentication with the outbox's key: it was changed, or it is another entry's file"
        case .notAPlainName: "is named outside the media folder"
        }
    }
}

/// Why a key file cannot be used, in words that finish "The key file … cannot be used: …".
struct KeyFileProblem: Error {
    let reason: String

    init(_ reason: String) { self.reason = reason }
}

import Foundation
internal import PlatformLayer

/// The folder beside the database that holds one file per upload copy, and the module's file
/// and folder work, whose system calls go through the platform layer (`FileCalls`).
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
    /// - Throws: `OutboxError.store(.folder)` when it cannot be made, is not a folder, or is a symbolic
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
    /// - Throws: `OutboxError.media(.write)` with the system's reason.
    func write(_ data: Data, named name: String, sealedWith seal: MediaSeal? = nil) throws(OutboxError) {
        let path = fileURL(name).path
        guard StoredValue.isPlainFileName(name) else {
            throw .media(.write(path: path, cause: .found(Self.notAPlainName)))
        }
        // A file an existing record names is never overwritten, whatever the caller does.
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.createNew(path)
        } catch {
            throw .media(.write(path: path, cause: .system(error)))
        }
        Self.protect(path)
        let failure = Self.writeDurably(descriptor, path: path) { write in
            if let seal { return seal.cipher.sealFile(data, id: seal.id, index: seal.index, write: write) }
            return data.withUnsafeBytes(write)
        }
        if let failure {
            try? FileCalls.remove(path)
            throw .media(.write(path: path, cause: .system(failure)))
        }
    }

    /// Flushes the folder, so that names just created or removed survive a power cut.
    func synchronize() throws(OutboxError) {
        try Self.synchronizeDirectory(url)
    }

    /// Removes the files called `names`; a file that is already gone is not an error.
    ///
    /// - Throws: `OutboxError.media(.remove)` for a name that is not a plain file name (nothing is
    ///   removed then) or a file that cannot be removed.
    func remove(_ names: some Sequence<String>) throws(OutboxError) {
        let names = Array(names)
        if let bad = names.first(where: { !StoredValue.isPlainFileName($0) }) {
            throw .media(.remove(path: fileURL(bad).path, cause: .found(Self.notAPlainName)))
        }
        for name in names {
            let path = fileURL(name).path
            do throws(SystemError) {
                try FileCalls.remove(path)
            } catch {
                if !error.isNoSuchFile { throw .media(.remove(path: path, cause: .system(error))) }
            }
        }
    }

    /// Removes what it can and says nothing: for undoing a write that already failed, where the
    /// first error is the one worth reporting (and the sweep at the next open gets the rest).
    func removeQuietly(_ names: some Sequence<String>) {
        for name in names where StoredValue.isPlainFileName(name) { try? FileCalls.remove(fileURL(name).path) }
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
            throw .store(.folder(path: url.path, cause: .found(Self.reason(error))))
        }
        return names.filter { name in
            StoredValue.isPlainFileName(name)
                && (try? FileCalls.status(at: fileURL(name).path, followsLinks: false))?.kind == .regular
        }
    }

    /// What keeps the file called `name` from being sent, or nil when it is a regular file this
    /// process can read.
    func problem(with name: String) -> MediaProblem? {
        guard StoredValue.isPlainFileName(name) else { return .notAPlainName }
        let path = fileURL(name).path
        let status: FileStatus
        do throws(SystemError) {
            status = try FileCalls.status(at: path, followsLinks: false)
        } catch {
            return error.isNoSuchFile ? .missing : .unreadable(error)
        }
        guard status.kind == .regular else { return .notAFile(kind: Self.wording(of: status.kind)) }
        do throws(SystemError) {
            _ = Platform.close(try FileCalls.openForReading(path, options: [.nonBlocking, .noFollow]))
        } catch {
            return .unreadable(error)
        }
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
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.openForReading(path, options: [.nonBlocking, .noFollow])
        } catch {
            if error.isNoSuchFile { return .failure(.missing) }
            if error.isSymbolicLink { return .failure(.notAFile(kind: "a symbolic link")) }
            return .failure(.unreadable(error))
        }
        defer { _ = Platform.close(descriptor) }
        let status: FileStatus
        do throws(SystemError) {
            status = try FileCalls.status(of: descriptor, path: path)
        } catch {
            return .failure(.unreadable(error))
        }
        guard status.kind == .regular else { return .failure(.notAFile(kind: wording(of: status.kind))) }
        if let seal {
            guard let size = StoreCipher.plaintextSize(ofSealedFileSize: Int(clamping: status.size)) else {
                return .failure(.failsAuthentication)
            }
            guard size <= limit else { return .failure(.tooLarge(limit: limit)) }
            return openSealed(descriptor, path: path, plaintextSize: size, seal: seal)
        }
        guard status.size <= limit else { return .failure(.tooLarge(limit: limit)) }
        var data = Data(count: Int(status.size))
        switch data.withUnsafeMutableBytes({ readFully(descriptor, path: path, into: $0) }) {
        case .failure(let problem): return .failure(problem)
        // A file that shrank while it was read; one that grew is read as it was when opened.
        case .success(let count): return .success(data.prefix(count))
        }
    }

    /// Reads a sealed media file of `plaintextSize` bytes from `descriptor` (at its start) and
    /// opens it chunk by chunk into one buffer of that size; the only other memory is one chunk.
    private static func openSealed(_ descriptor: Int32, path: String, plaintextSize: Int, seal: MediaSeal) -> Result<
        Data, MediaProblem
    > {
        var header = [UInt8](repeating: 0, count: StoreCipher.magic.count)
        switch header.withUnsafeMutableBytes({ readFully(descriptor, path: path, into: $0) }) {
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
                readFully(descriptor, path: path, into: UnsafeMutableRawBufferPointer(rebasing: $0[..<sealedCount]))
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
    static func readFully(_ descriptor: Int32, path: String, into buffer: UnsafeMutableRawBufferPointer)
        -> Result<Int, MediaProblem>
    {
        do throws(SystemError) {
            return .success(try FileCalls.readFully(descriptor, into: buffer, path: path))
        } catch {
            return .failure(.unreadable(error))
        }
    }

    /// Makes `folder` (owner-only) when it is absent, and checks that what is there is a folder.
    ///
    /// - Throws: `OutboxError.store(.folder)` naming the cause: the system's reason, "it is a file, not a
    ///   folder", or "it is a symbolic link".
    static func makeFolder(_ folder: URL) throws(OutboxError) {
        let path = folder.path
        var failure: SystemError
        do throws(SystemError) {
            try FileCalls.makeFolder(path)
            return protect(path)
        } catch {
            failure = error
        }
        if failure.isNoSuchFile {
            // Folders above it are made as `mkdir -p` makes them, then this one owner-only.
            do {
                try FileManager.default.createDirectory(
                    at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw .store(.folder(path: path, cause: .found(reason(error))))
            }
            do throws(SystemError) {
                try FileCalls.makeFolder(path)
                return protect(path)
            } catch {
                failure = error
            }
        }
        let status: FileStatus
        do throws(SystemError) {
            status = try FileCalls.status(at: path, followsLinks: false)
        } catch {
            // The reason for a missing parent, say, is mkdir's; for a folder that exists and
            // cannot be looked at, lstat's.
            throw .store(.folder(path: path, cause: .system(failure.isAlreadyThere ? error : failure)))
        }
        switch status.kind {
        // A folder that was there (made by hand, or by an older version) is tightened too.
        case .folder: return protect(path)
        case .symbolicLink:
            throw .store(.folder(path: path, cause: .found("it is a symbolic link, which could lead anywhere")))
        default: throw .store(.folder(path: path, cause: .found("it is \(wording(of: status.kind)), not a folder")))
        }
    }

    /// Why this process may not create or remove files in `folder` (`EACCES`, `EROFS`), or nil
    /// when it may.
    static func writeProblem(at folder: URL) -> SystemError? {
        do throws(SystemError) {
            try FileCalls.checkMayWriteIn(folder.path)
            return nil
        } catch {
            return error
        }
    }

    /// Why this process cannot open the file at `path` for reading, in words ("it does not exist",
    /// "Permission denied"); nil when it can.
    static func readProblem(at path: String) -> OutboxError.Cause? {
        do throws(SystemError) {
            _ = Platform.close(try FileCalls.openForReading(path, options: .nonBlocking))
            return nil
        } catch {
            guard error.isNoSuchFile else { return .system(error) }
            return .found("'\((path as NSString).lastPathComponent)' does not exist there")
        }
    }

    /// Flushes a directory's entries (names created or removed in it) to disk.
    static func synchronizeDirectory(_ directory: URL) throws(OutboxError) {
        do throws(SystemError) {
            let descriptor = try FileCalls.openFolder(directory.path)
            defer { _ = Platform.close(descriptor) }
            try FileCalls.flushToStorage(descriptor, path: directory.path)
        } catch {
            throw .store(.folder(path: directory.path, cause: .system(error)))
        }
    }

    /// Writes a new file's bytes through `write`, makes it owner-only, flushes it and closes
    /// `descriptor` (whose deferred write error counts too); the first failure, or nil.
    static func writeDurably(
        _ descriptor: Int32, path: String,
        write: ((UnsafeRawBufferPointer) -> SystemError?) -> SystemError?
    ) -> SystemError? {
        var failure = write { buffer in
            do throws(SystemError) {
                try FileCalls.writeAll(buffer, to: descriptor, path: path)
                return nil
            } catch {
                return error
            }
        }
        do throws(SystemError) {
            // fchmod because the umask could have narrowed 0600 further (never widened it).
            if failure == nil { try FileCalls.restrictToOwner(descriptor, path: path) }
            if failure == nil { try FileCalls.flushToStorage(descriptor, path: path) }
        } catch {
            failure = error
        }
        do throws(SystemError) {
            try FileCalls.close(descriptor, path: path)
        } catch {
            if failure == nil { failure = error }
        }
        return failure
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

    /// What a file of this kind is, in words: "a folder", "a symbolic link", ...
    static func wording(of kind: FileStatus.Kind) -> String {
        switch kind {
        case .folder: "a folder"
        case .symbolicLink: "a symbolic link"
        case .namedPipe: "a named pipe"
        case .socket: "a socket"
        case .characterDevice, .blockDevice: "a device"
        case .regular: "a file"
        case .other: "something other than a file"
        }
    }

    private static let notAPlainName = "it is not a plain file name inside the media folder"

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
    /// The file cannot be opened or read: the system call's failure.
    case unreadable(SystemError)
    /// The file is larger than anything the engine takes.
    case tooLarge(limit: Int)
    /// The file no longer holds the bytes that were saved (its size or SHA-256 differs).
    case changed
    /// The file of an encrypted outbox does not open with the store's key for its entry: a byte
    /// of it changed, or it is another entry's file.
    case failsAuthentication
    /// The record names it with something other than a plain file name.
    case notAPlainName

    /// What is wrong, as an error's cause: the system call's failure, or the words "it …".
    var cause: OutboxError.Cause {
        guard case .unreadable(let error) = self else { return .found("it \(wording)") }
        return .system(error)
    }

    /// What is wrong, as the end of a sentence about the photo file.
    var wording: String {
        switch self {
        case .missing: "is missing from the outbox"
        case .notAFile(let kind): "is \(kind), not a file"
        case .unreadable(let error): "cannot be read: \(error.reason)"
        case .tooLarge(let limit): "is larger than \(limit / (1024 * 1024)) MiB"
        case .changed: "no longer holds the bytes that were saved (its SHA-256 differs)"
        case .failsAuthentication:
            "fails authentication with the outbox's key: it was changed, or it is another entry's file"
        case .notAPlainName: "is named outside the media folder"
        }
    }
}

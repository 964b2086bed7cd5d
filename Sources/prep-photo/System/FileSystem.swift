import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The device and inode of a file: two paths with the same identity are one file (a link and
/// its target, `./a.jpg` and `a.jpg`, two hard links).
struct FileIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
}

/// What `stat(2)` or `lstat(2)` says about a path.
struct FileStatus: Sendable {
    enum Kind: Sendable {
        case regular, folder, link, fifo, socket, device, other
    }

    let kind: Kind
    let identity: FileIdentity
    /// The last modification, in nanoseconds since 1970.
    let modified: Int64

    /// "a FIFO", "a socket", "a device": what a special file is, for a message.
    var kindDescription: String { Self.describe(kind) }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .regular: "a file"
        case .folder: "a folder"
        case .link: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .device: "a device"
        case .other: "a special file"
        }
    }
}

/// A failed system call's `errno`, with the system's own words for it.
struct SystemError: Error, Sendable {
    let code: Int32

    static var current: SystemError { SystemError(code: errno) }

    /// "No such file or directory", "Permission denied".
    var reason: String { String(cString: strerror(code)) }

    /// "Is a directory": what writing to a name that a folder holds fails with.
    static let isAFolder = SystemError(code: EISDIR)

    /// "File exists".
    static let exists = SystemError(code: EEXIST)

    var isExists: Bool { code == EEXIST }

    /// A failure of `link(2)` that means the file system has no hard links (FAT, exFAT).
    var meansNoHardLinks: Bool { [EPERM, EOPNOTSUPP, ENOSYS, EMLINK].contains(code) }
}

/// Why an input could not be read.
enum ReadFailure: Error, Sendable {
    case system(SystemError)
    /// It is a folder, a FIFO, a device: refused without reading, so that nothing blocks.
    case notRegularFile(FileStatus.Kind)
    /// Larger than any photo file is read (`PhotoBytes.largestFile`): the reason, in words.
    case tooLarge(String)
}

/// The file system calls of prep-photo, on byte paths, each returning the system's reason when
/// it fails.
enum FileSystem {
    /// `stat` (following links) or `lstat` (not following them).
    static func status(of path: BytePath, followingLinks: Bool) -> Result<FileStatus, SystemError> {
        var info = stat()
        let result = path.withCString { followingLinks ? stat($0, &info) : lstat($0, &info) }
        guard result == 0 else { return .failure(.current) }
        let kind: FileStatus.Kind =
            switch info.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .folder
            case S_IFLNK: .link
            case S_IFIFO: .fifo
            case S_IFSOCK: .socket
            case S_IFCHR, S_IFBLK: .device
            default: .other
            }
        return .success(
            FileStatus(
                kind: kind, identity: FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)),
                modified: Platform.modificationNanoseconds(of: info)))
    }

    /// The names in a folder, sorted by their bytes, without `.` and `..`.
    static func names(inFolder path: BytePath) -> Result<[[UInt8]], SystemError> {
        guard let folder = path.withCString({ opendir($0) }) else { return .failure(.current) }
        defer { closedir(folder) }
        var names: [[UInt8]] = []
        while true {
            errno = 0
            guard let entry = readdir(folder) else {
                if errno != 0 { return .failure(.current) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        return .success(names.sorted { $0.lexicographicallyPrecedes($1) })
    }

    /// Makes `path` and any missing parents, like `mkdir -p`; another process making the same
    /// folder at the same moment is no error.
    static func makeFolders(_ path: BytePath) -> SystemError? {
        if case .success(let status) = status(of: path, followingLinks: true), status.kind == .folder { return nil }
        if let parent = path.parent, let error = makeFolders(parent) { return error }
        guard path.withCString({ mkdir($0, 0o755) }) == 0 else {
            let error = SystemError.current
            if error.code == EEXIST, case .success(let status) = status(of: path, followingLinks: true),
                status.kind == .folder
            {
                return nil
            }
            return error
        }
        return nil
    }

    /// The working folder, as `getcwd` gives it.
    static func workingFolder() -> BytePath {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return BytePath("/") }
        return BytePath(bytes: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// The path with every link resolved, or nil when it does not exist.
    static func resolved(_ path: BytePath) -> BytePath? {
        guard let resolved = path.withCString({ realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return BytePath(
            bytes: UnsafeBufferPointer(start: resolved, count: strlen(resolved)).map { UInt8(bitPattern: $0) })
    }

    /// Reads a whole regular file.
    ///
    /// It opens with `O_NONBLOCK` and checks the type on the open descriptor, so that a FIFO or a
    /// device put in a photo's place is refused at once instead of blocking for ever. The bytes go
    /// into huge pages (`PhotoBytes`): a thousand page faults fewer for a 4 MB photo.
    static func contents(of path: BytePath) throws(ReadFailure) -> Data {
        let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard descriptor >= 0 else { throw .system(.current) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system(.current) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .notRegularFile(info.st_mode & S_IFMT == S_IFDIR ? .folder : .other)
        }
        if let refusal = PhotoBytes.refusal(forSize: Int(info.st_size)) { throw .tooLarge(refusal) }
        return try PhotoBytes.read(capacity: Int(info.st_size), shortage: .system(SystemError(code: ENOMEM))) {
            bytes throws(ReadFailure) in
            var filled = 0
            while filled < bytes.count {
                let count = Platform.read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw .system(.current) }
                if count == 0 { break }  // The file shrank while we read it.
                filled += count
            }
            return filled
        }
    }

    /// Opens a file list for reading: standard input for `-`.
    static func openForReading(_ path: BytePath) throws(SystemError) -> Int32 {
        if path.bytes == [UInt8(ascii: "-")] { return STDIN_FILENO }
        let descriptor = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { throw .current }
        return descriptor
    }

    /// Reads up to `buffer.count` bytes into the start of `buffer`; 0 at the end.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { Platform.read(descriptor, $0.baseAddress!, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { throw .current }
        }
    }

    static func close(_ descriptor: Int32) { _ = Platform.close(descriptor) }

    /// Creates a new file that no other process can have (`O_EXCL`), readable by all like any
    /// copy, and returns its descriptor.
    static func createNew(_ path: BytePath) throws(SystemError) -> Int32 {
        let descriptor = path.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else { throw .current }
        return descriptor
    }

    /// Writes all of `data` (the caller flushes it with `sync`).
    static func write(_ data: Data, to descriptor: Int32) throws(SystemError) {
        let writeError: Int32? = data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = Platform.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let writeError { throw SystemError(code: writeError) }
    }

    /// Gives the file its input's modification time, which is how `--skip-existing` knows a copy
    /// was made from this very input, even when the input's time lies in the future. Best effort:
    /// a file system that refuses leaves the copy's own time, which is later than its input's.
    static func setModified(_ descriptor: Int32, nanoseconds: Int64) {
        // Whole seconds rounded down, so that a time before 1970 keeps its nanoseconds in 0..<10^9.
        var (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        if remainder < 0 { (seconds, remainder) = (seconds - 1, remainder + 1_000_000_000) }
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int(remainder))
        // Access time too: a new copy's has no meaning of its own.
        _ = futimens(descriptor, [time, time])
    }

    /// Waits until what was written to `descriptor` is on the disk.
    static func sync(_ descriptor: Int32) throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw .current }
    }

    /// Moves `source` to `destination`, replacing what is there.
    static func rename(_ source: BytePath, to destination: BytePath) throws(SystemError) {
        let result = source.withCString { from in destination.withCString { to in Platform.rename(from, to) } }
        guard result == 0 else { throw .current }
    }

    /// Gives `source` the name `destination` too, failing with `EEXIST` when that name is
    /// taken: the one atomic "create unless it exists" for a finished file.
    static func link(_ source: BytePath, to destination: BytePath) throws(SystemError) {
        let result = source.withCString { from in destination.withCString { to in Platform.link(from, to) } }
        guard result == 0 else { throw .current }
    }

    static func remove(_ path: BytePath) { _ = path.withCString { unlink($0) } }
}

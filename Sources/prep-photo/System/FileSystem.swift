import ImagePrep

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileStatus {
    /// "a FIFO", "a socket", "a device": what a special file is, for a message.
    var kindDescription: String { Self.describe(kind) }

    static func describe(_ kind: Kind) -> String {
        switch kind {
        case .regular: "a file"
        case .folder: "a folder"
        case .symbolicLink: "a symbolic link"
        case .namedPipe: "a FIFO (named pipe)"
        case .socket: "a socket"
        case .characterDevice, .blockDevice: "a device"
        case .other: "a special file"
        }
    }
}

/// The file system calls of prep-photo, on byte paths, each returning the system's reason when
/// it fails.
enum FileSystem {
    /// `stat` (following links) or `lstat` (not following them).
    static func status(of path: BytePath, followingLinks: Bool) -> Result<FileStatus, SystemError> {
        do throws(SystemError) {
            return .success(try FileCalls.status(at: path, followsLinks: followingLinks))
        } catch {
            return .failure(error)
        }
    }

    /// The names in a folder, sorted by their bytes, without `.` and `..`.
    static func names(inFolder path: BytePath) -> Result<[[UInt8]], SystemError> {
        do throws(SystemError) {
            return .success(try FileCalls.names(inFolder: path).sorted { $0.lexicographicallyPrecedes($1) })
        } catch {
            return .failure(error)
        }
    }

    /// Makes `path` and any missing parents, like `mkdir -p`; another process making the same
    /// folder at the same moment is no error.
    static func makeFolders(_ path: BytePath) -> SystemError? {
        if case .success(let status) = status(of: path, followingLinks: true), status.kind == .folder { return nil }
        if let parent = path.parent, let error = makeFolders(parent) { return error }
        do throws(SystemError) {
            try FileCalls.makeFolder(path, permissions: 0o755)
        } catch {
            if error.isAlreadyThere, case .success(let status) = status(of: path, followingLinks: true),
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
        FileCalls.workingFolder().map { BytePath(bytes: $0) } ?? BytePath("/")
    }

    /// The path with every link resolved, or nil when it does not exist.
    static func resolved(_ path: BytePath) -> BytePath? {
        FileCalls.resolved(path).map { BytePath(bytes: $0) }
    }

    /// Opens a file list for reading: standard input for `-`. A named pipe waits for its writer:
    /// `--files-from <(find …)` is one.
    static func openForReading(_ path: BytePath) throws(SystemError) -> Int32 {
        if path.bytes == [UInt8(ascii: "-")] { return FileCalls.standardInput }
        return try FileCalls.openForReading(path, options: .noControllingTerminal)
    }

    /// Reads up to `buffer.count` bytes into the start of `buffer`; 0 at the end.
    static func read(_ descriptor: Int32, into buffer: inout [UInt8], path: BytePath) throws(SystemError) -> Int {
        let result = buffer.withUnsafeMutableBytes { bytes in
            Result { () throws(SystemError) in try FileCalls.readSome(descriptor, into: bytes, path: path.description) }
        }
        return try result.get()
    }

    static func close(_ descriptor: Int32) { _ = Platform.close(descriptor) }

    /// Creates a new file that no other process can have (`O_EXCL`), readable by all like any
    /// copy, and returns its descriptor.
    static func createNew(_ path: BytePath) throws(SystemError) -> Int32 {
        try FileCalls.createNew(path, permissions: 0o644)
    }

    /// Writes all of `data` to the file `path` is open as (the caller flushes it with `sync`).
    static func write(_ data: Data, to descriptor: Int32, path: BytePath) throws(SystemError) {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(SystemError) in try FileCalls.writeAll(bytes, to: descriptor, path: path.description) }
        }
        try result.get()
    }

    /// Gives the file its input's modification time, which is how `--skip-existing` knows a copy
    /// was made from this very input, even when the input's time lies in the future. Best effort:
    /// a file system that refuses leaves the copy's own time, which is later than its input's.
    static func setModified(_ descriptor: Int32, nanoseconds: Int64) {
        FileCalls.setModified(descriptor, nanoseconds: nanoseconds)
    }

    /// Waits until what was written to the file `path` is open as is on the disk.
    static func sync(_ descriptor: Int32, path: BytePath) throws(SystemError) {
        try FileCalls.synchronize(descriptor, path: path.description)
    }

    /// Moves `source` to `destination`, replacing what is there.
    static func rename(_ source: BytePath, to destination: BytePath) throws(SystemError) {
        try FileCalls.rename(source, to: destination)
    }

    /// Gives `source` the name `destination` too, failing with `EEXIST` when that name is
    /// taken: the one atomic "create unless it exists" for a finished file.
    static func link(_ source: BytePath, to destination: BytePath) throws(SystemError) {
        try FileCalls.link(source, to: destination)
    }

    static func remove(_ path: BytePath) { try? FileCalls.remove(path) }
}

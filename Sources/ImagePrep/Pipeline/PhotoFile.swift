package import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A photo's file read whole, before its decode: by `prepare(contentsOf:)`, and by prep-photo on
/// its byte paths.
package enum PhotoFile {
    /// Why a photo's file was not read.
    package enum Failure: Error, Sendable {
        /// The system's own reason ("No such file or directory", "Permission denied").
        case system(SystemError)
        /// A folder, a FIFO, a device: refused before a byte is read, so that nothing blocks.
        case notRegularFile(FileStatus.Kind)
        /// Larger than any photo file is read (`PhotoBytes.largestFile`): the reason, in words.
        case tooLarge(String)
        /// The system would not give the memory for its bytes.
        case outOfMemory(byteCount: Int)
    }

    /// Reads the regular file at `path` whole, into memory a decode reads fastest (`PhotoBytes`).
    ///
    /// Opened with `O_NONBLOCK` and checked to be a regular file on the open descriptor before a
    /// byte is read: opening a FIFO without it waits for a writer for ever, and a device can be
    /// read for ever.
    package static func contents(of path: some SystemPath) throws(Failure) -> Data {
        let descriptor: Int32
        let status: FileStatus
        do throws(SystemError) {
            descriptor = try FileCalls.openForReading(path, options: [.nonBlocking, .noControllingTerminal])
        } catch {
            throw .system(error)
        }
        defer { _ = Platform.close(descriptor) }
        do throws(SystemError) {
            status = try FileCalls.status(of: descriptor, path: path.description)
        } catch {
            throw .system(error)
        }
        guard status.kind == .regular else { throw .notRegularFile(status.kind) }
        let size = Int(status.size)
        if let refusal = PhotoBytes.refusal(forSize: size) { throw .tooLarge(refusal) }
        return try PhotoBytes.read(capacity: size, shortage: .outOfMemory(byteCount: size)) {
            bytes throws(Failure) in
            do throws(SystemError) {
                // Short when the file shrank while we read it.
                return try FileCalls.readFully(descriptor, into: bytes, path: path.description)
            } catch {
                throw .system(error)
            }
        }
    }

    /// Reads a whole file for `prepare(contentsOf:)`; the error names the file and the cause.
    static func read(_ url: URL) throws(ImagePrepError) -> Data {
        let name = url.relativePath
        do throws(Failure) {
            return try contents(of: url.path)
        } catch {
            switch error {
            case .system(let error): throw .unreadable(file: name, reason: error.reason)
            case .notRegularFile(let kind): throw .unreadable(file: name, reason: notRegularFileReason(kind))
            case .tooLarge(let reason): throw .unreadable(file: name, reason: reason)
            case .outOfMemory(let byteCount): throw .outOfMemory(file: name, byteCount: byteCount)
            }
        }
    }

    /// Why a file of this kind is not read, naming the kind.
    private static func notRegularFileReason(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .folder: "it is a folder"
        case .namedPipe: "it is not a regular file but a named pipe (FIFO)"
        case .characterDevice: "it is not a regular file but a character device"
        case .blockDevice: "it is not a regular file but a block device"
        case .socket: "it is not a regular file but a socket"
        case .regular, .symbolicLink, .other: "it is not a regular file"
        }
    }
}

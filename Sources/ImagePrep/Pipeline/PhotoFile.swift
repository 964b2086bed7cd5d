internal import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A photo's file read whole, before its decode.
enum PhotoFile {
    /// Reads a whole file with the platform layer's POSIX calls, so that the error carries the
    /// system's own reason ("No such file or directory", "Permission denied").
    ///
    /// Opened with `O_NONBLOCK` and checked to be a regular file before a byte is read: opening a
    /// FIFO without it waits for a writer for ever, and a device can be read for ever.
    static func read(_ url: URL) throws(ImagePrepError) -> Data {
        let name = url.relativePath
        func failure(_ error: SystemError) -> ImagePrepError { .unreadable(file: name, reason: error.reason) }
        let descriptor: Int32
        let status: FileStatus
        do throws(SystemError) {
            descriptor = try FileCalls.openForReading(url.path, options: .nonBlocking)
        } catch {
            throw failure(error)
        }
        defer { _ = Platform.close(descriptor) }
        do throws(SystemError) {
            status = try FileCalls.status(of: descriptor, path: url.path)
        } catch {
            throw failure(error)
        }
        guard status.kind == .regular else {
            throw .unreadable(file: name, reason: notRegularFileReason(status.kind))
        }
        let size = Int(status.size)
        if let refusal = PhotoBytes.refusal(forSize: size) {
            throw .unreadable(file: name, reason: refusal)
        }
        return try PhotoBytes.read(capacity: size, shortage: .outOfMemory(file: name, byteCount: size)) {
            bytes throws(ImagePrepError) in
            do throws(SystemError) {
                // Short when the file shrank while we read it.
                return try FileCalls.readFully(descriptor, into: bytes, path: url.path)
            } catch {
                throw failure(error)
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

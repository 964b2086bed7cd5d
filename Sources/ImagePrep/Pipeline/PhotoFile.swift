internal import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A photo's file read whole, before its decode.
enum PhotoFile {
    /// Reads a whole file with plain POSIX calls, so that the error carries the system's own
    /// reason ("No such file or directory", "Permission denied").
    ///
    /// Opened with `O_NONBLOCK` and checked to be a regular file before a byte is read: opening a
    /// FIFO without it waits for a writer for ever, and a device can be read for ever.
    static func read(_ url: URL) throws(ImagePrepError) -> Data {
        let name = url.relativePath
        func failure() -> ImagePrepError { .unreadable(file: name, reason: String(cString: strerror(errno))) }
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure() }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure() }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(file: name, reason: notRegularFileReason(mode: info.st_mode))
        }
        if let refusal = PhotoBytes.refusal(forSize: Int(info.st_size)) {
            throw .unreadable(file: name, reason: refusal)
        }
        let size = Int(info.st_size)
        return try PhotoBytes.read(capacity: size, shortage: .outOfMemory(file: name, byteCount: size)) {
            bytes throws(ImagePrepError) in
            var filled = 0
            while filled < bytes.count {
                let count = Platform.read(descriptor, bytes.baseAddress! + filled, bytes.count - filled)
                if count < 0, errno == EINTR { continue }
                if count < 0 { throw failure() }
                if count == 0 { break }  // The file shrank while we read it.
                filled += count
            }
            return filled
        }
    }

    /// Why a file of this type is not read, naming the type.
    private static func notRegularFileReason(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "it is a folder"
        case S_IFIFO: "it is not a regular file but a named pipe (FIFO)"
        case S_IFCHR: "it is not a regular file but a character device"
        case S_IFBLK: "it is not a regular file but a block device"
        case S_IFSOCK: "it is not a regular file but a socket"
        default: "it is not a regular file"
        }
    }
}

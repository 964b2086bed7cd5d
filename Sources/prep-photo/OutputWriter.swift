#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes copies so that each appears under its final name complete or not at all.
enum OutputWriter {
    struct WriteError: Error {
        let message: String
    }

    /// Writes `data` to a temporary file beside `url`, flushes it to disk and renames it into
    /// place. A crash (of the process or of the machine), a full disk or a permission error
    /// leaves no half-written JPEG under the final name, and the temporary file is removed on
    /// every error path. The flush comes before the rename because after a power cut a renamed
    /// file whose data never reached the disk can appear empty.
    static func write(_ data: Data, to url: URL) throws(WriteError) {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        ).path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("could not write '\(url.relativePath)'") }
        var written = 0
        let writeError: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        let syncFailed = writeError == nil && fsync(descriptor) != 0
        let syncError = errno
        let closeFailed = close(descriptor) != 0
        if let writeError {
            unlink(temporary)
            throw WriteError(message: "could not write '\(url.relativePath)': \(String(cString: strerror(writeError)))")
        }
        if syncFailed {
            unlink(temporary)
            throw WriteError(message: "could not write '\(url.relativePath)': \(String(cString: strerror(syncError)))")
        }
        if closeFailed {
            let error = failure("could not write '\(url.relativePath)'")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, url.path) == 0 else {
            let error = failure("could not move the finished copy to '\(url.relativePath)'")
            unlink(temporary)
            throw error
        }
    }

    /// Makes `path` and any missing parents, like `mkdir -p`.
    ///
    /// - Returns: the system's reason when it cannot, else nil.
    static func makeFolder(_ path: String) -> String? {
        if BatchPlan.isDirectory(path) { return nil }
        let parent = path.split(separator: "/", omittingEmptySubsequences: true).dropLast().joined(separator: "/")
        if !parent.isEmpty, !BatchPlan.isDirectory(path.hasPrefix("/") ? "/" + parent : parent) {
            if let reason = makeFolder(path.hasPrefix("/") ? "/" + parent : parent) { return reason }
        }
        guard mkdir(path, 0o755) == 0 || (errno == EEXIST && BatchPlan.isDirectory(path)) else {
            return String(cString: strerror(errno))
        }
        return nil
    }

    private static func failure(_ what: String) -> WriteError {
        WriteError(message: "\(what): \(String(cString: strerror(errno)))")
    }
}

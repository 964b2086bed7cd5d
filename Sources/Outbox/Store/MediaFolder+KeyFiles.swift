import Foundation
internal import PlatformLayer

/// The key file of an encrypted outbox, kept outside the outbox folder: created owner-only and
/// flushed with its folder, and read only when nobody else may read or change it.
extension MediaFolder {
    /// Creates the file at `path` holding `contents`, owner-only (0600), flushed with its folder;
    /// never over anything already there. Returns the failure's cause, or nil.
    static func createOwnerOnlyFile(atPath path: String, contents: Data) -> OutboxError.Cause? {
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.createNew(path)
        } catch {
            guard error.isAlreadyThere else { return .system(error) }
            return .found("something is there already, and a key is never overwritten")
        }
        var failure = writeDurably(descriptor, path: path) { write in contents.withUnsafeBytes(write) }
            .map(OutboxError.Cause.system)
        if failure == nil {
            do throws(OutboxError) {
                try synchronizeDirectory(URL(fileURLWithPath: path).deletingLastPathComponent())
            } catch {
                failure = .found("its folder could not be flushed to disk")
            }
        }
        if failure != nil { try? FileCalls.remove(path) }
        return failure
    }

    /// The bytes of the file at `path` (links followed), when it is a regular file of this user
    /// that nobody else may read or write, and at most `limit` bytes.
    static func ownerOnlyFileContents(atPath path: String, atMost limit: Int) -> Result<Data, KeyFileProblem> {
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.openForReading(path, options: .nonBlocking)
        } catch {
            return .failure(KeyFileProblem(error.isNoSuchFile ? .found("it does not exist") : .system(error)))
        }
        defer { _ = Platform.close(descriptor) }
        let status: FileStatus
        do throws(SystemError) {
            status = try FileCalls.status(of: descriptor, path: path)
        } catch {
            return .failure(KeyFileProblem(.system(error)))
        }
        guard status.kind == .regular else {
            return .failure(KeyFileProblem(.found("it is \(wording(of: status.kind)), not a file")))
        }
        guard status.isOwnedByThisUser else { return .failure(KeyFileProblem(.found("it belongs to another user"))) }
        guard status.permissions & 0o077 == 0 else {
            let mode = String(status.permissions, radix: 8)
            return .failure(
                KeyFileProblem(
                    .found("others may read or change it (mode \(mode)): make it owner-only with 'chmod 600'")))
        }
        guard status.size <= limit else { return .failure(KeyFileProblem(.found("it is too large to be a key file"))) }
        var data = Data(count: Int(status.size))
        switch data.withUnsafeMutableBytes({ readFully(descriptor, path: path, into: $0) }) {
        case .success(let count): return .success(data.prefix(count))
        case .failure(let problem): return .failure(KeyFileProblem(problem.cause))
        }
    }
}

/// Why a key file cannot be used, in words that finish "The key file … cannot be used: …".
struct KeyFileProblem: Error {
    let cause: OutboxError.Cause

    init(_ cause: OutboxError.Cause) { self.cause = cause }
}

import Foundation
internal import PlatformLayer

/// The one owner of the store's lock file: an advisory `flock` that says whether other openers
/// (other processes, or another `Outbox` on the same folder) are alive.
///
/// Every opener holds a shared lock for as long as it is open. An opener that gets the lock
/// exclusively knows nobody else has the store open, so an entry marked `SYNCING` cannot be in
/// flight anywhere and may be put back, and a media file no record names cannot belong to an
/// enqueue that is half done. The kernel drops the lock when its holder dies, even by SIGKILL, so
/// a crashed process never leaves the store looking busy.
struct StoreLock: ~Copyable {
    private let descriptor: Int32
    /// The lock file's path, for the errors.
    private let path: String
    /// Whether this opener had the store to itself when it opened.
    let isSoleOpener: Bool

    /// Opens (creating when absent) the lock file at `url` and takes the lock: exclusively when
    /// nobody else holds it, shared otherwise.
    init(url: URL) throws(OutboxError) {
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.openLockFile(url.path)
        } catch {
            if error.meansNotWritable {
                throw .store(.notWritable(path: url.deletingLastPathComponent().path, cause: .system(error)))
            }
            throw .store(.folder(path: url.path, cause: .system(error)))
        }
        let isSoleOpener: Bool
        do throws(SystemError) {
            isSoleOpener = try FileCalls.lockExclusivelyIfFree(descriptor, path: url.path)
            // Others only wait here for the few milliseconds an exclusive opener spends recovering.
            if !isSoleOpener { try FileCalls.lockShared(descriptor, path: url.path) }
        } catch {
            _ = Platform.close(descriptor)
            throw .store(.folder(path: url.path, cause: .system(error)))
        }
        self.descriptor = descriptor
        self.path = url.path
        self.isSoleOpener = isSoleOpener
    }

    deinit { _ = Platform.close(descriptor) }

    /// Takes the lock exclusively when nobody else holds it; afterwards call `share(path:)`.
    ///
    /// A failed attempt costs this opener its shared lock for a moment (flock drops the old lock
    /// before it tries the new one), which is retaken before this returns. Meanwhile another
    /// opener may believe it is alone; so call this only with nothing of this opener's in flight.
    ///
    /// - Returns: whether this opener now holds the lock alone.
    func becomeSoleOpenerIfPossible() -> Bool {
        if (try? FileCalls.lockExclusivelyIfFree(descriptor, path: path)) == true { return true }
        try? FileCalls.lockShared(descriptor, path: path)
        return false
    }

    /// Turns the lock into a shared one, so that later openers can open beside this one.
    ///
    /// flock converts by dropping and retaking the lock, so another opener may slip in between
    /// and believe it is alone; that is harmless here because this opener has nothing in flight yet.
    func share(path: String) throws(OutboxError) {
        do throws(SystemError) {
            try FileCalls.lockShared(descriptor, path: self.path)
        } catch {
            throw .store(.folder(path: path, cause: .system(error)))
        }
    }
}

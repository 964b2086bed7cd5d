import Foundation

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
    /// Whether this opener had the store to itself when it opened.
    let isSoleOpener: Bool

    /// Opens (creating when absent) the lock file at `url` and takes the lock: exclusively when
    /// nobody else holds it, shared otherwise.
    init(url: URL) throws(OutboxError) {
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            let reason = String(cString: strerror(code))
            if MediaFolder.meansNotWritable(code) {
                throw .notWritable(path: url.deletingLastPathComponent().path, reason: reason)
            }
            throw .folder(path: url.path, reason: reason)
        }
        var isSoleOpener = true
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            guard errno == EWOULDBLOCK else {
                let reason = MediaFolder.lastErrno()
                close(descriptor)
                throw .folder(path: url.path, reason: reason)
            }
            isSoleOpener = false
            break
        }
        // Others only wait here for the few milliseconds an exclusive opener spends recovering.
        if !isSoleOpener, let reason = Self.takeShared(descriptor) {
            close(descriptor)
            throw .folder(path: url.path, reason: reason)
        }
        self.descriptor = descriptor
        self.isSoleOpener = isSoleOpener
    }

    deinit { close(descriptor) }

    /// Takes the lock exclusively when nobody else holds it; afterwards call `share(path:)`.
    ///
    /// A failed attempt costs this opener its shared lock for a moment (flock drops the old lock
    /// before it tries the new one), which is retaken before this returns. Meanwhile another
    /// opener may believe it is alone; so call this only with nothing of this opener's in flight.
    ///
    /// - Returns: whether this opener now holds the lock alone.
    func becomeSoleOpenerIfPossible() -> Bool {
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
        _ = Self.takeShared(descriptor)
        return false
    }

    /// Turns the lock into a shared one, so that later openers can open beside this one.
    ///
    /// flock converts by dropping and retaking the lock, so another opener may slip in between
    /// and believe it is alone; that is harmless here because this opener has nothing in flight yet.
    func share(path: String) throws(OutboxError) {
        if let reason = Self.takeShared(descriptor) { throw .folder(path: path, reason: reason) }
    }

    /// Takes (or converts to) a shared lock, waiting for an exclusive holder; returns the failure's reason.
    private static func takeShared(_ descriptor: Int32) -> String? {
        while flock(descriptor, LOCK_SH) != 0 {
            guard errno == EINTR else { return MediaFolder.lastErrno() }
        }
        return nil
    }
}

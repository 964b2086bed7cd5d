// The package's one platform layer: the one file that imports the C library by name
// (re-exported to the modules that import this one, for the POSIX calls that mean the same on
// every platform), and the calls whose name, shape or meaning differs between Apple's platforms
// and Linux. Every module goes through it; none names Glibc or Darwin itself.
internal import CLibcExtras

#if canImport(Darwin)
@_exported public import Darwin
#elseif canImport(Glibc)
@_exported public import Glibc
#endif

/// The system calls whose name or meaning differs between Apple's platforms and Linux.
package enum Platform {
    /// `read(2)`; a type's own `read` method would hide the bare name.
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// `write(2)`; a type's own `write` method would hide the bare name.
    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #else
        Glibc.write(descriptor, buffer, count)
        #endif
    }

    /// `close(2)`; a type's own `close` method would hide the bare name.
    package static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(descriptor)
        #else
        Glibc.close(descriptor)
        #endif
    }

    /// Starts writing a file's data to the disk without waiting (Linux's `sync_file_range`), so
    /// that a later `fsync` of several files commits them in one journal transaction. Advice:
    /// on Apple's platforms, and when it fails, the `fsync` alone does all the work.
    package static func startWriteBack(_ descriptor: Int32) {
        _ = cle_start_write_back(descriptor)
    }

    /// `rename(2)`.
    package static func rename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
        #if canImport(Darwin)
        Darwin.rename(source, destination)
        #else
        Glibc.rename(source, destination)
        #endif
    }

    /// `link(2)`.
    package static func link(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
        #if canImport(Darwin)
        Darwin.link(source, destination)
        #else
        Glibc.link(source, destination)
        #endif
    }

    /// Puts a signal's default action back, as `signal(sig, SIG_DFL)`.
    package static func restoreDefaultAction(of signal: Int32) {
        #if canImport(Darwin)
        _ = Darwin.signal(signal, SIG_DFL)
        #else
        _ = Glibc.signal(signal, SIG_DFL)
        #endif
    }

    /// A file's modification time in nanoseconds since the epoch, saturated: `st_mtim` on Linux,
    /// `st_mtimespec` on Apple's platforms.
    package static func modificationNanoseconds(of info: stat) -> Int64 {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        let seconds = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        return seconds.overflow ? .max : seconds.partialValue &+ Int64(time.tv_nsec)
    }

    /// Asks the kernel to back a mapping with transparent huge pages (Linux's `MADV_HUGEPAGE`).
    /// Advice only: Apple's kernels have no such hint, and the memory works the same without it.
    package static func adviseHugePages(_ start: UnsafeMutableRawPointer, _ count: Int) {
        #if os(Linux)
        _ = madvise(start, count, MADV_HUGEPAGE)
        #endif
    }

    /// Keeps the memory malloc frees for the blocks that follow, for a command that prepares
    /// photo after photo: blocks of up to 4 MiB come from malloc's heaps instead of a mapping
    /// each, and up to 32 MiB free at the top of a heap stay there. libde265's decoder for each
    /// tile of a HEIC (48 in a 12 MP iPhone photo, 768 in a 200 MP one) allocates and frees the
    /// same blocks; with glibc's defaults they went back to the kernel and came again as fresh
    /// zeroed pages: 15,000 page faults for a 12 MP iPhone HEIC instead of 4,000, and 153,000
    /// instead of 3,300 (0.9 s of system time instead of 0.25) for the 200 MP HEIC. Peak memory
    /// stays the same. A library must not decide this for the app it is in, so only the commands
    /// call it. glibc only: Apple's malloc keeps freed memory by itself.
    package static func keepFreedMemoryForReuse() {
        cle_keep_freed_memory(4 << 20, 32 << 20)
    }

    /// Has malloc fill every block it hands out with `fill ^ 0xFF` while `fill` is not 0, and
    /// stop with 0: glibc's `M_PERTURB`, for the whole process. Elsewhere it does nothing.
    package static func setMallocFill(_ fill: Int32) {
        cle_set_malloc_perturb(fill)
    }

    /// A thread started by `startThread`, which must be joined or detached.
    package struct Thread {
        fileprivate let handle: pthread_t
    }

    /// Starts `body` on a new thread; nil when the system gives none (its thread limit).
    package static func startThread(_ body: @escaping @Sendable () -> Void) -> Thread? {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        #if canImport(Darwin)
        var handle: pthread_t?
        let status = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0, let handle else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return nil
        }
        #else
        var handle = pthread_t()
        let status = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            return nil
        }
        #endif
        return Thread(handle: handle)
    }

    /// Lets `thread` run on its own, never to be joined (a thread that lasts as long as the process).
    package static func detach(_ thread: Thread) {
        pthread_detach(thread.handle)
    }

    /// Waits for `thread` to end.
    package static func join(_ thread: Thread) {
        pthread_join(thread.handle, nil)
    }

    private final class ThreadBody: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Flushes a file's (or a folder's) data to stable storage, for the outbox's durability points.
    ///
    /// On Apple's platforms `fsync` hands the data to the drive, whose cache may still lose it in
    /// a power cut; `F_FULLFSYNC` asks the drive to write it out, which is what the outbox
    /// promises. A file system that does not support it (some network and FAT volumes) falls
    /// back to `fsync`. On Linux `fsync` already flushes the drive's cache.
    ///
    /// - Returns: 0, or -1 with `errno` set.
    package static func flushToStorage(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Pragmas that make SQLite's own syncs as durable as `flushToStorage`: on Apple's platforms
    /// SQLite uses plain `fsync` unless `fullfsync` (and for checkpoints `checkpoint_fullfsync`)
    /// is on. Nothing on Linux.
    package static let sqliteDurabilityPragmas: [String] = {
        #if canImport(Darwin)
        ["PRAGMA fullfsync = ON", "PRAGMA checkpoint_fullfsync = ON"]
        #else
        []
        #endif
    }()

    /// Makes the file or folder at `path` its owner's only (0600, a folder 0700), whatever the
    /// umask or an older version made it, without following a symbolic link: another user of
    /// the device must read nothing of a store. Does nothing where it cannot (no such file,
    /// another user's), since tightening is never a reason to refuse a store.
    package static func restrictToOwner(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { _ = Self.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let mode: mode_t = (info.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600
        if info.st_mode & 0o7777 != mode { _ = fchmod(descriptor, mode) }
    }

    /// Creates the file at `path` owner-only when it is absent, so that SQLite, which creates
    /// its database 0644 and its `-wal` and `-shm` with the database's mode, never makes one
    /// another user could open.
    package static func createOwnerOnly(_ path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 { _ = Self.close(descriptor) }
    }

    /// The device and inode of the file at `path` (not following a symbolic link), or nil when
    /// there is none: what tells the file a store opened from one put in its place since.
    package static func fileIdentity(_ path: String) -> FileIdentity? {
        (try? FileCalls.status(at: path, followsLinks: false))?.identity
    }

    /// The peak resident set of a child from `wait4`, in MiB: Linux reports `ru_maxrss` in KiB,
    /// Apple's platforms in bytes.
    package static func peakResidentMiB(_ usage: rusage) -> Double {
        #if canImport(Darwin)
        Double(usage.ru_maxrss) / (1024 * 1024)
        #else
        Double(usage.ru_maxrss) / 1024
        #endif
    }

    /// Whether the process started with `signal` ignored (SIGHUP under `nohup`): glibc names
    /// the handler's field `__sigaction_handler.sa_handler`, Apple's `__sigaction_u.__sa_handler`.
    package static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return false }
        #if canImport(Darwin)
        let handler = current.__sigaction_u.__sa_handler
        #else
        let handler = current.__sigaction_handler.sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The system calls whose name or meaning differs between Apple's platforms and Linux, in the one
/// file of this module that imports the C library by name. Other files use the POSIX calls that
/// Foundation brings on both (`open`, `fstat`, `flock`, ...), which mean the same on each.
enum Platform {
    /// Writes from `buffer`, as `write(2)`; a type's own `write` method would hide the bare name.
    static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #else
        Glibc.write(descriptor, buffer, count)
        #endif
    }

    /// Flushes a file's (or a folder's) data to stable storage, for the outbox's durability points.
    ///
    /// On Apple's platforms `fsync` hands the data to the drive, whose cache may still lose it in
    /// a power cut; `F_FULLFSYNC` asks the drive to write it out, which is what the outbox
    /// promises. A file system that does not support it (some network and FAT volumes) falls
    /// back to `fsync`. On Linux `fsync` already flushes the drive's cache.
    ///
    /// - Returns: 0, or -1 with `errno` set.
    static func flushToStorage(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    /// Pragmas that make SQLite's own syncs as durable as `flushToStorage`: on Apple's platforms
    /// SQLite uses plain `fsync` unless `fullfsync` (and for checkpoints `checkpoint_fullfsync`)
    /// is on. Nothing on Linux.
    static let sqliteDurabilityPragmas: [String] = {
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
    static func restrictToOwner(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return }
        let mode: mode_t = (info.st_mode & S_IFMT) == S_IFDIR ? 0o700 : 0o600
        if info.st_mode & 0o7777 != mode { _ = fchmod(descriptor, mode) }
    }

    /// Creates the file at `path` owner-only when it is absent, so that SQLite, which creates
    /// its database 0644 and its `-wal` and `-shm` with the database's mode, never makes one
    /// another user could open.
    static func createOwnerOnly(_ path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    /// The device and inode of the file at `path` (not following a symbolic link), or nil when
    /// there is none: what tells the file a store opened from one put in its place since.
    static func fileIdentity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// Which file a path named at one moment: its device and inode.
struct FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64
}

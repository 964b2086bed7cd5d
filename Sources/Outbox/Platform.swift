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
}

// The one file of this module that imports the C library by name, re-exported to the module's
// other files for the POSIX calls that mean the same on every platform; the calls whose name
// or meaning differs between Apple's platforms and Linux are the functions below.
internal import CWriteBack

#if canImport(Darwin)
@_exported import Darwin
#elseif canImport(Glibc)
@_exported import Glibc
#endif

/// The system calls whose name or meaning differs between Apple's platforms and Linux.
enum Platform {
    /// `read(2)`; a type's own `read` method would hide the bare name.
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// `write(2)`; a type's own `write` method would hide the bare name.
    static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #else
        Glibc.write(descriptor, buffer, count)
        #endif
    }

    /// `close(2)`; a type's own `close` method would hide the bare name.
    static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(descriptor)
        #else
        Glibc.close(descriptor)
        #endif
    }

    /// Starts writing a file's data to the disk without waiting (Linux's `sync_file_range`), so
    /// that a later `fsync` of several files commits them in one journal transaction. Advice:
    /// on Apple's platforms, and when it fails, the `fsync` alone does all the work.
    static func startWriteBack(_ descriptor: Int32) {
        _ = cwb_start_write_back(descriptor)
    }

    /// `rename(2)`.
    static func rename(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
        #if canImport(Darwin)
        Darwin.rename(source, destination)
        #else
        Glibc.rename(source, destination)
        #endif
    }

    /// `link(2)`.
    static func link(_ source: UnsafePointer<CChar>, _ destination: UnsafePointer<CChar>) -> Int32 {
        #if canImport(Darwin)
        Darwin.link(source, destination)
        #else
        Glibc.link(source, destination)
        #endif
    }

    /// Puts a signal's default action back, as `signal(sig, SIG_DFL)`.
    static func restoreDefaultAction(of signal: Int32) {
        #if canImport(Darwin)
        _ = Darwin.signal(signal, SIG_DFL)
        #else
        _ = Glibc.signal(signal, SIG_DFL)
        #endif
    }

    /// A file's modification time in nanoseconds since the epoch, saturated: `st_mtim` on Linux,
    /// `st_mtimespec` on Apple's platforms.
    static func modificationNanoseconds(of info: stat) -> Int64 {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        let seconds = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
        return seconds.overflow ? .max : seconds.partialValue &+ Int64(time.tv_nsec)
    }
}

// The one file of ImagePrep that imports the C library by name. It is re-exported to the
// module's other files (which import FoundationEssentials, which does not bring it) for the C
// standard's math (`sin`, `pow`) and the POSIX calls that mean the same on every platform
// (`open`, `fstat`, `mmap`); the calls whose name or meaning differs are the functions below.
#if canImport(Darwin)
@_exported import Darwin
#elseif canImport(Glibc)
@_exported import Glibc
#endif

/// The system calls whose name or availability differs between Apple's platforms and Linux.
enum Platform {
    /// Reads into `buffer`, as `read(2)`; a type's own `read` method would hide the bare name.
    static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #else
        Glibc.read(descriptor, buffer, count)
        #endif
    }

    /// Asks the kernel to back a mapping with transparent huge pages (Linux's `MADV_HUGEPAGE`).
    /// Advice only: Apple's kernels have no such hint, and the memory works the same without it.
    static func adviseHugePages(_ start: UnsafeMutableRawPointer, _ count: Int) {
        #if os(Linux)
        _ = madvise(start, count, MADV_HUGEPAGE)
        #endif
    }

    /// A thread started by `startThread`, which must be joined.
    struct Thread {
        fileprivate let handle: pthread_t
    }

    /// Starts `body` on a new thread; nil when the system gives none (its thread limit).
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Thread? {
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

    /// Waits for `thread` to end.
    static func join(_ thread: Thread) {
        pthread_join(thread.handle, nil)
    }

    private final class ThreadBody: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

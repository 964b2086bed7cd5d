internal import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Memory for big buffers (pixel planes, a photo file's bytes), mapped straight from the kernel
/// with transparent huge pages asked for: a 12 MP photo's planes are about 9,000 ordinary 4 KB
/// pages, each a page fault on first touch (20–30 ms of kernel time in a one-photo process), but
/// fewer than twenty 2 MB pages.
struct PageMemory: ~Copyable {
    /// The system would not give a buffer the memory it needs: malloc or mmap failed, for
    /// example under a process's address-space limit (`ulimit -v`) or an app's memory limit.
    struct Shortage: Error {
        let byteCount: Int
    }

    let bytes: UnsafeMutablePointer<UInt8>
    let byteCount: Int
    /// The mapping to give back, for buffers of a huge page or more; nil for malloc'd ones.
    private let mappedBase: UnsafeMutableRawPointer?
    private let mappedCount: Int

    private static let hugePage = 2 << 20

    init(byteCount: Int) throws(Shortage) {
        self.byteCount = byteCount
        guard byteCount >= Self.hugePage else {
            // Zeroed, as fresh mapped pages are: memory malloc hands back may hold an earlier
            // photo's pixels, and a fresh workspace must start from nothing. calloc, not a
            // memset: for a buffer it maps afresh (a 4:2:0 upload's chroma planes) it knows the
            // pages are zero and leaves them untouched, so that their faults fall on the thread
            // that first writes them, not on the start of every photo (1.3 ms in a new process).
            guard let zeroed = calloc(max(byteCount, 1), 1) else { throw Shortage(byteCount: byteCount) }
            bytes = zeroed.assumingMemoryBound(to: UInt8.self)
            mappedBase = nil
            mappedCount = 0
            return
        }
        // Map one huge page more than needed, so that the buffer can start on a 2 MB boundary.
        let (padded, overflow) = byteCount.addingReportingOverflow(2 * Self.hugePage - 1)
        guard !overflow else { throw Shortage(byteCount: byteCount) }
        let mapped = padded / Self.hugePage * Self.hugePage
        guard let base = MappedPages.map(mapped) else { throw Shortage(byteCount: byteCount) }
        let aligned = (Int(bitPattern: base) + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        let start = UnsafeMutableRawPointer(bitPattern: aligned)!
        // The hint is advice: without huge pages the memory works the same, only with more faults.
        Platform.adviseHugePages(start, mapped - (aligned - Int(bitPattern: base)))
        bytes = start.assumingMemoryBound(to: UInt8.self)
        mappedCount = mapped
        mappedBase = base
    }

    deinit {
        if let mappedBase {
            MappedPages.unmap(mappedBase, mappedCount)
        } else {
            free(bytes)
        }
    }

    /// The first `count` bytes as a `Data` that owns the memory from now on and gives it back
    /// when the last copy of it goes.
    consuming func data(count: Int) -> Data {
        precondition(count <= byteCount, "a Data within the memory")
        let bytes = bytes
        let mappedBase = mappedBase
        let mappedCount = mappedCount
        discard self
        guard let mappedBase else {
            return Data(bytesNoCopy: bytes, count: count, deallocator: .free)
        }
        return Data(
            bytesNoCopy: bytes, count: count,
            deallocator: .custom { _, _ in MappedPages.unmap(mappedBase, mappedCount) })
    }
}

/// Memory for a whole photo file's bytes, read by the caller.
///
/// A 4 MB photo read into ordinary memory is a thousand page faults, 4–5 ms of a one-photo
/// process; in huge pages it is two. `PhotoPreparer.prepareBlocking(contentsOf:)` reads this way,
/// and so does `prep-photo`, which reads its files itself to report its own errors (`package`: no
/// app needs it).
package enum PhotoBytes {
    /// The largest file read as a photo, 1 GiB: a 100 MP JPEG at quality 100 is about 40 MB, and
    /// a size taken on trust from a hostile or sparse file must not decide an allocation.
    package static let largestFile = 1 << 30

    /// Why a file of `size` bytes is not read as a photo; nil when it may be.
    package static func refusal(forSize size: Int) -> String? {
        guard size > largestFile else { return nil }
        return "it is \((size + (1 << 20) - 1) >> 20) MB, more than the \(largestFile >> 20) MB a photo file may be"
    }

    /// A `Data` of up to `capacity` bytes, filled by `fill`, which returns how many it wrote
    /// (fewer when the file shrank while it was read).
    ///
    /// - Parameters:
    ///   - capacity: The most bytes `fill` may write: the file's size.
    ///   - shortage: The error to throw when the system will not give `capacity` bytes.
    ///   - fill: Writes the bytes into the buffer it is given and returns how many it wrote.
    /// - Returns: The bytes written, in memory that a photo's decode reads fastest.
    /// - Throws: `shortage()`, or what `fill` throws.
    package static func read<Failure: Error>(
        capacity: Int, shortage: @autoclosure () -> Failure,
        _ fill: (UnsafeMutableRawBufferPointer) throws(Failure) -> Int
    ) throws(Failure) -> Data {
        let memory: PageMemory
        do {
            memory = try PageMemory(byteCount: max(capacity, 1))
        } catch {
            throw shortage()
        }
        let filled = try fill(UnsafeMutableRawBufferPointer(start: memory.bytes, count: capacity))
        precondition(filled >= 0 && filled <= capacity, "fill reports the bytes it wrote")
        return memory.data(count: filled)
    }
}

/// Anonymous memory mapped straight from the kernel (`mmap`), for buffers large enough to ask for
/// huge pages (`Platform.adviseHugePages`): fresh pages, zeroed, given back with `unmap`.
package enum MappedPages {
    /// `count` bytes of fresh pages, readable and writable; nil when the system will not map them
    /// (an address-space limit, an app's memory limit).
    package static func map(_ count: Int) -> UnsafeMutableRawPointer? {
        guard let base = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0), base != MAP_FAILED
        else { return nil }
        return base
    }

    /// Gives back a mapping `map` made, whole.
    package static func unmap(_ base: UnsafeMutableRawPointer, _ count: Int) {
        _ = munmap(base, count)
    }
}

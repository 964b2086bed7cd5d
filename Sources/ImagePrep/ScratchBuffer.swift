/// A grow-only byte buffer for interleaved pixels, reused from photo to photo.
final class ScratchBuffer {
    private(set) var bytes: UnsafeMutablePointer<UInt8>
    private var capacity: Int

    init() {
        capacity = 0
        bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    }

    deinit { bytes.deallocate() }

    /// Makes room for `count` bytes; the contents are undefined afterwards.
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        bytes.deallocate()
        bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        capacity = count
    }
}

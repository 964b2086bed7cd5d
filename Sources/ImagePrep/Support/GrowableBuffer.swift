/// A grow-only buffer that owns its memory, reused from photo to photo: interleaved pixels for
/// decodes that are not planar and colour strips (bytes), the resampler's rows (floats).
final class GrowableBuffer<Element> {
    private(set) var pointer: UnsafeMutablePointer<Element>
    private var capacity: Int

    init() {
        capacity = 0
        pointer = UnsafeMutablePointer<Element>.allocate(capacity: 1)
    }

    deinit { pointer.deallocate() }

    /// Makes room for `count` elements; the contents are undefined afterwards.
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        pointer = UnsafeMutablePointer<Element>.allocate(capacity: count)
        capacity = count
    }
}

/// Bytes of interleaved pixels.
typealias ScratchBuffer = GrowableBuffer<UInt8>

internal import PlatformLayer

/// libjxl's pixels, which its image-out callback hands over a run of a row at a time in the
/// order it decodes its groups (256 to 1024 pixels square), made into whole rows pushed top to
/// bottom into the upload. Only the rows of the groups being decoded are held: a file whose
/// groups come so far out of order that more than `maxPendingRows` rows wait is cut short
/// (`overflowed`), never held whole. With libjxl's threads the callback comes from several
/// threads at once: one at a time goes through (`gate`), so the rows go out in order as alone.
final class JXLRowAssembler {
    let upload: RowStreamUpload
    let channels: Int
    /// Rows that may wait for the ones above them: a row of 1024-pixel groups and some more.
    let maxPendingRows: Int
    private let rowBytes: Int
    private var pending: [Int: (row: UnsafeMutablePointer<UInt8>, filled: Int)] = [:]
    private var spare: [UnsafeMutablePointer<UInt8>] = []
    /// Set when more rows waited than `maxPendingRows`; what came after was dropped.
    private(set) var overflowed = false
    private let gate = Locked(())

    init(upload: RowStreamUpload, channels: Int) {
        self.upload = upload
        self.channels = channels
        rowBytes = upload.sourceSize.width * channels
        maxPendingRows = max(1088, (64 << 20) / max(rowBytes, 1))
    }

    deinit {
        for (row, _) in pending.values { row.deallocate() }
        for row in spare { row.deallocate() }
    }

    /// `count` pixels of row `y` from column `x`, as libjxl's callback gives them, from any of
    /// its threads.
    func receive(x: Int, y: Int, count: Int, pixels: UnsafeRawPointer) {
        gate.withLock { _ in accept(x: x, y: y, count: count, pixels: pixels) }
    }

    private func accept(x: Int, y: Int, count: Int, pixels: UnsafeRawPointer) {
        let width = upload.sourceSize.width
        guard !overflowed, upload.needsRows, y >= upload.nextRow, y < upload.sourceSize.height, x >= 0, count >= 0,
            count <= width - x
        else { return }
        var entry: (row: UnsafeMutablePointer<UInt8>, filled: Int)
        if let waiting = pending[y] {
            entry = waiting
        } else {
            guard pending.count < maxPendingRows else {
                overflowed = true
                return
            }
            entry = (spare.popLast() ?? .allocate(capacity: rowBytes), 0)
        }
        (entry.row + x * channels).update(
            from: pixels.assumingMemoryBound(to: UInt8.self), count: count * channels)
        entry.filled += count
        pending[y] = entry
        while let next = pending[upload.nextRow], next.filled >= width {
            pending[upload.nextRow] = nil
            upload.push(next.row)
            spare.append(next.row)
        }
    }
}

internal import PlatformLayer

/// Where a baseline JPEG with restart markers can be cut in two, so that two libjpeg decoders
/// decode its top and bottom at once: the entropy-coded data of a restart interval depends on
/// nothing before it, so the bottom can be decoded from the original's headers and the data from
/// an interval's start on. Phones write an interval per MCU row (every iPhone photo does); no
/// peer decodes one photo on two cores this way.
///
/// The cut is made only where nothing can go differently from a decode of the whole file: one
/// interleaved scan of a baseline frame whose height is in its header, intervals of whole MCU
/// rows, and a cut at an interval whose number is a multiple of 8, so that the bottom's first
/// marker is the RST0 that libjpeg expects first. Every marker before the cut is checked to be
/// the one expected; anything else and there is no split (the photo decodes as one). Of the
/// intervals allowed, the cut is the one that halves the entropy-coded bytes.
struct RestartSplit: Equatable {
    /// The first MCU row of the bottom part.
    let mcuRow: Int
    /// The bottom part's headers: every segment of the original up to and including its scan
    /// header, the frame's height cut to the rows from `mcuRow` on.
    let bottomHead: [UInt8]
    /// Where in the original the bottom part's data starts: `mcuRow`'s interval, after the
    /// restart marker before it. The bottom part is `bottomHead` then the original from here on.
    let bottomDataStart: Int

    /// The split nearest `fraction` of the entropy-coded bytes, or nil when the file allows none.
    static func find(in bytes: UnsafeRawBufferPointer, layout: JPEGLayout, near fraction: Double = 0.5)
        -> RestartSplit?
    {
        guard let frame = layout.frame, frame.marker == 0xC0 || frame.marker == 0xC1,
            let frameSegment = layout.segments.first(where: { $0.isStartOfFrame }),
            let scan = layout.segments.last, scan.marker == JPEGSegment.startOfScan,
            let restart = layout.segments.last(where: { $0.marker == defineRestartInterval }),
            // A width of 0 would give no MCUs a row, and the interval's check below a division
            // by zero.
            restart.payload.count == 2, frame.size.width > 0, frame.size.height > 0,
            // The segment whose height is cut must be the frame header read, whole.
            frameSegment.payload.count >= 6,
            let height = ByteReader(bytes).uint16(at: frameSegment.payload.lowerBound + 1),
            Int(height) == frame.size.height,
            let interval = ByteReader(bytes).uint16(at: restart.payload.lowerBound).map(Int.init)
        else { return nil }
        // The frame's components and their sampling factors; the scan must hold all of them.
        let componentCount = Int(bytes[frameSegment.payload.lowerBound + 5])
        guard interval > 0, componentCount >= 1, componentCount <= 4,
            frameSegment.payload.count >= 6 + 3 * componentCount,
            scan.payload.count >= 1, Int(bytes[scan.payload.lowerBound]) == componentCount
        else { return nil }
        var maxHorizontal = 1
        var maxVertical = 1
        for component in 0..<componentCount {
            let factors = bytes[frameSegment.payload.lowerBound + 6 + 3 * component + 1]
            maxHorizontal = max(maxHorizontal, Int(factors >> 4))
            maxVertical = max(maxVertical, Int(factors & 0x0F))
        }
        // A single-component scan is not interleaved: its MCU is one 8x8 block.
        let mcuWidth = componentCount == 1 ? 8 : 8 * maxHorizontal
        let mcuHeight = componentCount == 1 ? 8 : 8 * maxVertical
        let mcusPerRow = (frame.size.width + mcuWidth - 1) / mcuWidth
        let mcuRows = (frame.size.height + mcuHeight - 1) / mcuHeight
        guard interval % mcusPerRow == 0 else { return nil }
        let rowsPerInterval = interval / mcusPerRow
        let intervals = (mcuRows + rowsPerInterval - 1) / rowsPerInterval

        // Where each interval that may start the bottom (a multiple of 8) starts, up to the first
        // marker out of sequence, and where the entropy-coded data ends: the first marker that is
        // not a restart marker (the EOI), or the end of the bytes.
        var candidates: [(interval: Int, start: Int)] = []
        var markersSeen = 0
        var inSequence = true
        var position = scan.bytes.upperBound
        var dataEnd = bytes.count
        while let found = nextMarker(in: bytes, from: position, to: bytes.count) {
            let marker = bytes[found + 1]
            guard (0xD0...0xD7).contains(marker) else {
                dataEnd = found
                break
            }
            // libjpeg resynchronises at a marker out of sequence, which a bottom decoder cut
            // below it could not know: no cut there or further down.
            inSequence = inSequence && marker == 0xD0 + UInt8(markersSeen % 8)
            markersSeen += 1
            position = found + 2
            if inSequence, markersSeen % 8 == 0, markersSeen < intervals {
                candidates.append((markersSeen, position))
            }
        }
        // Decoding time follows the entropy-coded bytes more than the rows (a sky is cheaper than
        // foliage): the cut nearest `fraction` of the bytes gives both decoders the same work.
        let scanStart = scan.bytes.upperBound
        let wanted = scanStart + Int(Double(dataEnd - scanStart) * fraction)
        guard let chosen = candidates.min(by: { abs($0.start - wanted) < abs($1.start - wanted) }) else {
            return nil
        }
        let mcuRow = chosen.interval * rowsPerInterval
        let bottomHeight = frame.size.height - mcuRow * mcuHeight
        guard bottomHeight > 0, bottomHeight <= 0xFFFF else { return nil }
        var head = [UInt8](bytes[0..<scan.bytes.upperBound])
        // The frame header's height follows its precision byte.
        let heightOffset = frameSegment.payload.lowerBound + 1
        head[heightOffset] = UInt8(bottomHeight >> 8)
        head[heightOffset + 1] = UInt8(bottomHeight & 0xFF)
        return RestartSplit(mcuRow: mcuRow, bottomHead: head, bottomDataStart: chosen.start)
    }

    private static let defineRestartInterval: UInt8 = 0xDD

    /// The offset of the next marker in entropy-coded data: an 0xFF followed by neither a
    /// stuffed 0x00 nor a fill byte 0xFF. Nil at the end of the bytes.
    private static func nextMarker(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = start
        while index + 1 < end {
            // 0xFF is rare in entropy-coded data, and memchr finds it many bytes at a time.
            guard let found = memchr(base + index, 0xFF, end - index - 1) else { return nil }
            index = base.distance(to: UnsafeRawPointer(found))
            let next = bytes[index + 1]
            if next == 0x00 {
                index += 2
            } else if next == 0xFF {
                index += 1
            } else {
                return index
            }
        }
        return nil
    }
}

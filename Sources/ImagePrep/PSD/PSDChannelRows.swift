/// The rows of a Photoshop composite's channels, stored one channel after another (raw, or
/// PackBits with a byte count for every row of every channel), read top to bottom a row of
/// each channel at a time: every channel keeps its own place in the bytes, so no channel is
/// ever held whole.
struct PSDChannelRows {
    let rowBytes: Int
    private let data: UnsafeRawBufferPointer
    private let isRunLength: Bool
    private let countSize: Int
    private let height: Int
    /// Where each read channel's next row starts in `data`.
    private var cursors: [Int]
    private let channels: [Int]
    /// Set when a row ran past the data or its runs did not fill it; its rest is zeros.
    private(set) var isDamaged = false

    /// - Parameters:
    ///   - section: the image data section after its compression method.
    ///   - channels: the channels to read, in the order their rows are wanted.
    init?(
        section: UnsafeRawBufferPointer, isRunLength: Bool, isLarge: Bool, channelCount: Int, channels: [Int],
        size: PixelSize, depth: Int
    ) {
        rowBytes = (size.width * depth + 7) / 8
        data = section
        self.isRunLength = isRunLength
        countSize = isLarge ? 4 : 2
        height = size.height
        self.channels = channels
        if isRunLength {
            let countTable = Int.saturatingProduct(channelCount, size.height, countSize)
            guard countTable <= section.count else { return nil }
            // Each channel starts where the rows of the ones before it end.
            var starts = [countTable]
            var reader = PSDFieldReader(section)
            for _ in 0..<channelCount {
                var length = 0
                for _ in 0..<size.height { length += Int(isLarge ? reader.u32() : UInt32(reader.u16())) }
                starts.append(starts.last! + length)
            }
            cursors = channels.map { starts[$0] }
        } else {
            let rowBytes = self.rowBytes
            cursors = channels.map { Int.saturatingProduct($0, size.height, rowBytes) }
        }
    }

    /// Row `y` of the `index`th channel read into `row` (`rowBytes` bytes); rows are read in
    /// order, each channel's after its previous one.
    mutating func read(channel index: Int, row y: Int, into row: UnsafeMutablePointer<UInt8>) {
        let start = cursors[index]
        if !isRunLength {
            cursors[index] = start &+ rowBytes
            copy(from: start, count: rowBytes, into: row)
            return
        }
        let countOffset = (channels[index] * height + y) * countSize
        var reader = PSDFieldReader(data)
        reader.offset = countOffset
        let length = Int(countSize == 4 ? reader.u32() : UInt32(reader.u16()))
        cursors[index] = start &+ length
        guard start >= 0, start <= data.count, length <= data.count - start else {
            row.initialize(repeating: 0, count: rowBytes)
            isDamaged = true
            return
        }
        if !PackBits.decode(
            UnsafeRawBufferPointer(rebasing: data[start..<(start + length)]), into: row, count: rowBytes)
        {
            isDamaged = true
        }
    }

    private mutating func copy(from start: Int, count: Int, into row: UnsafeMutablePointer<UInt8>) {
        let available = start >= 0 && start < data.count ? min(count, data.count - start) : 0
        if available > 0 {
            row.update(from: (data.baseAddress! + start).assumingMemoryBound(to: UInt8.self), count: available)
        }
        if available < count {
            (row + available).initialize(repeating: 0, count: count - available)
            isDamaged = true
        }
    }
}

/// Apple's PackBits run lengths, as Photoshop (and TIFF) write them.
enum PackBits {
    /// Decodes `source` into `count` bytes; false (the rest zeros) when the runs do not fill
    /// them exactly or run past the source.
    static func decode(_ source: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>, count: Int) -> Bool {
        var read = 0
        var written = 0
        while read < source.count && written < count {
            let header = Int(Int8(bitPattern: source[read]))
            read += 1
            if header >= 0 {
                let length = min(header + 1, count - written, source.count - read)
                guard length > 0 else { break }
                (output + written).update(
                    from: (source.baseAddress! + read).assumingMemoryBound(to: UInt8.self), count: length)
                read += header + 1
                written += length
            } else if header != -128 {
                guard read < source.count else { break }
                let length = min(1 - header, count - written)
                (output + written).initialize(repeating: source[read], count: length)
                read += 1
                written += length
            }
        }
        if written < count { (output + written).initialize(repeating: 0, count: count - written) }
        return written == count && read <= source.count
    }
}

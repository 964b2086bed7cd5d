/// A GIF's first frame pushed into the upload as picture rows, top to bottom: rows above and
/// below the frame and beside it are transparent, a frame row is its colour indices looked up in
/// the palette (the transparent index with alpha 0).
struct GIFFrameRows {
    let frame: GIFFile.Frame
    let placement: GIFPlacement
    let upload: RowStreamUpload
    let context: PreparationContext
    /// One picture row; the parts beside the frame stay transparent.
    private let pictureRow = GrowableBuffer<UInt8>()
    private let emptyRow = GrowableBuffer<UInt8>()
    private let line = GrowableBuffer<UInt8>()
    /// The palette as whole pixels of the upload's layout (R, G, B and, with alpha, 0 for the
    /// transparent index, else 255), one 32-bit word each: a frame row is a word per index.
    private let colors: [UInt32]

    init(frame: GIFFile.Frame, placement: GIFPlacement, upload: RowStreamUpload, context: PreparationContext) {
        self.frame = frame
        self.placement = placement
        self.upload = upload
        self.context = context
        let rowBytes = placement.canvas.width * upload.layout.rawValue
        for row in [pictureRow, emptyRow] {
            row.reserve(rowBytes)
            row.pointer.initialize(repeating: 0, count: rowBytes)
        }
        line.reserve(frame.size.width)
        colors = (0..<256).map { index in
            let alpha: UInt32 = index == frame.transparentIndex ? 0 : 255
            return UInt32(frame.palette[index * 3]) | UInt32(frame.palette[index * 3 + 1]) << 8
                | UInt32(frame.palette[index * 3 + 2]) << 16 | alpha << 24
        }
    }

    /// A frame stored top to bottom: each line pushed as it is read.
    ///
    /// - Returns: how many of the frame's lines could be read; the rows after them are not pushed.
    func pushInOrder(_ gif: borrowing GIFFile) throws(ImagePrepError) -> Int {
        pushEmptyRows(placement.top)
        for row in 0..<frame.size.height {
            if row % 256 == 0 { try context.cancellation.check(file: context.file) }
            guard gif.readLine(into: line.pointer, width: frame.size.width) else { return row }
            if row < placement.visible.height && upload.needsRows { pushFrameRow(UnsafePointer(line.pointer)) }
        }
        pushEmptyRows(placement.canvas.height - placement.top - placement.visible.height)
        return frame.size.height
    }

    /// An interlaced frame, whose lines come in four passes (rows 0, 8, 16...; 4, 12...; 2, 6...;
    /// 1, 3...): read whole once for each band of rows (`GIFSource.interlacedBandBytes`), keeping
    /// the band's lines, which are then pushed in order. A row whose line never came (a file cut
    /// short) repeats the nearest row above it in the band that did, as a viewer shows a partial
    /// interlaced GIF.
    ///
    /// - Parameters:
    ///   - firstPass: the decoder at the frame's first line, read for the first band.
    ///   - reopen: a decoder at the frame's first line again, for each further band.
    /// - Returns: how many of the frame's lines could be read.
    func pushInterlaced(
        firstPass: borrowing GIFFile, reopen: () throws(ImagePrepError) -> GIFFile
    ) throws(ImagePrepError) -> Int {
        let width = frame.size.width
        let bandRows = max(1, min(placement.visible.height, GIFSource.interlacedBandBytes / width))
        let band = GrowableBuffer<UInt8>()
        band.reserve(bandRows * width)
        var filled = [Bool](repeating: false, count: bandRows)
        pushEmptyRows(placement.top)
        var linesRead = frame.size.height
        var bandStart = 0
        while bandStart < placement.visible.height && upload.needsRows {
            let bandEnd = min(placement.visible.height, bandStart + bandRows)
            filled.withUnsafeMutableBufferPointer { $0.update(repeating: false) }
            let read: Int
            if bandStart == 0 {
                read = try readBand(firstPass, rows: bandStart..<bandEnd, into: band, filled: &filled)
            } else {
                let again = try reopen()
                read = try readBand(again, rows: bandStart..<bandEnd, into: band, filled: &filled)
            }
            linesRead = min(linesRead, read)
            for index in 0..<(bandEnd - bandStart) {
                let source = (0...min(index, 7)).lazy.map { index - $0 }.first { filled[$0] }
                if let source { pushFrameRow(UnsafePointer(band.pointer + source * width)) } else { pushEmptyRows(1) }
            }
            bandStart = bandEnd
        }
        if bandStart == 0 { linesRead = try readBand(firstPass, rows: 0..<0, into: band, filled: &filled) }
        pushEmptyRows(placement.canvas.height - placement.top - placement.visible.height)
        return linesRead
    }

    /// Reads every line of the frame, keeping those of `rows` in `band`.
    private func readBand(
        _ gif: borrowing GIFFile, rows: Range<Int>, into band: GrowableBuffer<UInt8>, filled: inout [Bool]
    ) throws(ImagePrepError) -> Int {
        let width = frame.size.width
        for index in 0..<frame.size.height {
            if index % 256 == 0 { try context.cancellation.check(file: context.file) }
            let row = Self.interlacedRow(index, height: frame.size.height)
            let kept = rows.contains(row)
            guard gif.readLine(into: kept ? band.pointer + (row - rows.lowerBound) * width : line.pointer, width: width)
            else { return index }
            if kept { filled[row - rows.lowerBound] = true }
        }
        return frame.size.height
    }

    /// The frame row that an interlaced frame's `index`-th line fills.
    static func interlacedRow(_ index: Int, height: Int) -> Int {
        var index = index
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            let count = height > start ? (height - start + step - 1) / step : 0
            if index < count { return start + index * step }
            index -= count
        }
        return height - 1
    }

    private func pushEmptyRows(_ count: Int) {
        for _ in 0..<max(0, count) where upload.needsRows { upload.push(UnsafePointer(emptyRow.pointer)) }
    }

    /// The visible part of a frame line, through the palette, into the picture row, which is pushed.
    private func pushFrameRow(_ indices: UnsafePointer<UInt8>) {
        let channels = upload.layout.rawValue
        let start = UnsafeMutableRawPointer(pictureRow.pointer + placement.left * channels)
        let width = placement.visible.width
        colors.withUnsafeBufferPointer { colors in
            if channels == 4 {
                for x in 0..<width {
                    start.storeBytes(of: colors[Int(indices[x])], toByteOffset: x * 4, as: UInt32.self)
                }
            } else {
                // Three bytes a pixel: each word's low three, the last pixel's written apart so
                // that no store passes the row's end.
                for x in 0..<max(0, width - 1) {
                    start.storeBytes(of: colors[Int(indices[x])], toByteOffset: x * 3, as: UInt32.self)
                }
                if width > 0 {
                    let color = colors[Int(indices[width - 1])]
                    for byte in 0..<3 {
                        start.storeBytes(
                            of: UInt8(truncatingIfNeeded: color >> (8 * UInt32(byte))),
                            toByteOffset: (width - 1) * 3 + byte, as: UInt8.self)
                    }
                }
            }
        }
        upload.push(UnsafePointer(pictureRow.pointer))
    }
}

/// A BMP's RLE4 or RLE8 pixels, which are stored bottom row first: decoded a band of rows at a
/// time from the top, each band from the place in the stream where its lowest row begins, so
/// that no more than a band of palette indexes is ever held, whatever the picture's height.
///
/// Every run is cut at its row's end, every escape bounded by the stream's end, and decoding stops
/// at the picture's last row; pixels no run reaches (skipped by a delta, or after an early end)
/// are palette index 0.
struct BMPRunLengths {
    /// Where the decoder stands: the next byte, and the pixel it writes next (row 0 at the bottom).
    struct State {
        var position: Int
        var x = 0
        var y = 0
    }

    let stream: UnsafeRawBufferPointer
    let size: PixelSize
    let isFourBit: Bool
    /// Rows a band holds.
    let bandHeight: Int
    /// For each band from the bottom, the state when the decoder first reached it.
    private(set) var checkpoints: [State] = []
    /// Whether the stream ends (or is cut short) before its end-of-bitmap code.
    private(set) var endsEarly = false

    /// Walks the stream once to record where each band begins.
    init(stream: UnsafeRawBufferPointer, size: PixelSize, isFourBit: Bool) {
        self.stream = stream
        self.size = size
        self.isFourBit = isFourBit
        // At most 65,536 checkpoints; a band of 64 rows, fewer where rows are long (16 MB of
        // indexes at most), more where there are over 4 million of them.
        bandHeight = max(min(64, max(1, (16 << 20) / size.width)), (size.height + 65_535) / 65_536)
        var state = State(position: 0)
        var marks: [State] = []
        let bandHeight = bandHeight
        let isFinished = run(from: &state, until: size.height) { state in
            while marks.count * bandHeight <= state.y && marks.count * bandHeight < size.height {
                marks.append(state)
            }
        } write: { _, _ in
        }
        while marks.count * bandHeight < size.height { marks.append(state) }
        checkpoints = marks
        endsEarly = !isFinished
    }

    /// Decodes band `band` (counted from the bottom) into `indexes`: `bandHeight` rows of
    /// `size.width` palette indexes, its lowest row first.
    func decode(band: Int, into indexes: UnsafeMutablePointer<UInt8>) {
        let bottom = band * bandHeight
        let top = min(bottom + bandHeight, size.height)
        indexes.initialize(repeating: 0, count: (top - bottom) * size.width)
        var state = checkpoints[band]
        _ = run(from: &state, until: top) { _ in
        } write: { state, index in
            guard state.y >= bottom else { return }
            indexes[(state.y - bottom) * size.width + state.x] = index
        }
    }

    /// Decodes from `state` until row `limit` is reached or the stream ends; `write` gets each
    /// pixel inside the picture, `reached` each state that starts a row or follows a delta.
    /// Returns whether the end-of-bitmap code (or the last row) was reached.
    private func run(
        from state: inout State, until limit: Int, reached: (State) -> Void, write: (State, UInt8) -> Void
    ) -> Bool {
        reached(state)
        let count = stream.count
        while state.y < limit {
            guard state.position + 2 <= count else { return false }
            let first = Int(stream[state.position])
            let second = stream[state.position + 1]
            state.position += 2
            if first > 0 {  // Encoded run: `first` pixels of one index (RLE8) or two alternating (RLE4).
                for index in 0..<first {
                    guard state.x < size.width else { break }
                    let value = isFourBit ? (index % 2 == 0 ? second >> 4 : second & 0x0F) : second
                    write(state, value)
                    state.x += 1
                }
                continue
            }
            switch second {
            case 0:  // End of line.
                state.x = 0
                state.y += 1
                reached(state)
            case 1:  // End of bitmap.
                return true
            case 2:  // Delta: right and up.
                guard state.position + 2 <= count else { return false }
                state.x += Int(stream[state.position])
                state.y += Int(stream[state.position + 1])
                state.position += 2
                reached(state)
            default:  // Absolute run of `second` pixels, padded to a 16-bit boundary.
                let pixels = Int(second)
                let length = isFourBit ? (pixels + 1) / 2 : pixels
                guard state.position + length <= count else { return false }
                for index in 0..<pixels where state.x < size.width {
                    let byte = stream[state.position + (isFourBit ? index / 2 : index)]
                    write(state, isFourBit ? (index % 2 == 0 ? byte >> 4 : byte & 0x0F) : byte)
                    state.x += 1
                }
                state.position += (length + 1) & ~1
            }
        }
        return true
    }
}

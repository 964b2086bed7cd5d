extension PlanarImage {
    /// Writes this image into `target` turned so that it shows upright: the pixels do what the
    /// EXIF Orientation tag asked viewers to do, because the stripped copies lose the tag.
    ///
    /// Works on the real (unpadded) region of each plane, tile by tile so that the quarter
    /// turns read and write memory in cache-sized pieces.
    func orient(_ orientation: Orientation, into target: PlanarImage) {
        precondition(subsampling.horizontal == subsampling.vertical, "a quarter turn needs square chroma subsampling")
        let targetSize = orientation.swapsWidthAndHeight ? size.transposed : size
        target.reshape(size: targetSize, isGray: isGray, subsampling: subsampling)
        for (index, plane) in activePlanes.enumerated() {
            let factor = index == 0 ? 1 : subsampling.horizontal
            let real = PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
            Self.transform(plane, size: real, orientation, into: target.planes[index])
        }
        target.replicateLumaEdges()
    }

    private static func transform(
        _ source: PixelPlane, size: PixelSize, _ orientation: Orientation, into target: PixelPlane
    ) {
        let w = size.width
        let h = size.height
        let stride = source.width
        // The source offset of target pixel (x, y) is origin + x * stepX + y * stepY.
        let (origin, stepX, stepY): (Int, Int, Int)
        switch orientation {
        case .up: (origin, stepX, stepY) = (0, 1, stride)
        case .upMirrored: (origin, stepX, stepY) = (w - 1, -1, stride)
        case .down: (origin, stepX, stepY) = ((h - 1) * stride + w - 1, -1, -stride)
        case .downMirrored: (origin, stepX, stepY) = ((h - 1) * stride, 1, -stride)
        case .leftMirrored: (origin, stepX, stepY) = (0, stride, 1)
        case .right: (origin, stepX, stepY) = ((h - 1) * stride, -stride, 1)
        case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * stride + w - 1, -stride, -1)
        case .left: (origin, stepX, stepY) = (w - 1, stride, -1)
        }
        let targetWidth = orientation.swapsWidthAndHeight ? h : w
        let targetHeight = orientation.swapsWidthAndHeight ? w : h
        let from = source.pixels
        // Quarter turns move 8x8 blocks through a register transpose; what is left at the right
        // and bottom edges (sides not a multiple of 8) goes pixel by pixel below.
        let blockWidth = orientation.swapsWidthAndHeight ? targetWidth / 8 * 8 : 0
        let blockHeight = orientation.swapsWidthAndHeight ? targetHeight / 8 * 8 : 0
        if orientation.swapsWidthAndHeight {
            for blockY in Swift.stride(from: 0, to: blockHeight, by: 8) {
                for blockX in Swift.stride(from: 0, to: blockWidth, by: 8) {
                    Self.turnBlock(
                        from: from, origin: origin + blockX * stepX + blockY * stepY, stepX: stepX, stepY: stepY,
                        to: target, x: blockX, y: blockY)
                }
            }
        }
        let tile = 64
        for tileY in Swift.stride(from: 0, to: targetHeight, by: tile) {
            for tileX in Swift.stride(from: 0, to: targetWidth, by: tile) {
                for y in tileY..<min(tileY + tile, targetHeight) {
                    let row = target.row(y)
                    // Columns the block pass made are skipped.
                    let firstX = y < blockHeight ? max(tileX, blockWidth) : tileX
                    let endX = min(tileX + tile, targetWidth)
                    guard firstX < endX else { continue }
                    var offset = origin + firstX * stepX + y * stepY
                    for x in firstX..<endX {
                        row[x] = from[offset]
                        offset += stepX
                    }
                }
            }
        }
        // Chroma planes of odd-sized images have one padding column or row beyond the real
        // region; keep it a copy of the edge.
        target.replicateEdges(fromWidth: targetWidth, height: targetHeight)
    }

    /// Writes the 8x8 target block at (`x`, `y`) of a quarter turn. Its source is an 8x8 block
    /// whose rows are 8 consecutive source rows (`stepX` apart) and whose columns run one way or
    /// the other (`stepY` is +1 or -1): load the rows as words, transpose the bytes in registers,
    /// and store the words as target rows.
    @inline(__always) private static func turnBlock(
        from source: UnsafeMutablePointer<UInt8>, origin: Int, stepX: Int, stepY: Int, to target: PixelPlane, x: Int,
        y: Int
    ) {
        // The source block's leftmost column: where target row y starts, or ends when stepY < 0.
        let left = stepY > 0 ? origin : origin - 7
        var r0 = load(source + left)
        var r1 = load(source + left + stepX)
        var r2 = load(source + left + 2 * stepX)
        var r3 = load(source + left + 3 * stepX)
        var r4 = load(source + left + 4 * stepX)
        var r5 = load(source + left + 5 * stepX)
        var r6 = load(source + left + 6 * stepX)
        var r7 = load(source + left + 7 * stepX)
        @inline(__always) func swap(_ a: inout UInt64, _ b: inout UInt64, shift: UInt64, mask: UInt64) {
            let t = ((a >> shift) ^ b) & mask
            a ^= t << shift
            b ^= t
        }
        swap(&r0, &r4, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
        swap(&r1, &r5, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
        swap(&r2, &r6, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
        swap(&r3, &r7, shift: 32, mask: 0x0000_0000_FFFF_FFFF)
        swap(&r0, &r2, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
        swap(&r1, &r3, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
        swap(&r4, &r6, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
        swap(&r5, &r7, shift: 16, mask: 0x0000_FFFF_0000_FFFF)
        swap(&r0, &r1, shift: 8, mask: 0x00FF_00FF_00FF_00FF)
        swap(&r2, &r3, shift: 8, mask: 0x00FF_00FF_00FF_00FF)
        swap(&r4, &r5, shift: 8, mask: 0x00FF_00FF_00FF_00FF)
        swap(&r6, &r7, shift: 8, mask: 0x00FF_00FF_00FF_00FF)
        // Word k now holds source column k, read down the source rows: target row y + k, or
        // y + 7 - k when the columns run backwards.
        @inline(__always) func store(_ word: UInt64, column k: Int) {
            let targetRow = stepY > 0 ? y + k : y + 7 - k
            UnsafeMutableRawPointer(target.row(targetRow) + x).storeBytes(of: word, as: UInt64.self)
        }
        store(r0, column: 0)
        store(r1, column: 1)
        store(r2, column: 2)
        store(r3, column: 3)
        store(r4, column: 4)
        store(r5, column: 5)
        store(r6, column: 6)
        store(r7, column: 7)
    }

    @inline(__always) private static func load(_ pointer: UnsafeMutablePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
    }
}

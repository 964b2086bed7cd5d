// Structure-aware mutations of a GIF for the fuzz test: the blocks are found by a walk of their
// own (not giflib's), and a mutation aims at the logical screen, the colour tables, the Graphic
// Control Extension, an image descriptor's place, size and flags, the LZW code size and codes,
// the sub-block lengths, or the frame count (a frame repeated or removed, the trailer cut).

/// Where a GIF's blocks are.
struct GIFBlocks {
    /// The global colour table's bytes (empty when none).
    var globalTable: Range<Int> = 0..<0
    /// Each image: its descriptor's offset, its local table, the LZW code size byte's offset,
    /// its sub-blocks' length bytes, and the whole block to the end of its data.
    var images: [(descriptor: Int, table: Range<Int>, codeSize: Int, lengths: [Int], block: Range<Int>)] = []
    /// Each extension: its offset, label and the whole block.
    var extensions: [(offset: Int, label: UInt8, block: Range<Int>)] = []

    init(_ bytes: [UInt8]) {
        guard bytes.count >= 13 else { return }
        func table(_ flags: UInt8, at start: Int) -> Range<Int> {
            flags & 0x80 == 0 ? start..<start : start..<min(bytes.count, start + 3 * (2 << Int(flags & 7)))
        }
        globalTable = table(bytes[10], at: 13)
        var offset = globalTable.upperBound
        func subBlocks(from start: Int) -> (lengths: [Int], end: Int) {
            var position = start
            var lengths: [Int] = []
            while position < bytes.count, bytes[position] != 0, lengths.count < 100_000 {
                lengths.append(position)
                position += Int(bytes[position]) + 1
            }
            return (lengths, min(bytes.count, position + 1))
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x21 where offset + 2 < bytes.count:
                let end = subBlocks(from: offset + 2).end
                extensions.append((offset, bytes[offset + 1], offset..<end))
                offset = end
            case 0x2C where offset + 10 < bytes.count:
                let local = table(bytes[offset + 9], at: offset + 10)
                let codeSize = local.upperBound
                let (lengths, end) = subBlocks(from: codeSize + 1)
                images.append((offset, local, codeSize, lengths, offset..<end))
                offset = end
            default:
                return
            }
        }
    }
}

/// One way to damage a GIF, chosen by the seeded generator.
enum GIFMutation {
    static let sizes = [0, 1, 2, 255, 256, 0x7FFF, 0xFFFF]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> ByteEdit {
        let blocks = GIFBlocks(bytes)
        let image = blocks.images.randomElement(using: &random)
        func anywhere() -> Int { Int.random(in: 0..<max(1, bytes.count), using: &random) }
        func size() -> [UInt8] {
            let value =
                Bool.random(using: &random)
                ? sizes.randomElement(using: &random)! : Int.random(in: 0...0xFFFF, using: &random)
            return ByteEdit.little(value, 2)
        }
        switch Int.random(in: 0..<16, using: &random) {
        case 0:
            return .truncate(length: anywhere())
        case 1:
            let count = Int.random(in: 1...4, using: &random)
            return .flip((0..<count).map { _ in (anywhere(), UInt8.random(in: 1...255, using: &random)) })
        case 2:  // the logical screen's width or height
            return .write(what: "screen size", offset: 6 + 2 * Int.random(in: 0...1, using: &random), bytes: size())
        case 3:  // the screen's flags: the global table's presence and size, the background index
            return .write(
                what: "screen flags", offset: 10 + Int.random(in: 0...1, using: &random),
                bytes: [UInt8.random(in: 0...255, using: &random)])
        case 4:  // a colour table's entries
            let table = Bool.random(using: &random) ? blocks.globalTable : image?.table ?? blocks.globalTable
            guard !table.isEmpty else { return .truncate(length: anywhere()) }
            return .write(
                what: "palette", offset: Int.random(in: table, using: &random),
                bytes: (0..<Int.random(in: 1...12, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
                })
        case 5, 6:  // an image's left, top, width or height
            guard let image else { return .truncate(length: anywhere()) }
            return .write(
                what: "image descriptor", offset: image.descriptor + 1 + 2 * Int.random(in: 0...3, using: &random),
                bytes: size())
        case 7:  // an image's flags: local table, interlace, table size
            guard let image else { return .truncate(length: anywhere()) }
            return .write(
                what: "image flags", offset: image.descriptor + 9, bytes: [UInt8.random(in: 0...255, using: &random)])
        case 8:  // the LZW minimum code size
            guard let image else { return .truncate(length: anywhere()) }
            return .write(
                what: "LZW code size", offset: image.codeSize, bytes: [UInt8.random(in: 0...15, using: &random)])
        case 9, 10:  // LZW codes inside a sub-block
            guard let image, let length = image.lengths.randomElement(using: &random), bytes[length] > 0 else {
                return .truncate(length: anywhere())
            }
            let count = Int.random(in: 1...3, using: &random)
            return .flip(
                (0..<count).map { _ in
                    (
                        length + Int.random(in: 1...Int(bytes[length]), using: &random),
                        UInt8.random(in: 1...255, using: &random)
                    )
                })
        case 11:  // a sub-block's length
            guard let image, let length = image.lengths.randomElement(using: &random) else {
                return .truncate(length: anywhere())
            }
            return .write(what: "sub-block length", offset: length, bytes: [UInt8.random(in: 0...255, using: &random)])
        case 12:  // the Graphic Control Extension: disposal, transparency flag, index
            guard let control = blocks.extensions.first(where: { $0.label == 0xF9 }), control.block.count >= 8 else {
                return .truncate(length: anywhere())
            }
            return .write(
                what: "graphic control", offset: control.offset + 3 + 3 * Int.random(in: 0...1, using: &random),
                bytes: [UInt8.random(in: 0...255, using: &random)])
        case 13:  // more frames: the first image repeated
            guard let image = blocks.images.first else { return .truncate(length: anywhere()) }
            return .repeatRange(what: "first image", range: image.block, times: Int.random(in: 1...40, using: &random))
        case 14:  // fewer frames, or an extension gone
            let removable =
                blocks.images.map { ("image", $0.block) } + blocks.extensions.map { ("extension", $0.block) }
            guard let (what, block) = removable.randomElement(using: &random) else {
                return .truncate(length: anywhere())
            }
            return .remove(what: what, range: block)
        default:  // cut inside the first image's data: a frame that stops short
            guard let image = blocks.images.first, image.block.count > 12 else { return .truncate(length: anywhere()) }
            return .truncate(length: Int.random(in: image.block.lowerBound..<image.block.upperBound, using: &random))
        }
    }
}

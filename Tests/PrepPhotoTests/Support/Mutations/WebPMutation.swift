// Structure-aware mutations of a WebP file for the fuzz test: the RIFF chunks are found by a walk
// of their own (not libwebp's), inside ANMF frames too, and a mutation aims at the RIFF size, a
// chunk's size, the VP8X flags and canvas, a VP8 or VP8L header's size fields, the ALPH header,
// an ANMF frame's place, size and flags, the ANIM fields, or the chunk count (a frame repeated,
// a chunk removed, metadata chunks damaged inside).

/// Where a WebP file's chunks are: each one's header offset, FourCC and payload.
struct WebPChunks {
    var chunks: [(header: Int, fourCC: String, payload: Range<Int>)] = []

    init(_ bytes: [UInt8]) {
        walk(bytes, from: 12, to: bytes.count, depth: 0)
    }

    private mutating func walk(_ bytes: [UInt8], from start: Int, to end: Int, depth: Int) {
        var offset = start
        while offset + 8 <= end {
            let fourCC = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let size = bytes[(offset + 4)..<(offset + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let payload = (offset + 8)..<min(end, offset + 8 + size)
            chunks.append((offset, fourCC, payload))
            if fourCC == "ANMF", depth == 0, payload.count > 16 {
                walk(bytes, from: payload.lowerBound + 16, to: payload.upperBound, depth: 1)
            }
            offset = payload.upperBound + (size & 1)
        }
    }

    func random(_ fourCC: String, using random: inout SplitMix64) -> (header: Int, payload: Range<Int>)? {
        chunks.filter { $0.fourCC == fourCC }.randomElement(using: &random).map { ($0.header, $0.payload) }
    }
}

/// One way to damage a WebP file, chosen by the seeded generator.
enum WebPMutation {
    static let sizes = [0, 1, 2, 0x3FFF, 0x4000, 0xFFFF, 0xFF_FFFF]

    static func random(for bytes: [UInt8], using random: inout SplitMix64) -> ByteEdit {
        let walk = WebPChunks(bytes)
        func anywhere() -> Int { Int.random(in: 0..<max(1, bytes.count), using: &random) }
        func anyByte() -> UInt8 { UInt8.random(in: 0...255, using: &random) }
        func value(_ size: Int) -> [UInt8] {
            let limit = (1 << (8 * size)) - 1
            let choice =
                Bool.random(using: &random)
                ? min(limit, sizes.randomElement(using: &random)!) : Int.random(in: 0...limit, using: &random)
            return ByteEdit.little(choice, size)
        }
        let fallback = ByteEdit.truncate(length: anywhere())
        switch Int.random(in: 0..<16, using: &random) {
        case 0:
            return fallback
        case 1:
            let count = Int.random(in: 1...4, using: &random)
            return .flip((0..<count).map { _ in (anywhere(), UInt8.random(in: 1...255, using: &random)) })
        case 2:  // the RIFF size
            let sizes = [0, 4, bytes.count - 8, bytes.count, 0x7FFF_FFFF, 0xFFFF_FFFF]
            return .write(what: "RIFF size", offset: 4, bytes: ByteEdit.little(sizes.randomElement(using: &random)!, 4))
        case 3:  // a chunk's size
            guard let chunk = walk.chunks.randomElement(using: &random) else { return fallback }
            let sizes = [0, 1, chunk.payload.count - 1, chunk.payload.count + 1, 0xFFFF_FFF6, Int(UInt32.max)]
            return .write(
                what: "\(chunk.fourCC) size", offset: chunk.header + 4,
                bytes: ByteEdit.little(sizes.randomElement(using: &random)!, 4))
        case 4:  // VP8X: its flags (ICC, alpha, EXIF, XMP, animation)
            guard let vp8x = walk.random("VP8X", using: &random) else { return fallback }
            return .write(what: "VP8X flags", offset: vp8x.payload.lowerBound, bytes: [anyByte()])
        case 5:  // VP8X: the canvas's width or height less one, 24 bits
            guard let vp8x = walk.random("VP8X", using: &random) else { return fallback }
            return .write(
                what: "VP8X canvas", offset: vp8x.payload.lowerBound + 4 + 3 * Int.random(in: 0...1, using: &random),
                bytes: value(3))
        case 6:  // VP8: the key frame's 14-bit width or height and its scale
            guard let vp8 = walk.random("VP8 ", using: &random), vp8.payload.count >= 10 else { return fallback }
            return .write(
                what: "VP8 size", offset: vp8.payload.lowerBound + 6 + 2 * Int.random(in: 0...1, using: &random),
                bytes: value(2))
        case 7:  // VP8: the frame tag (key frame, version, partition size) or the start code
            guard let vp8 = walk.random("VP8 ", using: &random), vp8.payload.count >= 10 else { return fallback }
            return .write(
                what: "VP8 frame tag", offset: vp8.payload.lowerBound + Int.random(in: 0...5, using: &random),
                bytes: [anyByte()])
        case 8:  // VP8L: the signature, or the packed width, height, alpha and version
            guard let vp8l = walk.random("VP8L", using: &random), vp8l.payload.count >= 5 else { return fallback }
            return .write(
                what: "VP8L header", offset: vp8l.payload.lowerBound + Int.random(in: 0...4, using: &random),
                bytes: [anyByte()])
        case 9:  // ALPH: compression, filtering, pre-processing; or its data
            guard let alph = walk.random("ALPH", using: &random), !alph.payload.isEmpty else { return fallback }
            let offset =
                Bool.random(using: &random) ? alph.payload.lowerBound : Int.random(in: alph.payload, using: &random)
            return .write(what: "ALPH", offset: offset, bytes: [anyByte()])
        case 10:  // ANMF: the frame's x, y, width, height (24 bits each), duration or flags
            guard let frame = walk.random("ANMF", using: &random), frame.payload.count >= 16 else { return fallback }
            let field = Int.random(in: 0...5, using: &random)
            return .write(
                what: "ANMF field \(field)", offset: frame.payload.lowerBound + 3 * field,
                bytes: field == 5 ? [anyByte()] : value(3))
        case 11:  // ANIM: the background colour or the loop count
            guard let anim = walk.random("ANIM", using: &random), anim.payload.count >= 6 else { return fallback }
            return .write(
                what: "ANIM", offset: anim.payload.lowerBound + Int.random(in: 0...5, using: &random),
                bytes: [anyByte()])
        case 12:  // more frames or chunks: one repeated (and the RIFF size left as it was)
            guard let chunk = walk.chunks.randomElement(using: &random) else { return fallback }
            let end = min(bytes.count, chunk.payload.upperBound + (chunk.payload.count & 1))
            return .repeatRange(
                what: chunk.fourCC, range: chunk.header..<end, times: Int.random(in: 1...40, using: &random))
        case 13:  // a chunk gone
            guard let chunk = walk.chunks.randomElement(using: &random) else { return fallback }
            return .remove(what: chunk.fourCC, range: chunk.header..<chunk.payload.upperBound)
        case 14:  // inside a metadata chunk: the TIFF structure of EXIF, the ICC profile, the XMP
            let metadata = walk.chunks.filter { ["EXIF", "ICCP", "XMP "].contains($0.fourCC) && !$0.payload.isEmpty }
            guard let chunk = metadata.randomElement(using: &random) else { return fallback }
            let count = Int.random(in: 1...4, using: &random)
            return .flip((0..<count).map { _ in (Int.random(in: chunk.payload, using: &random), anyByte() | 1) })
        default:  // cut inside the image data
            let image = walk.chunks.filter { ["VP8 ", "VP8L", "ALPH"].contains($0.fourCC) && $0.payload.count > 2 }
            guard let chunk = image.randomElement(using: &random) else { return fallback }
            return .truncate(length: Int.random(in: chunk.payload, using: &random))
        }
    }
}

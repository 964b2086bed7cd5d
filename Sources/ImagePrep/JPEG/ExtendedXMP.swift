/// The Extended XMP of a JPEG (Adobe's XMP Specification Part 3, 1.1.3.1): what did not fit in the
/// primary XMP's APP1, in APP1 segments of its own, each `http://ns.adobe.com/xmp/extension/\0`,
/// the 32-digit GUID that the primary XMP names in `xmpNote:HasExtendedXMP`, the whole packet's
/// length and this chunk's offset in it (both 32-bit, big-endian), then the chunk.
///
/// Photo editors (Lightroom, Photoshop) write an Ultra HDR photo's `hdrgm:Version` and container
/// directory there; five of the six Ultra HDR photos of Google's Android samples are so.
///
/// Reassembled bounded: the chunks of that GUID, in any order, must fill the length they all
/// declare exactly once (no gap, no overlap), and it at most `maximumLength`. A chunk of another
/// GUID is another packet's (an earlier edit's) and is left out; a packet that misses a chunk
/// is refused, the photo's own XMP still read.
enum ExtendedXMP {
    static let signature: [UInt8] = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    /// What comes before a chunk's bytes: the signature, the GUID, the length and the offset.
    static let headerLength = signature.count + 32 + 4 + 4
    /// More than this is no XMP a photo needs read (a JPEG's own XMP holds 64 KB).
    static let maximumLength = 16 << 20

    /// The GUID the primary XMP `xmp` names, when it names one as the specification writes it:
    /// 32 hexadecimal digits.
    static func guid(in xmp: [UInt8]) -> [UInt8]? {
        guard let said = XMPText.values(of: "xmpNote:HasExtendedXMP", in: xmp).first else { return nil }
        let digits = Array(said.utf8)
        let hex = Set("0123456789ABCDEFabcdef".utf8)
        return digits.count == 32 && digits.allSatisfy(hex.contains) ? digits : nil
    }

    /// The packet whose GUID is `guid`, reassembled from the APP1 segments of `layout`.
    ///
    /// - Returns: why it cannot be: no chunk of it, chunks that disagree on its length, a length
    ///   over `maximumLength`, a chunk outside it, two that overlap, or one missing.
    static func packet(guid: [UInt8], in bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> Result<
        [UInt8], GainMapProblem
    > {
        var chunks: [(offset: Int, data: Range<Int>)] = []
        var declared: Int?
        for segment in layout.segments
        where segment.marker == JPEGSegment.app1 && bytes.hasPrefix(signature, at: segment.payload) {
            let start = segment.payload.lowerBound
            let header = ByteReader(bytes, range: segment.payload)
            guard segment.payload.count >= headerLength,
                bytes.hasPrefix(guid, at: (start + signature.count)..<segment.payload.upperBound),
                let length = header.uint32(at: start + signature.count + 32).map(Int.init),
                let offset = header.uint32(at: start + signature.count + 36).map(Int.init)
            else { continue }
            guard declared == nil || declared == length else {
                return .failure(.extendedXMP("its parts disagree on its length"))
            }
            declared = length
            chunks.append((offset, (start + headerLength)..<segment.payload.upperBound))
        }
        guard let declared else { return .failure(.extendedXMP("no part of it is in the file")) }
        guard declared <= maximumLength else {
            return .failure(.extendedXMP("it declares \(declared) bytes, more than the \(maximumLength) read"))
        }
        chunks.sort { $0.offset < $1.offset }
        var filled = 0
        for chunk in chunks {
            guard chunk.offset <= filled else { return .failure(.extendedXMP("a part of it is missing")) }
            guard chunk.offset == filled else { return .failure(.extendedXMP("two of its parts overlap")) }
            guard chunk.data.count <= declared - filled else {
                return .failure(.extendedXMP("a part of it runs past the length it declares"))
            }
            filled += chunk.data.count
        }
        guard filled == declared else { return .failure(.extendedXMP("a part of it is missing")) }
        var packet: [UInt8] = []
        packet.reserveCapacity(declared)
        for chunk in chunks { packet += UnsafeRawBufferPointer(rebasing: bytes[chunk.data]) }
        return .success(packet)
    }
}

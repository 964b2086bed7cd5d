#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The MP Index of an MPF APP2 segment (CIPA DC-007): where each image of a multi-picture JPEG
/// lies. Ultra HDR puts its gain map there as the second image, after the primary's EOI.
///
/// Read defensively: every offset and count is the file's own number, checked against the
/// segment before it is followed, and nothing is followed twice (the index is one IFD; its
/// next-IFD pointer, which could loop, is never read).
struct MPFIndex: Equatable, Sendable {
    /// One image of the file.
    struct Entry: Equatable, Sendable {
        /// The individual image attribute: flags, format (0 for JPEG) and type.
        let attribute: UInt32
        /// Its length in bytes.
        let size: Int
        /// Where it starts, from `origin`; 0 for the primary, which starts at the file's SOI.
        let offset: Int
    }

    /// Every image the index lists, in its order.
    let entries: [Entry]
    /// Where the offsets are counted from in the file: the TIFF header after `MPF\0`.
    let origin: Int

    static let signature: [UInt8] = Array("MPF\0".utf8)
    /// More images than a phone writes (Ultra HDR has two; cameras add a few previews): a longer
    /// list is refused rather than walked.
    static let maximumEntries = 16
    /// The MP entry's format bits (CIPA DC-007 5.2.3.3.1): 0 for JPEG.
    static let formatMask: UInt32 = 0x0700_0000
    /// The attribute of a baseline MP primary image, as libultrahdr writes it.
    static let primaryAttribute: UInt32 = 0x0003_0000

    /// The index in the MPF segment `segment` of `bytes`, or why it cannot be used.
    static func read(_ segment: JPEGSegment, in bytes: UnsafeRawBufferPointer) -> Result<MPFIndex, GainMapProblem> {
        let payload = segment.payload
        let origin = payload.lowerBound + signature.count
        guard payload.count >= signature.count + 8 else { return .failure(.malformedIndex("it ends in its header")) }
        let byteOrder: ByteReader.ByteOrder
        switch (bytes[origin], bytes[origin + 1]) {
        case (0x4D, 0x4D): byteOrder = .bigEndian
        case (0x49, 0x49): byteOrder = .littleEndian
        default: return .failure(.malformedIndex("its byte order is neither II nor MM"))
        }
        let reader = ByteReader(bytes, range: origin..<payload.upperBound, byteOrder: byteOrder)
        /// The unsigned number of `width` bytes at `offset` from the origin, if it lies inside the
        /// segment.
        func number(at offset: Int, width: Int) -> Int? { reader.uint(at: origin + offset, size: width).map(Int.init) }
        guard number(at: 2, width: 2) == 42, let ifd = number(at: 4, width: 4),
            let fieldCount = number(at: ifd, width: 2)
        else { return .failure(.malformedIndex("its TIFF header or IFD lies outside the segment")) }
        var imageCount: Int?
        var entriesAt: Int?
        var entriesLength: Int?
        // An IFD in a 64 KiB segment holds fewer than 5,500 fields; a count past that is a lie
        // that the bounds check below stops at its first field outside.
        for field in 0..<fieldCount {
            let at = ifd + 2 + field * 12
            guard let tag = number(at: at, width: 2), let count = number(at: at + 4, width: 4),
                let value = number(at: at + 8, width: 4)
            else { return .failure(.malformedIndex("an IFD field lies outside the segment")) }
            switch tag {
            case 0xB001 where count == 1: imageCount = value
            case 0xB002: (entriesAt, entriesLength) = (value, count)
            default: break
            }
        }
        guard let imageCount, let entriesAt, let entriesLength else {
            return .failure(.malformedIndex("it has no NumberOfImages or no MPEntry"))
        }
        guard imageCount <= maximumEntries else { return .failure(.tooManyImages(imageCount)) }
        guard imageCount >= 2, entriesLength == imageCount * 16 else {
            return .failure(.malformedIndex("it lists \(imageCount) images in \(entriesLength) bytes of entries"))
        }
        var entries: [Entry] = []
        for image in 0..<imageCount {
            let at = entriesAt + image * 16
            guard let attribute = number(at: at, width: 4), let size = number(at: at + 4, width: 4),
                let offset = number(at: at + 8, width: 4)
            else { return .failure(.malformedIndex("an MP entry lies outside the segment")) }
            entries.append(Entry(attribute: UInt32(attribute), size: size, offset: offset))
        }
        return .success(MPFIndex(entries: entries, origin: origin))
    }

    /// The bytes of a two-image index, big-endian as libultrahdr writes it, with every offset and
    /// length zero: `filled(_:primaryLength:gainMapLength:)` writes them once the primary is
    /// encoded. Its length never changes, so the primary's length does not depend on it.
    static let emptyTwoImageSegment: Data = {
        var payload = signature + [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]
        func append(_ value: Int, width: Int) {
            for index in (0..<width).reversed() { payload.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        append(3, width: 2)  // fields
        append(0xB000, width: 2)  // MPFVersion, UNDEFINED[4] "0100"
        append(7, width: 2)
        append(4, width: 4)
        payload += Array("0100".utf8)
        append(0xB001, width: 2)  // NumberOfImages, LONG 2
        append(4, width: 2)
        append(1, width: 4)
        append(2, width: 4)
        append(0xB002, width: 2)  // MPEntry, UNDEFINED[32], right after this IFD
        append(7, width: 2)
        append(32, width: 4)
        append(8 + 2 + 3 * 12 + 4, width: 4)
        append(0, width: 4)  // no next IFD
        append(Int(primaryAttribute), width: 4)
        payload += [UInt8](repeating: 0, count: 12)
        payload += [UInt8](repeating: 0, count: 16)
        return Data(
            [0xFF, JPEGSegment.app2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload)
    }()

    /// Where the primary's length, the gain map's length and its offset sit in
    /// `emptyTwoImageSegment`, counted from the segment's first byte.
    private static let primaryLengthAt = 4 + signature.count + 50 + 4
    private static let gainMapLengthAt = primaryLengthAt + 16
    private static let originInSegment = 4 + signature.count

    /// `upload` with its index filled in for `gainMap` appended right after it, and `gainMap`
    /// appended.
    ///
    /// The index is found by a walk of `upload`'s markers, not by searching for its bytes: the
    /// upload carries the original's EXIF, which could hold the same bytes. Only ours is an APP2
    /// that starts `MPF\0`, since the original's MPF is never carried. Every length fits the
    /// index's 32 bits: TurboJPEG writes no file longer than `Int32.max` (`EncodeBuffer`).
    static func filled(_ upload: Data, appending gainMap: Data) -> Data {
        let segmentStart = upload.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).segments.first {
                $0.marker == JPEGSegment.app2 && bytes.hasPrefix(signature, at: $0.payload)
                    && $0.bytes.count == emptyTwoImageSegment.count
            }?.bytes.lowerBound
        }
        guard let segmentStart, let primaryLength = UInt32(exactly: upload.count),
            let gainMapLength = UInt32(exactly: gainMap.count),
            let gainMapOffset = UInt32(exactly: upload.count - segmentStart - originInSegment)
        else { preconditionFailure("the upload holds our MPF index, and JPEGs shorter than 2 GiB") }
        var file = upload
        func write(_ value: UInt32, at offset: Int) {
            for index in 0..<4 {
                file[file.startIndex + segmentStart + offset + index] = UInt8(
                    truncatingIfNeeded: value >> (8 * (3 - index)))
            }
        }
        write(primaryLength, at: primaryLengthAt)
        write(gainMapLength, at: gainMapLengthAt)
        write(gainMapOffset, at: gainMapLengthAt + 4)
        file.append(gainMap)
        return file
    }
}

/// The boxes of a HEIF file (ISO/IEC 14496-12 4.2): a size, a type and a payload, nested in
/// their parent, each checked against the bytes that hold it.
extension HEIFContainer {
    /// One box: its type, its payload, and whether all of it is in the file.
    struct Box {
        let type: FourCC
        let payload: Range<Int>
        let isComplete: Bool
        /// Where its type is written in the file.
        let typeOffset: Int
    }

    /// The boxes that fill `range`. Only the last top-level box may run past the end of a
    /// truncated file; a box inside another must fit in its parent.
    static func boxes(
        in range: Range<Int>, of bytes: UnsafeRawBufferPointer, allowingTruncatedLast: Bool = false
    ) throws(Problem) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        let reader = ByteReader(bytes)
        while offset < range.upperBound {
            guard found.count < maxEntries else { throw .malformed("it holds far more boxes than a photo has") }
            guard range.upperBound - offset >= 8, let size32 = reader.uint(at: offset, size: 4),
                let type = reader.uint(at: offset + 4, size: 4)
            else {
                if allowingTruncatedLast { break }
                throw .malformed("a box is cut short inside another")
            }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = reader.uint(at: offset + 8, size: 8), range.upperBound - offset >= 16 else {
                    throw .truncated("the file ends inside a box header")
                }
                header = 16
                size = large > UInt64(Int.max / 2) ? Int.max / 2 : Int(large)
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= header else { throw .malformed("a box declares a size smaller than its own header") }
            let end = offset.addingReportingOverflow(size)
            let isComplete = !end.overflow && end.partialValue <= range.upperBound
            if !isComplete && !allowingTruncatedLast { throw .malformed("a box runs past the end of the box it is in") }
            let payloadEnd = isComplete ? end.partialValue : range.upperBound
            found.append(
                Box(
                    type: FourCC(value: UInt32(type)), payload: (offset + header)..<payloadEnd, isComplete: isComplete,
                    typeOffset: offset + 4))
            guard isComplete else { break }
            offset = end.partialValue
        }
        return found
    }
}

/// A HEIF box's fields, read as libheif reads them: a field cut short refuses the file.
extension ByteReader {
    /// The next `size` bytes (0, 1, 2, 4 or 8) as a big-endian number.
    mutating func field(_ size: Int) throws(HEIFContainer.Problem) -> UInt64 {
        do { return try read(size) } catch { throw .malformed("a box is cut short") }
    }

    /// A full box's version and flags.
    mutating func fullBoxHeader() throws(HEIFContainer.Problem) -> (version: UInt64, flags: UInt32) {
        let word = try field(4)
        return (word >> 24, UInt32(word & 0xFF_FFFF))
    }
}

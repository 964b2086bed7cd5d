// TEMPORARY local stand-in until the metadata branch lands. Not committed.
enum EXIFReader {
    static func metadata(of bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        var orientation: Orientation? = nil
        if let exif = layout.exifSegment(in: bytes) {
            // crude scan for orientation tag 0x0112 in IFD0
            let t = exif.payload.lowerBound + 6
            let be = bytes[t] == 0x4D
            func r16(_ o: Int) -> Int { be ? Int(bytes[t+o]) << 8 | Int(bytes[t+o+1]) : Int(bytes[t+o+1]) << 8 | Int(bytes[t+o]) }
            func r32(_ o: Int) -> Int { be ? r16(o) << 16 | r16(o+2) : r16(o+2) << 16 | r16(o) }
            let ifd = r32(4)
            if t + ifd + 2 < exif.payload.upperBound {
                let n = r16(ifd)
                for i in 0..<n { let e = ifd + 2 + i*12; if t + e + 12 > exif.payload.upperBound { break }; if r16(e) == 0x0112 { orientation = Orientation(rawValue: r16(e+8)) } }
            }
        }
        return (PhotoMetadata(originalSize: layout.frame?.size ?? PixelSize(width: 0, height: 0), orientation: orientation), [])
    }
}

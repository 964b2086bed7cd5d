/// Names what a file that no source prepares is, from its first bytes, so that the error can say
/// "a TIFF image, which this version does not prepare yet" or "it looks like a PDF document"
/// instead of "bad marker".
enum FileSignature {
    /// The image format the bytes are, when it is one this version knows and does not prepare.
    static func unsupportedFormat(of bytes: UnsafeRawBufferPointer) -> UnsupportedFormat? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool { bytes.starts(prefix, at: offset) }
        // Raw formats first: most are TIFF underneath, and some say so only after the header.
        if starts(Array("FUJIFILMCCD-RAW".utf8)) || starts(Array("ftypcrx ".utf8), at: 4)
            || starts(Array("IIRO".utf8)) || starts(Array("IIRS".utf8)) || starts(Array("MMOR".utf8))
            || starts(Array("IIU\u{0}".utf8)) || starts(Array("II*\u{0}".utf8)) && starts(Array("CR".utf8), at: 8)
        {
            return .cameraRaw
        }
        // TIFF (42) and BigTIFF (43), in either byte order.
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) {
            return isDNG(bytes) ? .cameraRaw : .tiff
        }
        if starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jpegXL }
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return .jpeg2000 }
        if starts(Array("8BPS".utf8)) { return .psd }
        // "BM", then the file's size and two reserved zero words (a text that starts "BM" has no zeros).
        if starts(Array("BM".utf8)), bytes.count >= 14, bytes[6] == 0, bytes[7] == 0, bytes[8] == 0, bytes[9] == 0 {
            return .bmp
        }
        return nil
    }

    /// Whether a classic TIFF's first directory has DNGVersion (tag 50706), which every DNG has.
    private static func isDNG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let tiff = TIFFBlock(bytes), let entries = tiff.entries(ofIFDAt: tiff.ifd0Offset) else { return false }
        return entries.contains { $0.tag == 0xC612 }
    }

    /// What bytes that are no image format this version knows look like.
    static func describe(_ bytes: UnsafeRawBufferPointer) -> String {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool { bytes.starts(prefix, at: offset) }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "a PNG image" }
        if starts(Array("GIF8".utf8)) { return "a GIF image" }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return "a WebP image" }
        // One that names a HEIF brand is read as HEIF (HEIFContainer.hasSignature).
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            return "an ISO media file ('\(brand)')"
        }
        if starts(Array("%PDF".utf8)) { return "a PDF document" }
        let head = bytes.prefix(64)
        if !head.isEmpty,
            head.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20...0x7E).contains($0) || $0 >= 0x80 })
        {
            return "text"
        }
        if starts([0xFF, 0xD8]) { return "a JPEG without its markers" }
        let hex = bytes.prefix(4).map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "data starting with \(hex.joined(separator: " ")), where a JPEG starts with FF D8"
    }
}

extension UnsafeRawBufferPointer {
    /// Whether `prefix` is here at `offset`, with the bounds checked.
    fileprivate func starts(_ prefix: [UInt8], at offset: Int) -> Bool {
        offset <= count && hasPrefix(prefix, at: offset..<count)
    }
}

/// Names what a file that no source prepares looks like, from its first bytes, so that the error
/// can say "it looks like a PDF document" instead of "bad marker".
enum FileSignature {
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

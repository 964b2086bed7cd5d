/// The metadata a PNG carries in its text chunks (tEXt, zTXt, iTXt, inflated by libspng): XMP
/// under `XML:com.adobe.xmp`, and the EXIF and XMP that ImageMagick writes as a "raw profile",
/// hexadecimal text under `Raw profile type exif` (or `APP1`) and `Raw profile type xmp`.
struct PNGTextMetadata {
    /// A TIFF block, or one that starts `Exif\0\0`, from a raw profile.
    var exif: [UInt8]?
    var xmp: [UInt8]?

    /// Takes one text chunk; the first of each kind wins.
    mutating func take(keyword: String, text: UnsafeRawBufferPointer) {
        switch keyword {
        case "XML:com.adobe.xmp":
            if xmp == nil { xmp = Array(text) }
        case "Raw profile type xmp":
            if xmp == nil { xmp = Self.rawProfile(text) }
        case "Raw profile type exif", "Raw profile type APP1":
            if exif == nil { exif = Self.rawProfile(text) }
        default:
            break
        }
    }

    /// The bytes of ImageMagick's raw profile text: a line feed, the profile's name, a line
    /// with its length in bytes, then that many bytes as hexadecimal digits broken into lines.
    /// Nil when the text is not in that form or holds fewer digits than its length says.
    static func rawProfile(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var index = text.startIndex
        func skip(while test: (UInt8) -> Bool) {
            while index < text.endIndex, test(text[index]) { index += 1 }
        }
        skip { $0 == 0x0A }
        skip { $0 != 0x0A }  // The name.
        skip { $0 == 0x0A || $0 == 0x20 }
        var length = 0
        while index < text.endIndex, let digit = decimal(text[index]) {
            length = length * 10 + digit
            guard length <= text.count / 2 else { return nil }  // More bytes than the text can hold.
            index += 1
        }
        guard length > 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        var high: UInt8?
        while index < text.endIndex, bytes.count < length {
            let character = text[index]
            index += 1
            if character == 0x0A || character == 0x0D || character == 0x20 { continue }
            guard let nibble = hex(character) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes.count == length ? bytes : nil
    }

    private static func decimal(_ character: UInt8) -> Int? {
        (0x30...0x39).contains(character) ? Int(character - 0x30) : nil
    }

    private static func hex(_ character: UInt8) -> UInt8? {
        switch character {
        case 0x30...0x39: character - 0x30
        case 0x61...0x66: character - 0x61 + 10
        case 0x41...0x46: character - 0x41 + 10
        default: nil
        }
    }
}

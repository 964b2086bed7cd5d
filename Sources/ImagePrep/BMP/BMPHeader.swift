/// A BMP file's headers, every field validated before a pixel is read: the sizes, the palette
/// within the file, masks that are contiguous runs of bits, and the pixel data's start.
struct BMPHeader {
    enum Compression: UInt32 {
        case none = 0
        case rle8 = 1
        case rle4 = 2
        case bitFields = 3
        case jpeg = 4
        case png = 5
        case alphaBitFields = 6
    }

    /// One channel's mask: where its bits are and how many.
    struct Channel {
        let shift: Int
        let bits: Int

        init?(mask: UInt32) {
            guard mask != 0 else { return nil }
            shift = mask.trailingZeroBitCount
            let run = mask >> UInt32(shift)
            bits = run & (run &+ 1) == 0 ? run.nonzeroBitCount : 0
        }
    }

    let size: PixelSize
    /// Whether the first row stored is the bottom one (a positive height).
    let isBottomUp: Bool
    let bitsPerPixel: Int
    let compression: Compression
    /// The palette as RGB triples, for 1, 4 and 8 bits a pixel; at least one entry.
    let palette: [UInt8]
    /// Red, green, blue and alpha masks for 16 and 32 bits a pixel.
    let channels: [Channel?]
    let pixelOffset: Int
    /// The bytes of one stored row, padded to 4.
    let stride: Int
    /// The embedded ICC profile of a V5 header.
    let iccProfile: Range<Int>?

    static let headerSizes: Set<Int> = [12, 40, 52, 56, 64, 108, 124]

    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 18 && bytes[0] == 0x42 && bytes[1] == 0x4D && headerSizes.contains(Int(read32(bytes, 14)))
    }

    /// The little-endian field at `offset`; 0 past the end.
    private static func read32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        ByteReader(bytes, byteOrder: .littleEndian).uint32(at: offset) ?? 0
    }

    private static func read16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt16 {
        ByteReader(bytes, byteOrder: .littleEndian).uint16(at: offset) ?? 0
    }

    /// Reads and checks the headers.
    ///
    /// - Throws: `.corruptBMP` naming the field that is wrong; `.unsupportedBMP` for an embedded
    ///   JPEG or PNG.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        func corrupt(_ detail: String) -> ImagePrepError { .corruptBMP(file: file, detail: detail) }
        let headerSize = Int(Self.read32(bytes, 14))
        guard Self.headerSizes.contains(headerSize), 14 + headerSize <= bytes.count else {
            throw corrupt("its header is cut short or of an unknown kind")
        }
        let width: Int
        let height: Int
        if headerSize == 12 {  // OS/2 1.x BITMAPCOREHEADER.
            width = Int(Self.read16(bytes, 18))
            height = Int(Self.read16(bytes, 20))
            bitsPerPixel = Int(Self.read16(bytes, 24))
            compression = .none
        } else {
            width = Int(Int32(bitPattern: Self.read32(bytes, 18)))
            height = Int(Int32(bitPattern: Self.read32(bytes, 22)))
            bitsPerPixel = Int(Self.read16(bytes, 28))
            guard let kind = Compression(rawValue: Self.read32(bytes, 30)) else {
                throw corrupt("its compression is of an unknown kind")
            }
            compression = kind
        }
        if compression == .jpeg || compression == .png {
            throw .unsupportedBMP(
                file: file, reason: "its pixels are an embedded \(compression == .jpeg ? "JPEG" : "PNG") image")
        }
        guard width > 0, height != 0, height != Int(Int32.min) else {
            throw corrupt("its header gives a size of \(width) by \(height) pixels")
        }
        size = PixelSize(width: width, height: abs(height))
        isBottomUp = height > 0
        let valid: Bool
        switch compression {
        case .none: valid = [1, 4, 8, 16, 24, 32].contains(bitsPerPixel)
        case .rle8: valid = bitsPerPixel == 8 && isBottomUp
        case .rle4: valid = bitsPerPixel == 4 && isBottomUp
        case .bitFields, .alphaBitFields: valid = bitsPerPixel == 16 || bitsPerPixel == 32
        case .jpeg, .png: valid = false
        }
        guard valid else {
            throw corrupt("its header pairs \(bitsPerPixel) bits a pixel with a compression that does not take them")
        }
        stride = (width * bitsPerPixel + 31) / 32 * 4

        // Masks: inside a header of 52 bytes or more, else the 12 or 16 bytes after a 40-byte one.
        var masks: [UInt32]
        var afterHeader = 14 + headerSize
        switch (compression, bitsPerPixel) {
        case (.bitFields, _), (.alphaBitFields, _):
            let count = compression == .alphaBitFields || headerSize >= 56 ? 4 : 3
            let start = headerSize >= 52 ? 54 : afterHeader
            masks = (0..<count).map { Self.read32(bytes, start + $0 * 4) }
            if headerSize < 52 { afterHeader += count * 4 }
            if count == 3 { masks.append(0) }
        case (_, 16): masks = [0x7C00, 0x03E0, 0x001F, 0]
        case (_, 32), (_, 24): masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0]
        default: masks = []
        }
        channels = masks.map { Channel(mask: $0) }
        if !masks.isEmpty {
            let widths = channels.prefix(3).map { $0?.bits ?? 0 }
            guard widths.allSatisfy({ $0 > 0 }), channels[3].map({ $0.bits > 0 }) ?? true else {
                throw corrupt("its colour masks are empty or not runs of bits")
            }
        }

        let declaredOffset = Int(Self.read32(bytes, 10))
        guard declaredOffset >= afterHeader, declaredOffset < bytes.count else {
            throw corrupt("its pixel data starts outside the file or inside its headers")
        }
        pixelOffset = declaredOffset

        // The palette lies between the headers and the pixels; it is cut to what fits there.
        if bitsPerPixel <= 8 {
            let entrySize = headerSize == 12 ? 3 : 4
            let declared = headerSize == 12 ? 0 : Int(Self.read32(bytes, 46))
            let maximum = 1 << bitsPerPixel
            let count = min(
                declared == 0 || declared > maximum ? maximum : declared, (pixelOffset - afterHeader) / entrySize)
            guard count > 0 else { throw corrupt("it has no colour palette") }
            var palette = [UInt8](repeating: 0, count: maximum * 3)
            for index in 0..<count {
                let entry = afterHeader + index * entrySize
                palette[index * 3] = bytes[entry + 2]
                palette[index * 3 + 1] = bytes[entry + 1]
                palette[index * 3 + 2] = bytes[entry]
            }
            self.palette = palette
        } else {
            palette = []
        }

        // A V5 header's embedded profile ('MBED'): its offset counts from the header's start.
        if headerSize == 124, Self.read32(bytes, 14 + 56) == 0x4D42_4544 {
            let start = 14 + Int(Self.read32(bytes, 14 + 112))
            let length = Int(Self.read32(bytes, 14 + 116))
            iccProfile = length > 0 && start <= bytes.count - length ? start..<(start + length) : nil
        } else {
            iccProfile = nil
        }
    }

    /// Whether its pixels carry alpha: a non-empty alpha mask with 16 or 32 bits a pixel.
    var hasAlpha: Bool { channels.count == 4 && channels[3] != nil }
}

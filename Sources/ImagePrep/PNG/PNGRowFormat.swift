internal import CSPNG

/// How a PNG's rows are asked of libspng and handed to the upload: in the layout the upload
/// takes where libspng writes it (8-bit gray, RGB, RGBA), else wide (RGBA8, RGBA16) and narrowed
/// a row at a time, so that a gray PNG stays gray and 16-bit samples are rounded, not truncated
/// (libspng 0.7's RGBA8 keeps the high byte, a bias of half a level).
struct PNGRowFormat {
    /// What libspng decodes to (`SPNG_FMT_*`).
    let decodeFormat: Int32
    /// Bytes of one decoded pixel.
    let decodedPixelBytes: Int
    /// What the upload takes.
    let layout: RowStreamUpload.PixelLayout
    /// Whether decoded rows need narrowing into `layout` (else they are pushed as they are).
    var isNarrowed: Bool { decodedPixelBytes != layout.rawValue }

    /// The format for a PNG of IHDR `colorType` and `bitDepth`, `hasTransparency` when it has a tRNS chunk.
    init(colorType: UInt8, bitDepth: UInt8, hasTransparency: Bool) {
        let isGray = colorType == 0 || colorType == 4
        let hasAlpha = colorType == 4 || colorType == 6 || hasTransparency
        layout =
            switch (isGray, hasAlpha) {
            case (true, false): .gray
            case (true, true): .grayAlpha
            case (false, false): .rgb
            case (false, true): .rgba
            }
        if bitDepth == 16 {
            (decodeFormat, decodedPixelBytes) = (Int32(SPNG_FMT_RGBA16.rawValue), 8)
        } else {
            switch layout {
            case .gray: (decodeFormat, decodedPixelBytes) = (Int32(SPNG_FMT_G8.rawValue), 1)
            case .rgb: (decodeFormat, decodedPixelBytes) = (Int32(SPNG_FMT_RGB8.rawValue), 3)
            case .grayAlpha, .rgba: (decodeFormat, decodedPixelBytes) = (Int32(SPNG_FMT_RGBA8.rawValue), 4)
            }
        }
    }

    /// Copies `width` decoded pixels into `row` in `layout`, 16-bit samples rounded to 8 bits.
    func narrow(_ decoded: UnsafeRawPointer, width: Int, into row: UnsafeMutablePointer<UInt8>) {
        let channels: [Int] =
            switch layout {
            case .gray: [0]
            case .grayAlpha: [0, 3]
            case .rgb: [0, 1, 2]
            case .rgba: [0, 1, 2, 3]
            }
        let count = channels.count
        if decodedPixelBytes == 8 {
            let samples = decoded.assumingMemoryBound(to: UInt16.self)
            for x in 0..<width {
                for (index, channel) in channels.enumerated() {
                    // v * 255 / 65535, rounded to the nearest level.
                    row[x * count + index] = UInt8((UInt32(samples[x * 4 + channel]) * 255 + 32767) / 65535)
                }
            }
        } else {
            let samples = decoded.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                for (index, channel) in channels.enumerated() {
                    row[x * count + index] = samples[x * 4 + channel]
                }
            }
        }
    }
}

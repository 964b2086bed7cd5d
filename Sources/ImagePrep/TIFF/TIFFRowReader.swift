internal import CTIFF

/// The first page's rows, decoded by libtiff top to bottom in their stored order and pushed into
/// the upload as 8-bit samples; never more than a strip's or a tile row's worth held at once.
struct TIFFRowReader {
    let layout: TIFFImageLayout
    let upload: RowStreamUpload
    let cancellation: PreparationCancellation
    let file: String

    /// A band of rows (a tile row or a strip, 4 bytes a pixel through the RGBA reader) or a tile
    /// is refused above this.
    static let maxBandBytes = 128 << 20

    /// Reads the stored rows (`layout.isRowConvertible`): scanline by scanline from strips, a row
    /// of tiles at a time from tiles (`readTileRows`); a CMYK photo goes through its profile when
    /// `cmykProfile` is given, else through the plain inversion peers use.
    ///
    /// - Returns: whether every row the upload needs was decoded, and a warning about the colours.
    func readRows(_ handle: borrowing TIFFHandle, cmykProfile: ICCProfile?) throws(ImagePrepError) -> (
        isComplete: Bool, warning: PhotoWarning?
    ) {
        if layout.photometric == PHOTOMETRIC_YCBCR { _ = ctiff_set_jpeg_rgb(handle.tiff) }
        let width = layout.size.width
        let samples = layout.photometric == PHOTOMETRIC_YCBCR ? 3 : layout.samplesPerPixel
        let pushed = layout.pushedLayout.rawValue
        // A CMYK row is converted behind itself: 4 samples, then the 3 they become.
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: width * max(pushed, 7))
        defer { row.deallocate() }
        row.initialize(repeating: 0, count: width * max(pushed, 7))
        let palette = self.palette(handle)
        if layout.photometric == PHOTOMETRIC_PALETTE && palette == nil { return (false, nil) }
        let transform = cmykProfile.flatMap { ColorConverter.cmykTransform(for: $0, isInverted: false) }
        let warning =
            cmykProfile != nil && transform == nil
            ? PhotoWarning(.colorProfile, "the CMYK ICC profile could not be used; colours are approximate.") : nil
        // 8-bit samples that are already the pushed layout's go to the upload as libtiff gives them.
        let isAsStored =
            layout.bitsPerSample == 8 && samples == pushed && !layout.alpha.isAssociated
            && [PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_RGB, PHOTOMETRIC_YCBCR].contains(layout.photometric)
        let push = { (scanline: UnsafeMutableRawPointer) in
            if isAsStored {
                upload.push(scanline.assumingMemoryBound(to: UInt8.self))
                return
            }
            convert(scanline, samples: samples, palette: palette, into: row)
            if layout.photometric == PHOTOMETRIC_SEPARATED {
                if let transform {
                    transform.apply(row, into: row + width * 4, count: width)
                    (row + width * 4).withMemoryRebound(to: UInt8.self, capacity: width * 3) {
                        row.update(from: $0, count: width * 3)
                    }
                } else {
                    _ = ColorConverter.convertCMYK(row, into: row, count: width, isInverted: false, profile: nil)
                }
            }
            upload.push(row)
        }
        // The bytes of one stored row, its samples packed as the file packs them.
        let rowBytes = (width * samples * layout.bitsPerSample + 7) / 8
        let isComplete =
            layout.isTiled
            ? try readTileRows(handle, rowBytes: rowBytes, samples: samples, push: push)
            : try readScanlines(handle, rowBytes: rowBytes, push: push)
        return (isComplete, warning)
    }

    /// Strips, read scanline by scanline into `push`.
    private func readScanlines(
        _ handle: borrowing TIFFHandle, rowBytes: Int, push: (UnsafeMutableRawPointer) -> Void
    ) throws(ImagePrepError) -> Bool {
        let scanlineSize = Int(clamping: TIFFScanlineSize64(handle.tiff))
        guard scanlineSize > 0, scanlineSize >= rowBytes else { return false }
        guard scanlineSize <= Self.maxBandBytes else {
            throw .unsupportedTIFF(
                file: file,
                reason:
                    "a row of its \(layout.samplesPerPixel) samples a pixel takes more than \(Self.maxBandBytes >> 20) MB"
            )
        }
        let scanline = UnsafeMutableRawPointer.allocate(byteCount: scanlineSize, alignment: 8)
        defer { scanline.deallocate() }
        // A damaged strip may leave part of a scanline unwritten: what shows there is never
        // another photo's memory.
        scanline.initializeMemory(as: UInt8.self, repeating: 0, count: scanlineSize)
        var y = 0
        while y < layout.size.height && upload.needsRows {
            if y % 64 == 0 { try cancellation.check(file: file) }
            guard TIFFReadScanline(handle.tiff, scanline, UInt32(y), 0) == 1 else { return false }
            push(scanline)
            y += 1
        }
        return true
    }

    /// Reads through libtiff's RGBA reader, a band of rows at a time: a row of tiles, or a strip.
    ///
    /// - Returns: whether every row the upload needs was decoded; nil when libtiff's RGBA reader
    ///   does not take the photo, with its reason in our words.
    func readRGBABands(_ handle: borrowing TIFFHandle) throws(ImagePrepError) -> Bool? {
        var image = TIFFRGBAImage()
        var message = [CChar](repeating: 0, count: 1024)
        guard ctiff_rgba_begin(&image, handle.tiff, &message) == 1 else { return nil }
        defer { TIFFRGBAImageEnd(&image) }
        let width = layout.size.width
        let bandHeight = max(1, min(layout.isTiled ? layout.tileSize.height : layout.rowsPerStrip, layout.size.height))
        guard width * 4 <= Self.maxBandBytes / bandHeight else {
            throw .unsupportedTIFF(
                file: file,
                reason:
                    "its \(layout.isTiled ? "tiles" : "strips") are too large to decode within the limit of \(Self.maxBandBytes >> 20) MB"
            )
        }
        let raster = UnsafeMutablePointer<UInt32>.allocate(capacity: width * bandHeight)
        defer { raster.deallocate() }
        raster.initialize(repeating: 0, count: width * bandHeight)
        var y = 0
        while y < layout.size.height && upload.needsRows {
            try cancellation.check(file: file)
            let rows = min(bandHeight, layout.size.height - y)
            guard ctiff_rgba_rows(&image, raster, UInt32(y), UInt32(rows)) == 1 else { return false }
            // ABGR in a 32-bit word: R, G, B, A in memory on a little-endian machine, with
            // colours premultiplied by alpha, which the upload takes straight.
            let bytes = UnsafeMutableRawPointer(raster).assumingMemoryBound(to: UInt8.self)
            for band in 0..<rows {
                let row = bytes + band * width * 4
                Self.unpremultiply(row, count: width)
                upload.push(row)
            }
            y += rows
        }
        return true
    }

    /// The colormap as 8-bit RGB triples; nil for a palette photo whose colormap is missing.
    private func palette(_ handle: borrowing TIFFHandle) -> [UInt8]? {
        guard layout.photometric == PHOTOMETRIC_PALETTE else { return nil }
        var red: UnsafeMutablePointer<UInt16>?
        var green: UnsafeMutablePointer<UInt16>?
        var blue: UnsafeMutablePointer<UInt16>?
        guard ctiff_get_colormap(handle.tiff, &red, &green, &blue) == 1, let red, let green, let blue else {
            return nil
        }
        let count = 1 << layout.bitsPerSample
        // Some writers store 8-bit values in the 16-bit colormap, as libtiff's own reader allows.
        let isEightBit = (0..<count).allSatisfy { red[$0] < 256 && green[$0] < 256 && blue[$0] < 256 }
        let scale = { (value: UInt16) in UInt8(isEightBit ? value : value >> 8) }
        var triples = [UInt8](repeating: 0, count: 256 * 3)
        for index in 0..<count {
            triples[index * 3] = scale(red[index])
            triples[index * 3 + 1] = scale(green[index])
            triples[index * 3 + 2] = scale(blue[index])
        }
        return triples
    }

    /// One scanline as 8-bit samples of `pushedLayout`, or as CMYK for a separated photo.
    private func convert(
        _ scanline: UnsafeMutableRawPointer, samples: Int, palette: [UInt8]?, into row: UnsafeMutablePointer<UInt8>
    ) {
        let width = layout.size.width
        let bits = layout.bitsPerSample
        let kept = layout.photometric == PHOTOMETRIC_SEPARATED ? 4 : layout.pushedLayout.rawValue
        let colors = layout.colorSamples
        let isInverted = layout.photometric == PHOTOMETRIC_MINISWHITE
        if layout.photometric == PHOTOMETRIC_PALETTE, let palette {
            let bytes = scanline.assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                let index = Int(Self.sample(bytes, index: x * samples, bits: bits))
                row[x * 3] = palette[index * 3]
                row[x * 3 + 1] = palette[index * 3 + 1]
                row[x * 3 + 2] = palette[index * 3 + 2]
            }
            return
        }
        let maximum = (1 << min(bits, 8)) - 1
        for x in 0..<width {
            for channel in 0..<kept {
                let index = x * samples + channel
                var value: Int
                switch bits {
                case 16: value = Int(scanline.load(fromByteOffset: index * 2, as: UInt16.self) >> 8)
                case 8: value = Int(scanline.load(fromByteOffset: index, as: UInt8.self))
                default:
                    value = Int(Self.sample(scanline.assumingMemoryBound(to: UInt8.self), index: index, bits: bits))
                    value = value * 255 / maximum
                }
                if isInverted && channel < colors { value = 255 - value }
                row[x * kept + channel] = UInt8(value)
            }
        }
        if layout.alpha.isAssociated && kept > colors { Self.unpremultiply(row, count: width, channels: kept) }
    }

    /// The `index`th sample of `bits` bits (1, 2, 4 or 8), packed from the high bit down.
    private static func sample(_ bytes: UnsafePointer<UInt8>, index: Int, bits: Int) -> UInt8 {
        guard bits < 8 else { return bytes[index] }
        let bit = index * bits
        return (bytes[bit / 8] >> (8 - bits - bit % 8)) & UInt8((1 << bits) - 1)
    }

    /// Straight colours from premultiplied ones, where a pixel is partly transparent.
    private static func unpremultiply(_ row: UnsafeMutablePointer<UInt8>, count: Int, channels: Int = 4) {
        for x in 0..<count {
            let pixel = row + x * channels
            let alpha = Int(pixel[channels - 1])
            guard alpha != 255, alpha != 0 else { continue }
            for channel in 0..<(channels - 1) {
                pixel[channel] = UInt8(min(255, (Int(pixel[channel]) * 255 + alpha / 2) / alpha))
            }
        }
    }
}

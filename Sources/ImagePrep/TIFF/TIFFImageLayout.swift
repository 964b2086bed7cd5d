internal import CTIFF

/// How the first page's pixels are stored, as libtiff read it from the directory.
struct TIFFImageLayout {
    let size: PixelSize
    let bitsPerSample: Int
    let samplesPerPixel: Int
    let photometric: Int32
    let isContiguous: Bool
    let compression: Int32
    let isTiled: Bool
    let rowsPerStrip: Int
    let tileSize: PixelSize
    /// Whether the sample after the colour ones is alpha, and whether it is premultiplied.
    let alpha: (isPresent: Bool, isAssociated: Bool)
    let inkSet: Int32

    init?(_ handle: borrowing TIFFHandle) {
        guard let width = handle.u32(TIFFTAG_IMAGEWIDTH), let height = handle.u32(TIFFTAG_IMAGELENGTH) else {
            return nil
        }
        size = PixelSize(width: Int(width), height: Int(height))
        bitsPerSample = Int(handle.u16(TIFFTAG_BITSPERSAMPLE) ?? 1)
        samplesPerPixel = Int(handle.u16(TIFFTAG_SAMPLESPERPIXEL) ?? 1)
        // A missing Photometric is black-is-zero, as libtiff's own reader takes it for one sample.
        photometric = Int32(handle.u16(TIFFTAG_PHOTOMETRIC, defaulted: false) ?? UInt16(PHOTOMETRIC_MINISBLACK))
        isContiguous = (handle.u16(TIFFTAG_PLANARCONFIG) ?? 1) == UInt16(PLANARCONFIG_CONTIG)
        compression = Int32(handle.u16(TIFFTAG_COMPRESSION) ?? 1)
        isTiled = TIFFIsTiled(handle.tiff) != 0
        rowsPerStrip = Int(min(handle.u32(TIFFTAG_ROWSPERSTRIP) ?? height, height))
        tileSize = PixelSize(
            width: Int(handle.u32(TIFFTAG_TILEWIDTH) ?? 0), height: Int(handle.u32(TIFFTAG_TILELENGTH) ?? 0))
        var extraCount: UInt16 = 0
        var extraTypes: UnsafeMutablePointer<UInt16>?
        if ctiff_get_extra_samples(handle.tiff, &extraCount, &extraTypes) == 1, extraCount > 0, let extraTypes {
            alpha = (true, Int32(extraTypes[0]) == EXTRASAMPLE_ASSOCALPHA)
        } else {
            alpha = (false, false)
        }
        inkSet = Int32(handle.u16(TIFFTAG_INKSET) ?? UInt16(INKSET_CMYK))
    }

    /// The colour samples of a pixel, alpha and any other extra samples left out.
    var colorSamples: Int {
        switch photometric {
        case PHOTOMETRIC_MINISWHITE, PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_PALETTE: 1
        case PHOTOMETRIC_SEPARATED: 4
        default: 3
        }
    }

    /// Whether the stored rows can be read here (a scanline at a time from strips, a row of
    /// tiles at a time from tiles) and turned into 8-bit samples: the common photometrics, with
    /// the samples of a pixel together, and tiles a multiple of 16 pixels wide as the format asks
    /// (so that tiles side by side meet on a byte). The rest (planes apart, odd tiles, CIELab,
    /// YCbCr other than JPEG's) goes through libtiff's RGBA reader, which is slower: it turns
    /// every pixel into 32 bits through a callback of its own.
    var isRowConvertible: Bool {
        guard isContiguous, samplesPerPixel >= colorSamples else { return false }
        guard !isTiled || (tileSize.width > 0 && tileSize.width % 16 == 0 && tileSize.height > 0) else {
            return false
        }
        switch photometric {
        case PHOTOMETRIC_MINISWHITE, PHOTOMETRIC_MINISBLACK, PHOTOMETRIC_PALETTE:
            return [1, 2, 4, 8, 16].contains(bitsPerSample)
                && (photometric != PHOTOMETRIC_PALETTE || bitsPerSample <= 8)
        case PHOTOMETRIC_RGB:
            return bitsPerSample == 8 || bitsPerSample == 16
        case PHOTOMETRIC_SEPARATED:
            return inkSet == INKSET_CMYK && (bitsPerSample == 8 || bitsPerSample == 16)
        case PHOTOMETRIC_YCBCR:
            // libtiff's JPEG codec hands the YCbCr over as RGB (JPEGCOLORMODE_RGB).
            return compression == COMPRESSION_JPEG && bitsPerSample == 8 && samplesPerPixel == 3
        default:
            return false
        }
    }

    /// What the rows pushed to the upload hold.
    var pushedLayout: RowStreamUpload.PixelLayout {
        let isGray = photometric == PHOTOMETRIC_MINISWHITE || photometric == PHOTOMETRIC_MINISBLACK
        let hasAlpha = alpha.isPresent && samplesPerPixel > colorSamples && photometric != PHOTOMETRIC_SEPARATED
        switch (isGray, hasAlpha) {
        case (true, false): return .gray
        case (true, true): return .grayAlpha
        case (false, false): return .rgb
        case (false, true): return .rgba
        }
    }
}

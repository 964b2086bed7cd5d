import CJXL
import COpenJPEG
import CRaw
import CSPNG
import CTIFF

/// The floors of the still formats: each decoder driven as ImagePrep drives it, with the
/// decoded pixels dropped.
extension DecodeFloor {
    static func decodePNG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let context = spng_ctx_new(0) else { return false }
        defer { spng_ctx_free(context) }
        spng_set_png_buffer(context, bytes.baseAddress, bytes.count)
        var header = spng_ihdr()
        guard spng_get_ihdr(context, &header) == 0 else { return false }
        let hasAlpha = header.color_type == 4 || header.color_type == 6 || header.color_type == 3
        let format = hasAlpha ? SPNG_FMT_RGBA8 : SPNG_FMT_RGB8
        let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
        guard spng_decode_image(context, nil, 0, Int32(format.rawValue), flags) == 0 else { return false }
        var row = [UInt8](repeating: 0, count: Int(header.width) * (hasAlpha ? 4 : 3))
        while true {
            let code = spng_decode_row(context, &row, row.count)
            if code == Int32(SPNG_EOI.rawValue) { return true }
            guard code == 0 else { return false }
        }
    }

    static func decodeTIFF(_ path: String) -> Bool {
        guard let tiff = TIFFOpen(path, "r") else { return false }
        defer { TIFFClose(tiff) }
        var photometric: UInt16 = 0
        if ctiff_get_u16(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric) == 1,
            Int32(photometric) == PHOTOMETRIC_YCBCR
        {
            _ = ctiff_set_jpeg_rgb(tiff)
        }
        var height: UInt32 = 0
        _ = ctiff_get_u32(tiff, UInt32(TIFFTAG_IMAGELENGTH), &height)
        let isTiled = TIFFIsTiled(tiff) != 0
        let size = Int(clamping: isTiled ? TIFFTileSize64(tiff) : TIFFScanlineSize64(tiff))
        guard size > 0 else { return false }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        let count = isTiled ? TIFFNumberOfTiles(tiff) : height
        for index in 0..<count {
            let read =
                isTiled
                ? TIFFReadEncodedTile(tiff, index, buffer, tmsize_t(size)) >= 0
                : TIFFReadScanline(tiff, buffer, index, 0) == 1
            guard read else { return false }
        }
        return true
    }

    static func decodeJXL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let decoder = JxlDecoderCreate(nil) else { return false }
        defer { JxlDecoderDestroy(decoder) }
        guard let runner = JxlThreadParallelRunnerCreate(nil, 2) else { return false }
        defer { JxlThreadParallelRunnerDestroy(runner) }
        let events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FULL_IMAGE.rawValue
        guard JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner) == JXL_DEC_SUCCESS,
            JxlDecoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count)
                == JXL_DEC_SUCCESS
        else { return false }
        JxlDecoderCloseInput(decoder)
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        while true {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                var info = JxlBasicInfo()
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { return false }
                format.num_channels = (info.num_color_channels == 1 ? 1 : 3) + (info.alpha_bits > 0 ? 1 : 0)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                let drop: JxlImageOutCallback = { _, _, _, _, _ in }
                guard JxlDecoderSetImageOutCallback(decoder, &format, drop, nil) == JXL_DEC_SUCCESS else {
                    return false
                }
            case JXL_DEC_FULL_IMAGE: return true
            default: return false
            }
        }
    }

    static func decodeJPEG2000(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var source = copj_source(
            bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: UInt64(bytes.count), position: 0,
            errors: 0)
        let isJP2 = bytes.count > 4 && bytes[4] == 0x6A  // "jP  " box
        return withUnsafeMutablePointer(to: &source) { source in
            guard let codec = copj_decoder(isJP2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K, source) else { return false }
            defer { opj_destroy_codec(codec) }
            guard let stream = copj_stream(source) else { return false }
            defer { opj_stream_destroy(stream) }
            var image: UnsafeMutablePointer<opj_image_t>?
            guard opj_read_header(stream, codec, &image) != 0, let image else { return false }
            defer { opj_image_destroy(image) }
            // ImagePrep's reduction: the smallest level whose sides are still at least the upload's.
            let width = Int(image.pointee.x1 - image.pointee.x0)
            let height = Int(image.pointee.y1 - image.pointee.y0)
            let scale = min(1, 2048 / Double(max(width, height)))
            let needed = (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
            let levels = max(0, Int(copj_resolution_count(codec)) - 1)
            var reduction = 0
            while reduction < levels, (width + (2 << reduction) - 1) >> (reduction + 1) >= needed.0,
                (height + (2 << reduction) - 1) >> (reduction + 1) >= needed.1
            {
                reduction += 1
            }
            return opj_set_decoded_resolution_factor(codec, UInt32(reduction)) != 0
                && opj_decode(codec, stream, image) != 0 && opj_end_decompress(codec, stream) != 0
        }
    }

    static func decodeRaw(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var report = craw_report()
        return withUnsafeMutablePointer(to: &report) { report in
            guard let raw = craw_open(report) else { return false }
            defer { libraw_close(raw) }
            guard libraw_open_buffer(raw, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count) == 0
            else { return false }
            let width = Int(craw_width(raw))
            let height = Int(craw_height(raw))
            let scale = min(1, 2048 / Double(max(width, height, 1)))
            let isHalf =
                craw_filters(raw) != 0 && Double(width / 2) >= Double(width) * scale
                && Double(height / 2) >= Double(height) * scale
            craw_set_output(raw, isHalf ? 1 : 0)
            guard libraw_unpack(raw) == 0, libraw_dcraw_process(raw) == 0 else { return false }
            var status: Int32 = 0
            guard let image = libraw_dcraw_make_mem_image(raw, &status) else { return false }
            libraw_dcraw_clear_mem(image)
            return true
        }
    }
}

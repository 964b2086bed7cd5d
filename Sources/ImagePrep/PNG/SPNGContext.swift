internal import CSPNG

/// One libspng decoding context over a PNG's bytes, with its limits set; the context's only owner.
///
/// libspng reports every error by return code (no longjmp), so Swift drives it directly.
struct SPNGContext: ~Copyable {
    /// The most bytes one ancillary chunk may hold (an iCCP, a text, an eXIf): a photo's are well
    /// under a megabyte; libspng refuses a longer one before reading it.
    static let chunkSizeLimit = 8 << 20
    /// The most bytes libspng keeps for all ancillary chunks together, inflated text and
    /// profiles included: what bounds a zTXt or iCCP zlib stream that inflates without end.
    static let chunkCacheLimit = 32 << 20

    let handle: OpaquePointer

    /// A context reading `bytes`, which must outlive it; nil when libspng cannot allocate one.
    init?(_ bytes: UnsafeRawBufferPointer, maxSide: Int) {
        guard let handle = spng_ctx_new(0), let base = bytes.baseAddress else { return nil }
        self.handle = handle
        spng_set_png_buffer(handle, base, bytes.count)
        let side = UInt32(clamping: maxSide)
        spng_set_image_limits(handle, side, side)
        spng_set_chunk_limits(handle, Self.chunkSizeLimit, Self.chunkCacheLimit)
        // A damaged ancillary chunk (text, profile, EXIF) costs only itself, as with libpng.
        spng_set_crc_action(handle, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_DISCARD.rawValue))
    }

    deinit { spng_ctx_free(handle) }

    /// libspng's text for one of its error codes: a fixed sentence with no value from the file.
    static func message(_ code: Int32) -> String {
        String(cString: spng_strerror(code))
    }

    /// Whether `code` is libspng's refusal at the image size limit set here.
    static func isSizeLimit(_ code: Int32) -> Bool {
        code == Int32(SPNG_EUSER_WIDTH.rawValue) || code == Int32(SPNG_EUSER_HEIGHT.rawValue)
    }
}

internal import CHeif

/// A libde265 decoder for one coded HEVC image, with one owner, driven exactly as libheif 1.15's
/// plugin drives it, so that every picture, damaged or not, comes out as libheif's own decode of
/// it: a fresh decoder with one worker thread for each image (nothing of one tile reaches the
/// next: a damaged tile cannot borrow an earlier tile's parameter sets or pictures), the
/// configuration's NAL units and then the data, each behind a 4-byte length, and every picture
/// the decode gives, of which libheif keeps the last.
struct HEVCDecoder: ~Copyable {
    private let context: UnsafeMutableRawPointer
    private let libde265: Libde265

    /// Nil when libde265 cannot make a decoder.
    init?(_ libde265: Libde265) {
        guard let context = libde265.de265_new_decoder() else { return nil }
        // As libheif: what it decodes with one worker thread is what the photo must show.
        _ = libde265.de265_start_worker_threads(context, 1)
        self.context = context
        self.libde265 = libde265
    }

    deinit { _ = libde265.de265_free_decoder(context) }

    /// Hands the decoder the image's parameter sets and data: the NAL units of its `hvcC` box,
    /// then those of its data, each behind a 4-byte big-endian length.
    ///
    /// - Returns: false when the data ends inside a length or a NAL unit, which libheif refuses.
    func push(parameterSets: [UnsafeRawBufferPointer], data: UnsafeRawBufferPointer) -> Bool {
        for unit in parameterSets { push(unit) }
        var offset = 0
        while offset < data.count {
            guard data.count - offset >= 4 else { return false }
            let length = (0..<4).reduce(0) { $0 << 8 | Int(data[offset + $1]) }
            offset += 4
            guard length <= data.count - offset else { return false }
            push(UnsafeRawBufferPointer(rebasing: data[offset..<(offset + length)]))
            offset += length
        }
        return true
    }

    /// One NAL unit; libde265 passes over one shorter than its 2-byte header.
    private func push(_ unit: UnsafeRawBufferPointer) {
        _ = libde265.de265_push_NAL(context, unit.baseAddress, Int32(unit.count), 0, nil)
    }

    /// Decodes what was pushed, handing each picture to `body` as it comes (a picture is only
    /// valid inside the call); stops at the decoder's first error, as libheif does.
    ///
    /// - Returns: how many pictures there were; libheif refuses an image that gives none.
    func decode(_ body: (borrowing HEVCPicture) -> Void) -> Int {
        _ = libde265.de265_flush_data(context)
        var count = 0
        var more: Int32 = 1
        while more != 0 {
            more = 0
            guard libde265.de265_decode(context, &more) == DE265_OK else { break }
            guard let image = libde265.de265_get_next_picture(context) else { continue }
            body(HEVCPicture(image: image, libde265: libde265))
            libde265.de265_release_next_picture(context)
            count += 1
        }
        return count
    }
}

/// A picture libde265 decoded, valid only while `HEVCDecoder.decode` hands it over.
struct HEVCPicture: ~Copyable {
    let image: OpaquePointer
    let libde265: Libde265

    /// The picture's size, after its conformance window.
    var size: PixelSize { size(of: 0) }

    /// Channel 0 is Y, 1 Cb and 2 Cr.
    func size(of channel: Int32) -> PixelSize {
        PixelSize(
            width: Int(libde265.de265_get_image_width(image, channel)),
            height: Int(libde265.de265_get_image_height(image, channel)))
    }

    var isYCbCr420: Bool { libde265.de265_get_chroma_format(image) == de265_chroma_420 }

    func bitsPerSample(of channel: Int32) -> Int { Int(libde265.de265_get_bits_per_pixel(image, channel)) }

    /// The channel's first sample and the distance between its rows, in bytes.
    func plane(_ channel: Int32) -> (pixels: UnsafePointer<UInt8>, stride: Int)? {
        var stride: Int32 = 0
        guard let pixels = libde265.de265_get_image_plane(image, channel, &stride), stride > 0 else { return nil }
        return (pixels, Int(stride))
    }

    /// The colour description of the stream's VUI (H.273 code points), or what libde265 takes
    /// without one (unspecified, video range): what libheif converts the samples by when the
    /// item has no nclx `colr` box of its own.
    var streamColour: (primaries: Int, transfer: Int, matrix: Int, isFullRange: Bool) {
        (
            Int(libde265.de265_get_image_colour_primaries(image)),
            Int(libde265.de265_get_image_transfer_characteristics(image)),
            Int(libde265.de265_get_image_matrix_coefficients(image)),
            libde265.de265_get_image_full_range_flag(image) != 0
        )
    }
}

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
            guard let length = ByteReader(data).uint32(at: offset).map(Int.init) else { return false }
            offset += 4
            guard length <= data.count - offset else { return false }
            push(UnsafeRawBufferPointer(rebasing: data[offset..<(offset + length)]))
            offset += length
        }
        return true
    }

    /// Hands the decoder a tile of `layout`: its parameter sets, then its data's extents joined.
    func push(_ tile: HEVCTileLayout.Tile, of layout: HEVCTileLayout) -> Bool {
        let bytes = layout.bytes
        let parameterSets = tile.parameterSets.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
        // Phones write a tile's data in one extent: read in place. (A planted `iloc` may give none.)
        if tile.data.count == 1 {
            return push(parameterSets: parameterSets, data: UnsafeRawBufferPointer(rebasing: bytes[tile.data[0]]))
        }
        return tile.data.flatMap { bytes[$0] }.withUnsafeBytes { push(parameterSets: parameterSets, data: $0) }
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

    /// The damage libde265 decoded past (a slice cut short or out of place, a malformed header),
    /// each said once: what it could not decode it leaves as the picture's fill. Its notes on
    /// threads are no damage.
    func damage() -> [HEVCDamage] {
        var found: [HEVCDamage] = []
        // libde265 keeps at most 20 warnings, and says when it dropped more.
        for _ in 0..<32 {
            let code = Int(libde265.de265_get_warning(context).rawValue)
            guard code != 0 else { break }
            if let damage = HEVCDamage(code: code), !found.contains(damage) { found.append(damage) }
        }
        return found
    }
}

/// Damage in a tile's image data that libde265 decoded past, in our own words.
struct HEVCDamage: Equatable, Sendable {
    let clause: String

    /// nil for libde265's notes that are no damage: that it cannot use more threads.
    init?(code: Int) {
        switch code {
        case 1000, 1022: return nil  // No wavefronts to share among threads; fewer threads than asked.
        case 1002, 1017: clause = "a slice of its image data ends before or after its end"
        case 1003, 1004, 1020, 1021, 1033: clause = "a slice of its image data lies outside its picture"
        case 1005, 1006, 1007, 1009, 1010, 1019:
            clause = "a parameter set or slice header of its image data is malformed"
        default: clause = "libde265 met damaged image data and decoded past it"
        }
    }

    /// The photo, prepared all the same (`acceptsIncompleteData`): the damaged part is grey.
    var warning: PhotoWarning {
        PhotoWarning(.incompleteImageData, "part of the picture is missing or damaged and was filled in: \(clause).")
    }

    func error(file: String) -> ImagePrepError { .incompleteImageData(file: file, detail: clause) }
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
    var streamColor: (primaries: Int, transfer: Int, matrix: Int, isFullRange: Bool) {
        (
            Int(libde265.de265_get_image_colour_primaries(image)),
            Int(libde265.de265_get_image_transfer_characteristics(image)),
            Int(libde265.de265_get_image_matrix_coefficients(image)),
            libde265.de265_get_image_full_range_flag(image) != 0
        )
    }
}

/// The H.273 code points libheif 1.15 knows (`heif.h`): its decoder plugin warns of any other
/// that a stream's VUI says.
enum LibheifColorCodes {
    static let primaries: Set<Int> = Set(
        [
            heif_color_primaries_ITU_R_BT_709_5, heif_color_primaries_unspecified,
            heif_color_primaries_ITU_R_BT_470_6_System_M, heif_color_primaries_ITU_R_BT_470_6_System_B_G,
            heif_color_primaries_ITU_R_BT_601_6, heif_color_primaries_SMPTE_240M, heif_color_primaries_generic_film,
            heif_color_primaries_ITU_R_BT_2020_2_and_2100_0, heif_color_primaries_SMPTE_ST_428_1,
            heif_color_primaries_SMPTE_RP_431_2, heif_color_primaries_SMPTE_EG_432_1,
            heif_color_primaries_EBU_Tech_3213_E,
        ].map { Int($0.rawValue) })
    static let transfers: Set<Int> = Set(
        [
            heif_transfer_characteristic_ITU_R_BT_709_5, heif_transfer_characteristic_unspecified,
            heif_transfer_characteristic_ITU_R_BT_470_6_System_M,
            heif_transfer_characteristic_ITU_R_BT_470_6_System_B_G,
            heif_transfer_characteristic_ITU_R_BT_601_6, heif_transfer_characteristic_SMPTE_240M,
            heif_transfer_characteristic_linear, heif_transfer_characteristic_logarithmic_100,
            heif_transfer_characteristic_logarithmic_100_sqrt10, heif_transfer_characteristic_IEC_61966_2_4,
            heif_transfer_characteristic_ITU_R_BT_1361, heif_transfer_characteristic_IEC_61966_2_1,
            heif_transfer_characteristic_ITU_R_BT_2020_2_10bit, heif_transfer_characteristic_ITU_R_BT_2020_2_12bit,
            heif_transfer_characteristic_ITU_R_BT_2100_0_PQ, heif_transfer_characteristic_SMPTE_ST_428_1,
            heif_transfer_characteristic_ITU_R_BT_2100_0_HLG,
        ].map { Int($0.rawValue) })
    static let matrices: Set<Int> = Set(
        [
            heif_matrix_coefficients_RGB_GBR, heif_matrix_coefficients_ITU_R_BT_709_5,
            heif_matrix_coefficients_unspecified, heif_matrix_coefficients_US_FCC_T47,
            heif_matrix_coefficients_ITU_R_BT_470_6_System_B_G, heif_matrix_coefficients_ITU_R_BT_601_6,
            heif_matrix_coefficients_SMPTE_240M, heif_matrix_coefficients_YCgCo,
            heif_matrix_coefficients_ITU_R_BT_2020_2_non_constant_luminance,
            heif_matrix_coefficients_ITU_R_BT_2020_2_constant_luminance, heif_matrix_coefficients_SMPTE_ST_2085,
            heif_matrix_coefficients_chromaticity_derived_non_constant_luminance,
            heif_matrix_coefficients_chromaticity_derived_constant_luminance, heif_matrix_coefficients_ICtCp,
        ].map { Int($0.rawValue) })
}

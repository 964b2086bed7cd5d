internal import CHeif

/// A libheif error, said in our own words.
///
/// libheif's texts carry what it read from the file (sizes, box types, item numbers), so none of
/// them reaches an error or a warning: each is known by its code and subcode (`heif.h`) and said
/// as one clause of the fixed set below. Where one subcode stands for several refusals (its
/// security limits, a reference cycle), the fixed start of libheif's sentence tells them apart;
/// it is matched, never shown.
struct LibheifMessage: Equatable, Sendable {
    enum Effect: Equatable, Sendable {
        /// The file's structure or image data is damaged.
        case corrupt
        /// The file ends before data it points to.
        case truncated
        /// A coding or feature that this libheif cannot decode.
        case unsupported
        /// There is no image to decode.
        case noImage
        /// One of libheif's own security limits.
        case securityLimit(HEIFSecurityLimit)
    }

    let effect: Effect
    /// What went wrong, as a clause that fits after a colon.
    let clause: String

    /// `error` as libheif gave it: its message is read here, while whatever owns it (the
    /// context, the image handle) is still alive.
    init(_ error: heif_error) {
        let code = error.code
        let subcode = error.subcode
        let text = Self.fixedText(of: error)
        if let limit = HEIFSecurityLimit(
            libheifMessage: text, isSecurityLimit: subcode == heif_suberror_Security_limit_exceeded)
        {
            (effect, clause) = (.securityLimit(limit), limit.clause)
        } else if text.contains("Image reference cycle") {
            (effect, clause) = (.corrupt, "its images refer to each other in a loop")
        } else if subcode == heif_suberror_End_of_data || text.contains("a NAL unit size is invalid") {
            // 1.15.1-1+deb12u3 says the second for a NAL length past its data, where the earlier
            // build ran out of data: one outcome on either build.
            (effect, clause) = (.truncated, "the file ends before the data it points to")
        } else if subcode == heif_suberror_No_pitm_box || subcode == heif_suberror_No_or_invalid_primary_item {
            (effect, clause) = (.noImage, "it names no primary image")
        } else if code == heif_error_Unsupported_feature || code == heif_error_Unsupported_filetype {
            let what = Self.unsupported.first { $0.subcode == subcode }?.clause
            (effect, clause) = (.unsupported, what ?? "it uses a feature that libheif 1.15 does not decode")
        } else if code == heif_error_Decoder_plugin_error {
            (effect, clause) = (.corrupt, "the image data does not decode")
        } else if code == heif_error_Memory_allocation_error {
            (effect, clause) = (.unsupported, "libheif could not get the memory to decode it")
        } else {
            let what = Self.malformed.first { $0.subcode == subcode }?.clause
            (effect, clause) = (.corrupt, what ?? "libheif finds it malformed")
        }
    }

    func error(file: String) -> ImagePrepError {
        switch effect {
        case .corrupt: .corruptHEIF(file: file, detail: clause)
        case .truncated: .incompleteImageData(file: file, detail: clause)
        case .unsupported: .unsupportedHEIF(file: file, reason: clause)
        case .noImage: .heifWithoutImage(file: file)
        case .securityLimit(let limit): .heifSecurityLimit(file: file, limit: limit)
        }
    }

    /// The start of libheif's sentence, enough for every phrase `HEIFSecurityLimit` looks for;
    /// read bounded, since nothing says the text ends.
    private static func fixedText(of error: heif_error) -> String {
        guard let message = error.message else { return "" }
        var bytes: [UInt8] = []
        while bytes.count < 256, case let byte = UInt8(bitPattern: message[bytes.count]), byte != 0 {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What a problem that did not stop the decode (libheif's non-strict decoding) costs.
    var warning: PhotoWarning {
        PhotoWarning(.incompleteImageData, "libheif met a problem and decoded the image all the same: \(clause).")
    }

    private static let unsupported: [(subcode: heif_suberror_code, clause: String)] = [
        (heif_suberror_Unsupported_codec, "its image is coded in a way libheif has no decoder for"),
        (heif_suberror_Unsupported_image_type, "its image is of a kind libheif does not decode"),
        (heif_suberror_Unsupported_data_version, "one of its boxes is of a version libheif does not read"),
        (heif_suberror_Unsupported_color_conversion, "its colours cannot be converted to 8-bit RGB"),
        (heif_suberror_Unsupported_item_construction_method, "its image data is stored in a way libheif does not read"),
        (heif_suberror_Unsupported_bit_depth, "its samples have a bit depth libheif does not decode"),
        (heif_suberror_Unsupported_header_compression_method, "its headers are compressed"),
    ]

    private static let malformed: [(subcode: heif_suberror_code, clause: String)] = [
        (heif_suberror_Invalid_box_size, "a box declares a size that does not fit"),
        (heif_suberror_No_ftyp_box, "it has no file type ('ftyp') box"),
        (heif_suberror_No_idat_box, "it points into an item data ('idat') box it does not have"),
        (heif_suberror_No_meta_box, "it has no 'meta' box"),
        (heif_suberror_No_hdlr_box, "it has no handler ('hdlr') box"),
        (heif_suberror_No_hvcC_box, "its HEVC image has no decoder configuration ('hvcC' box)"),
        (heif_suberror_No_av1C_box, "its AV1 image has no decoder configuration ('av1C' box)"),
        (heif_suberror_No_ipco_box, "it has no item properties ('ipco' box)"),
        (heif_suberror_No_ipma_box, "it has no property associations ('ipma' box)"),
        (heif_suberror_No_iloc_box, "it has no item locations ('iloc' box)"),
        (heif_suberror_No_iinf_box, "it has no item list ('iinf' box)"),
        (heif_suberror_No_infe_box, "an item has no entry in the item list"),
        (heif_suberror_No_iprp_box, "it has no item properties ('iprp' box)"),
        (heif_suberror_No_iref_box, "it has no item references ('iref' box) for its grid or overlay"),
        (heif_suberror_No_pict_handler, "its handler is not for pictures"),
        (heif_suberror_Ipma_box_references_nonexisting_property, "an item is given a property that is not there"),
        (heif_suberror_No_properties_assigned_to_item, "an image has no properties"),
        (heif_suberror_No_item_data, "an image has no data"),
        (heif_suberror_Invalid_grid_data, "its grid description is malformed"),
        (heif_suberror_Missing_grid_images, "its grid lacks tiles"),
        (heif_suberror_Invalid_clean_aperture, "its crop ('clap' box) is malformed"),
        (heif_suberror_Invalid_overlay_data, "its overlay description is malformed"),
        (heif_suberror_Overlay_image_outside_of_canvas, "an overlaid image lies outside the canvas"),
        (heif_suberror_Auxiliary_image_type_unspecified, "an auxiliary image does not say what it is"),
        (heif_suberror_Unknown_color_profile_type, "its colour description ('colr' box) is of an unknown type"),
        (heif_suberror_Wrong_tile_image_chroma_format, "its tiles are not all of one chroma format"),
        (heif_suberror_Wrong_tile_image_pixel_depth, "its tiles are not all of one bit depth"),
        (heif_suberror_Invalid_fractional_number, "a fraction in it has a zero denominator"),
        (heif_suberror_Invalid_image_size, "an image has a size of zero"),
        (heif_suberror_Invalid_pixi_box, "its bit depths ('pixi' box) are malformed"),
        (heif_suberror_Unknown_NCLX_color_primaries, "its colour primaries are of an unknown kind"),
        (heif_suberror_Unknown_NCLX_transfer_characteristics, "its transfer curve is of an unknown kind"),
        (heif_suberror_Unknown_NCLX_matrix_coefficients, "its colour matrix is of an unknown kind"),
        (heif_suberror_Nonexisting_item_referenced, "it refers to an item that is not there"),
    ]
}

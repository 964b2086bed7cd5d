extension ImagePrepError {
    /// A stable identifier of the kind of failure, for scripts to match on instead of the
    /// sentence (which may be reworded): `prep-photo --json` puts it in each failed line's
    /// `code`. The values never change meaning; new cases get new values.
    public var code: String {
        switch self {
        case .unreadable: "unreadable"
        case .empty: "empty"
        case .unrecognizedFormat: "unrecognized_format"
        case .unsupportedJPEG: "unsupported"
        case .unsupportedFormat(_, let format): format.code
        case .tooManyPixels: "too_many_pixels"
        case .tooMuchDecoding: "too_much_decoding"
        case .tooManyScans: "too_many_scans"
        case .incompleteImageData: "incomplete"
        case .corruptJPEG: "corrupt"
        case .corruptGIF: "corrupt_gif"
        case .corruptWebP: "corrupt_webp"
        case .corruptHEIF: "corrupt_heif"
        case .unsupportedHEIF: "unsupported_heif"
        case .corruptPNG: "corrupt_png"
        case .unsupportedPNG: "unsupported_png"
        case .heifWithoutImage: "no_image"
        case .heifSecurityLimit(_, let limit): limit.code
        case .heifUnavailable: "heif_unavailable"
        case .corruptTIFF: "corrupt_tiff"
        case .unsupportedTIFF: "unsupported_tiff"
        case .corruptBMP: "corrupt_bmp"
        case .unsupportedBMP: "unsupported_bmp"
        case .corruptJXL: "corrupt_jxl"
        case .corruptJPEG2000: "corrupt_jpeg2000"
        case .corruptPSD: "corrupt_psd"
        case .psdWithoutComposite: "psd_without_composite"
        case .corruptRaw: "corrupt_raw"
        case .tooMuchMemory: "too_much_memory"
        case .encodingFailed: "encoding_failed"
        case .outOfMemory: "out_of_memory"
        case .invalidSetting: "invalid_setting"
        }
    }
}

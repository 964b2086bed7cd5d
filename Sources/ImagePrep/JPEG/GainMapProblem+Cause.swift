extension GainMapProblem {
    /// What stopped a gain map's decode (a JPEG's or a HEIF's), without the file's name (the
    /// warning is already the photo's) and without a library's own text; `otherwise` for the rest.
    static func cause(of error: ImagePrepError, otherwise: String) -> String {
        switch error {
        case .unsupportedJPEG(_, let detail), .corruptJPEG(_, let detail), .incompleteImageData(_, let detail),
            .tooManyScans(_, let detail), .encodingFailed(_, let detail), .corruptHEIF(_, let detail),
            .unsupportedHEIF(_, let detail):
            detail
        case .tooManyPixels(_, let size, let limit): "it declares \(size) pixels, more than the limit of \(limit)"
        case .outOfMemory: "the system would not give the memory to decode it"
        case .heifSecurityLimit(_, let limit): "libheif refuses it at one of its security limits (\(limit.clause))"
        default: otherwise
        }
    }
}

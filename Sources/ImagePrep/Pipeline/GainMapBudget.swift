/// What a gain map may cost beside its photo when it is decoded whole: libheif composes a HEIC's
/// gain map on one canvas (through RGB), and libjpeg holds every DCT coefficient of a progressive
/// JPEG's (2 bytes a sample) whatever the scale. Either is decoded only with at most an eighth of
/// `maxPixels` (26 MP at the defaults; real gain maps are a quarter of their photo or less), else
/// left out with a warning: so a gain map as large as a 200 MP photo, or one tile named 768
/// times, costs no more than the photo's own decode.
enum GainMapBudget {
    /// The most pixels a gain map decoded whole may have.
    static func wholeDecodePixels(maxPixels: Int) -> Int { maxPixels / 8 }

    /// Why a gain map that is decoded whole, with `pixels` pixels (each tile counted as often
    /// as it is used), is not; nil when it fits.
    static func problem(decodingWhole pixels: Int, maxPixels: Int) -> GainMapProblem? {
        let limit = wholeDecodePixels(maxPixels: maxPixels)
        guard pixels > limit else { return nil }
        return .undecodable(
            "it is decoded whole, \(pixels) pixels, more than the \(limit) (an eighth of the pixel limit) "
                + "that a gain map decoded whole may take beside its photo")
    }
}

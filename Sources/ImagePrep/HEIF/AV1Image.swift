/// The primary image when it is one coded AV1 image (`av01`) that ImagePrep decodes itself with
/// dav1d (`HEIFSource.directAV1Upload`): in colour, with no alpha, crop or grid, its data wholly
/// in the file. For anything else it is nil and libheif decodes the photo, as before.
struct AV1Image {
    /// The file the ranges are of, which must outlive the image.
    let bytes: UnsafeRawBufferPointer
    /// The `av1C` box's configOBUs (after its four bytes), which libheif sends before the data.
    let configurationOBUs: Range<Int>
    /// Its data, in the order of its extents.
    let data: [Range<Int>]
    /// Its `ispe`, which the picture must have.
    let size: PixelSize
    /// What its `av1C` says, which the picture must be.
    let format: HEIFContainer.CodedFormat

    /// What libheif's plugin sends dav1d, in order.
    var pieces: [UnsafeRawBufferPointer] {
        ([configurationOBUs] + data).map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }
    }
}

extension HEIFContainer {
    /// The primary image when the direct AV1 decode covers it (`AV1Image`), else nil.
    ///
    /// - Parameter plan: the primary's plan, held to the limits; its turn must be known (no
    ///   crop), since the direct decode leaves the turn to ImagePrep.
    func av1Image(plan: DecodePlan) -> AV1Image? {
        guard let primary, let item = items[primary], item.type == .av01, plan.orientation != nil, !hasAlpha(primary),
            plan.codedImageCount == 1, let format = plan.codedFormat, format.chroma != .monochrome,
            plan.storedSize.width < HEVCTileLayout.libheifMaximumSide,
            plan.storedSize.height < HEVCTileLayout.libheifMaximumSide,
            let configuration = property(.av1C, of: item), configuration.count >= 4, !item.isTruncated,
            item.extents.reduce(0, { $0 + $1.count }) == item.declaredLength
        else { return nil }
        return AV1Image(
            bytes: bytes, configurationOBUs: (configuration.lowerBound + 4)..<configuration.upperBound,
            data: item.extents, size: plan.storedSize, format: format)
    }
}

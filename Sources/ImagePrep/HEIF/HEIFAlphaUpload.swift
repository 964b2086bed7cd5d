internal import CHeif

/// The upload of a HEIF photo with an alpha image (an AVIF sticker, a HEIC saved with
/// transparency): libheif's 8-bit RGBA rows composited over `Configuration.background` on their
/// way to the resamplers (`RowStreamUpload`), as a PNG's or a WebP's are.
///
/// Asked for YCbCr, libheif decodes the alpha image and leaves it out, so a transparent area
/// came out as whatever colour the encoder left under it (black, from heif-enc), where the same
/// picture as a PNG came out over the background.
enum HEIFAlphaUpload {
    /// Decodes the primary as 8-bit RGBA and pushes its rows into `context`'s upload; nil when
    /// libheif gives no such plane of the size it declares (the whole-image path then decodes it).
    ///
    /// - Returns: libheif's decoding warnings (damage it decoded past).
    static func decode(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan, context: PreparationContext,
        uploadSize: PixelSize
    ) throws(ImagePrepError) -> (image: PlanarImage, warnings: [PhotoWarning])? {
        let expected = HEIFDecoder.decodedSize(of: handle, plan: plan)
        let decoded = try HEIFDecoder.decodeImage(
            handle, colorspace: heif_colorspace_RGB, chroma: heif_chroma_interleaved_RGBA,
            appliesTransforms: plan.orientation == nil, file: context.file)
        let size = decoded.size(of: heif_channel_interleaved)
        guard let plane = decoded.plane(heif_channel_interleaved), size.width >= expected.width,
            size.height >= expected.height, plane.stride >= expected.width * 4
        else { return nil }
        let upload = try RowStreamUpload(
            context: context, sourceSize: expected, uploadSize: uploadSize, layout: .rgba)
        for y in 0..<expected.height where upload.needsRows {
            upload.push(plane.pixels + y * plane.stride)
        }
        upload.fillRemainingRows()
        return (upload.finish(), decoded.warnings)
    }
}

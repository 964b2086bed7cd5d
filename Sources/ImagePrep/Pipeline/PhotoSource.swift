/// One input format's decode: it recognises the format by its bytes and hands the copy stage one
/// decoded picture with the metadata its upload carries.
///
/// Adding a format is a new source and its tests, and its line in `PhotoSources.all`
/// (docs/architecture.md, "Adding a format").
protocol PhotoSource: PreparationStage, SendableMetatype {
    /// Whether `bytes` (never empty) are this format, by their content, never by a name.
    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool

    init(context: PreparationContext)

    /// The picture and its metadata; its pixels in `workspace.decoded`, or already at the
    /// upload's size in `DecodedPhoto.stripUpload`.
    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto
}

/// Every format ImagePrep prepares, in the order they are asked whether they recognise a file.
enum PhotoSources {
    /// HEIF first: its `ftyp` box is unambiguous, and a JPEG is anything that starts with FF D8.
    /// Camera raws before TIFF: a DNG, a CR2 or a NEF is a TIFF too.
    static let all: [any PhotoSource.Type] = [
        HEIFSource.self, JPEGSource.self, PNGSource.self, GIFSource.self, WebPSource.self, RawSource.self,
        TIFFSource.self, BMPSource.self, JXLSource.self, JPEG2000Source.self, PSDSource.self,
        RefusedImageSource.self,
    ]

    /// The source that recognises `bytes`, or nil when none does.
    static func source(for bytes: UnsafeRawBufferPointer) -> (any PhotoSource.Type)? {
        all.first { $0.recognizes(bytes) }
    }
}

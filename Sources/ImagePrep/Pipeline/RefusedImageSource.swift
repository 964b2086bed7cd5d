/// Images of formats ImagePrep knows by their first bytes but does not prepare
/// (`UnsupportedFormat.recognized(in:)`): refused with the format named and why, so that a
/// library's such files are reported, never taken for something else nor left out as "not images".
struct RefusedImageSource: PhotoSource {
    let context: PreparationContext

    static func recognizes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        UnsupportedFormat.recognized(in: bytes) != nil
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> DecodedPhoto {
        guard let format = UnsupportedFormat.recognized(in: bytes) else {
            throw .unrecognizedFormat(file: file, detected: FileSignature.describe(bytes))
        }
        throw .unsupportedFormat(file: file, format: format)
    }
}

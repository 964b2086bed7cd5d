/// One photo's preparation from its bytes: the source that recognises them decodes, then the
/// copy stage makes the upload, the display copy and the thumbnail.
struct PhotoPipeline: PreparationStage {
    let context: PreparationContext

    func prepare(_ bytes: UnsafeRawBufferPointer) throws(ImagePrepError) -> PreparedPhoto {
        guard !bytes.isEmpty else { throw .empty(file: file) }
        guard let format = PhotoSources.source(for: bytes) else {
            throw .unrecognizedFormat(file: file, detected: FileSignature.describe(bytes))
        }
        let decoded = try format.init(context: context).decode(bytes)
        var prepared = try CopyStage(context: context).makeCopies(of: decoded)
        prepared.cameraRawPixels = decoded.cameraRawPixels
        return prepared
    }
}

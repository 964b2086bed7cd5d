internal import CJXL

/// libjxl's decoder, with exactly one owner.
struct JXLDecoder: ~Copyable {
    let pointer: OpaquePointer

    /// - Throws: `.outOfMemory` when libjxl cannot make its decoder.
    init(file: String) throws(ImagePrepError) {
        guard let pointer = JxlDecoderCreate(nil) else { throw .outOfMemory(file: file, byteCount: 0) }
        self.pointer = pointer
    }

    deinit { JxlDecoderDestroy(pointer) }
}

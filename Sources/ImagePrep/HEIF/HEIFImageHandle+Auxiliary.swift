internal import CHeif

extension HEIFImageHandle {
    /// The auxiliary image `id` of this image; nil when libheif does not give it.
    func auxiliaryImage(_ id: HEIFContainer.ItemID) -> HEIFImageHandle? {
        var handle: OpaquePointer?
        let error = libheif.heif_image_handle_get_auxiliary_image_handle(pointer, id, &handle)
        guard error.code == heif_error_Ok, let handle else { return nil }
        return HEIFImageHandle(pointer: handle, libheif: libheif)
    }

    /// The type an auxiliary image's `auxC` names, as libheif reads it; libheif's copy is freed
    /// by its own function on the next line.
    var auxiliaryType: String? {
        var type: UnsafePointer<CChar>?
        let error = libheif.heif_image_handle_get_auxiliary_type(pointer, &type)
        guard error.code == heif_error_Ok, let text = type else { return nil }
        defer { libheif.heif_image_handle_free_auxiliary_types(pointer, &type) }
        return String(cString: text)
    }
}

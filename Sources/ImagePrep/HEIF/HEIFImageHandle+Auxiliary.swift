internal import CHeif

extension HEIFImageHandle {
    /// An XMP packet larger than this is no gain map's (Apple's is a few hundred bytes).
    static let maximumXMPSize = 1 << 20

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

    /// The XMP packets (`mime` items) that describe this image, each at most `maximumXMPSize`.
    var xmpPackets: [[UInt8]] {
        var ids = [heif_item_id](repeating: 0, count: 4)
        let count = Int(libheif.heif_image_handle_get_list_of_metadata_block_IDs(pointer, "mime", &ids, 4))
        return ids.prefix(max(0, min(count, 4))).compactMap { id in
            let size = libheif.heif_image_handle_get_metadata_size(pointer, id)
            guard size > 0, size <= Self.maximumXMPSize else { return nil }
            var packet = [UInt8](repeating: 0, count: size)
            guard libheif.heif_image_handle_get_metadata(pointer, id, &packet).code == heif_error_Ok else { return nil }
            return packet
        }
    }

    /// Whether one of its XMP packets says `HDRGainMap:HDRGainMapVersion`, which Apple's
    /// document makes the first condition of a valid gain map.
    var saysHDRGainMapVersion: Bool {
        xmpPackets.contains { !XMPText.values(of: "HDRGainMap:HDRGainMapVersion", in: $0).isEmpty }
    }
}

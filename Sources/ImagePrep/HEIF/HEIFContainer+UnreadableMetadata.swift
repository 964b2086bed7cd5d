/// The metadata items libheif cannot read: too large, cut short or stored compressed.
extension HEIFContainer {
    /// The Exif and XMP items that declare more than `HEIFMetadata.maxExifItemSize` bytes. One
    /// that only runs past the end is a file cut short, refused as such.
    var unreadableMetadataItems: [Item] {
        items.values.filter { item in
            [FourCC.exif, .mime].contains(item.type) && item.declaredLength > HEIFMetadata.maxExifItemSize
        }
    }

    /// What is said of the metadata items that are hidden from libheif and not read, whose
    /// metadata is then lost: one too large or cut short, one stored compressed (`Item.isEncoded`).
    var unreadItemWarnings: [PhotoWarning] {
        (unreadableMetadataItems.isEmpty ? [] : [HEIFMetadata.unreadableItemWarning])
            + (items.values.contains(where: \.isEncoded) ? [HEIFMetadata.encodedItemWarning] : [])
    }
}

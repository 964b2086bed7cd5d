internal import CHeif

/// What a HEIF file says about its primary image besides the pixels: the Exif item linked to it
/// (`cdsc`) and its ICC profile (`colr` of type `prof` or `rICC`), read through libheif.
enum HEIFMetadata {
    /// More Exif than this is not a photo's (a JPEG can carry 64 KB).
    static let maxExifItemSize = 16 << 20

    /// What the primary image says about itself, read with exactly the JPEG rules from its Exif
    /// item: `originalSize` is its size as stored (`ispe`), `orientation` the Exif tag.
    ///
    /// - Returns: also the TIFF block, which the upload carries.
    static func read(
        _ handle: borrowing HEIFImageHandle, plan: HEIFContainer.DecodePlan
    ) -> (metadata: PhotoMetadata, tiff: [UInt8]?, warnings: [PhotoWarning]) {
        var metadata = PhotoMetadata(originalSize: plan.storedSize)
        var warnings: [PhotoWarning] = []
        let (tiff, exifWarning) = exif(of: handle)
        warnings += exifWarning.map { [$0] } ?? []
        tiff?.withUnsafeBytes { EXIFReader.read(tiff: $0, into: &metadata, warnings: &warnings) }
        warnings += orientationWarning(exif: metadata.orientation, heif: plan.orientation).map { [$0] } ?? []
        return (metadata, tiff, warnings)
    }

    /// `read` for a whole file, for `PhotoMetadata.read(from:)`: nothing is decoded.
    static func read(_ bytes: UnsafeRawBufferPointer) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        let unreadable = { (size: PixelSize, reason: String) in
            (
                PhotoMetadata(originalSize: size),
                [PhotoWarning(.metadata, "the HEIF file cannot be read, so it gives no metadata: \(reason).")]
            )
        }
        let container: HEIFContainer
        let plan: HEIFContainer.DecodePlan
        do {
            container = try HEIFContainer(bytes)
            plan = try container.primaryDescription()
        } catch {
            return unreadable(PixelSize(width: 0, height: 0), error.clause)
        }
        // A file refused for its structure (a loop of images crashes libheif 1.15) is not handed
        // to libheif; one refused only for its codec or its size is safe to read.
        do {
            _ = try container.decodePlan()
        } catch .unsupported {
        } catch {
            return unreadable(plan.storedSize, error.clause)
        }
        // A gain map our walk refuses is hidden, as for the decode: libheif refuses a whole file
        // for one image over its limits.
        let hidden = (try? container.gainMapPlan()) == nil ? container.gainMapOnlyItems() : []
        let readable = container.bytesForLibheif(hiding: hidden)
        do throws(ImagePrepError) {
            // Nothing is decoded, so libheif's own limit on a side need not stop the reading.
            let readMetadata = { (bytes: UnsafeRawBufferPointer) throws(ImagePrepError) in
                let context = try HEIFContext(
                    bytes, libheif: try Libheif.shared(for: ""), decodingThreads: 0, maximumSide: Int(Int32.max),
                    file: "")
                let handle = try context.primaryImage(file: "")
                let (metadata, _, warnings) = read(handle, plan: plan)
                return (metadata, warnings)
            }
            guard let readable else { return try readMetadata(bytes) }
            let (metadata, warnings) = try readable.withUnsafeBytes { bytes in
                Result { () throws(ImagePrepError) in try readMetadata(bytes) }
            }.get()
            return (metadata, container.unreadItemWarnings + warnings)
        } catch .heifUnavailable(_, let reason) {
            return unreadable(plan.storedSize, ImagePrepError.libheifNeeded + reason)
        } catch {
            return unreadable(plan.storedSize, "libheif cannot read it")
        }
    }

    /// The TIFF block of the image's first Exif item, from its `II` or `MM` on.
    ///
    /// A HEIF Exif item starts with a 4-byte big-endian offset from the end of those four bytes
    /// to the TIFF header (ISO/IEC 23008-12 A.2.1). Apple writes 6 and then `Exif\0\0`; libheif's
    /// own writer writes 0; a writer that counted the offset to the `Exif\0\0` instead is
    /// tolerated, as exiftool and libheif's `heif-convert` tolerate it.
    ///
    /// - Returns: nil without an Exif item; nil and a warning when the item cannot be read or
    ///   its offset does not lead to a TIFF header.
    static func exif(of handle: borrowing HEIFImageHandle) -> (tiff: [UInt8]?, warning: PhotoWarning?) {
        var id: heif_item_id = 0
        let libheif = handle.libheif
        guard libheif.heif_image_handle_get_list_of_metadata_block_IDs(handle.pointer, "Exif", &id, 1) == 1 else {
            return (nil, nil)
        }
        let size = libheif.heif_image_handle_get_metadata_size(handle.pointer, id)
        guard size >= 4 + 8, size <= maxExifItemSize else { return (nil, unreadable) }
        var item = [UInt8](repeating: 0, count: size)
        let error = libheif.heif_image_handle_get_metadata(handle.pointer, id, &item)
        guard error.code == heif_error_Ok, let offset = item.withUnsafeBytes({ ByteReader($0).uint32(at: 0) }) else {
            return (nil, unreadable)
        }
        var start = 4 + Int(offset)
        if start <= size - 6, Array(item[start..<(start + 6)]) == JPEGLayout.exifSignature { start += 6 }
        guard start <= size - 8,
            item[start..<(start + 8)].withUnsafeBytes({ TIFFBlock($0) }) != nil
        else { return (nil, unreadable) }
        return (Array(item[start...]), nil)
    }

    /// For an Exif or XMP item that libheif cannot read (`HEIFContainer.bytesForLibheif`).
    static let unreadableItemWarning = PhotoWarning(
        .metadata,
        "the HEIF file's Exif or XMP item is cut short or far larger than a photo's, so no EXIF is read or carried.")

    /// For an XMP item stored compressed (its `infe` names a content encoding such as `deflate`),
    /// which neither libheif nor our walk inflates: a few kilobytes of it can inflate to
    /// gigabytes (`HEIFContainer.bytesForLibheif`).
    static let encodedItemWarning = PhotoWarning(
        .metadata, "the HEIF file's XMP item is stored compressed, which is not read, so what it says is not used.")

    private static let unreadable = PhotoWarning(
        .metadata,
        "the HEIF file's Exif item does not hold a TIFF header where its offset says, so no EXIF is read or carried.")

    /// The image's ICC profile, when the file has one.
    static func iccProfile(of handle: borrowing HEIFImageHandle) -> (ICCProfile?, PhotoWarning?) {
        let libheif = handle.libheif
        let type = libheif.heif_image_handle_get_color_profile_type(handle.pointer)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return (nil, nil) }
        let size = libheif.heif_image_handle_get_raw_color_profile_size(handle.pointer)
        // As much as JPEG's APP2 chunks can carry; an ICC profile is at least its 128-byte header.
        guard size >= 128, size <= 255 * ICCProfile.bytesPerSegment else {
            return (
                nil,
                PhotoWarning(
                    .colorProfile,
                    "the HEIF file's ICC profile is too small or too large to be one; the copies keep the original colour numbers."
                )
            )
        }
        var bytes = [UInt8](repeating: 0, count: size)
        guard libheif.heif_image_handle_get_raw_color_profile(handle.pointer, &bytes).code == heif_error_Ok else {
            return (nil, nil)
        }
        return (ICCProfile(bytes: bytes), nil)
    }

    /// A warning when the Exif Orientation says another turn than the file's `irot` and `imir`.
    ///
    /// In HEIF the transformative properties are what a reader applies to show the image, and
    /// Exif's Orientation only describes; an iPhone writes both, the same. The copies follow the
    /// file's transformations, as libheif and `heif-convert` do.
    static func orientationWarning(exif: Orientation?, heif: Orientation?) -> PhotoWarning? {
        guard let exif, let heif, exif != heif else { return nil }
        return PhotoWarning(
            .metadata,
            "the Exif Orientation (\(exif.rawValue)) is not the turn the HEIF file's own rotation and mirror give (\(heif.rawValue)); the copies follow the HEIF file, as HEIF readers do, and the upload's Orientation is set to 1."
        )
    }
}

/// What libheif 1.15 is given of a HEIF file: the primary, its tiles, its alpha and HDR gain map,
/// its thumbnail, Exif and XMP as they are, and nothing it cannot handle.
///
/// libheif 1.15 refuses a whole file for an item or a reference it does not expect, even one no
/// decode reads: every current iPhone photo (iOS 18 on) was refused. Its `interpret_heif_file`
/// wants each `cdsc`, `auxl` and `thmb` reference to name exactly one image: iOS 18 gives the
/// Exif and XMP items a `cdsc` to the primary and to the ISO 21496-1 `tmap` item ("Metadata not
/// correctly assigned to image"), and iOS 26 adds auxiliary images (semantic mattes, a style
/// delta map, a linear thumbnail) that are each an `auxl` of the primary and the `tmap` ("Too
/// many auxiliary image references"). It also refuses an image larger than its limit, an
/// auxiliary image without an `auxC`, and reads every item's data as it opens the file,
/// inflating a `mime` item that says `deflate` with no limit on what it inflates to.
///
/// So before libheif sees the file, the items it cannot handle are hidden from it (their type
/// becomes one it does not know), and the references it would refuse are rewritten in place.
extension HEIFContainer {
    /// Whether `id` is an auxiliary image of a type libheif 1.15 decodes as alpha.
    func isAlpha(_ id: ItemID) -> Bool {
        auxiliaryTypeName(of: id).map(Self.alphaTypes.contains) ?? false
    }

    /// Whether image `id` has an alpha image, which libheif decodes with it.
    func hasAlpha(_ id: ItemID) -> Bool {
        references.contains { $0.type == .auxl && $0.to.contains(id) && isAlpha($0.from) }
    }

    /// The items hidden from libheif: derived images of a type it does not know (the `tmap`),
    /// auxiliary images other than the primary's alpha and gain map, the items of `extra`, and
    /// the images that only hidden images are made of. Never the primary, nor what it, its
    /// alpha, its gain map or its thumbnails are made of.
    ///
    /// - Parameter extra: more images to hide (`gainMapOnlyItems` of a refused gain map).
    func itemsHiddenFromLibheif(also extra: Set<ItemID> = []) -> Set<ItemID> {
        guard let primary else { return extra }
        let gainMap = gainMapItem
        var wanted: Set<ItemID> = [primary]
        var roots = extra
        for reference in references {
            switch reference.type {
            case .dimg:
                if let item = items[reference.from], !Self.imageTypes.contains(item.type) {
                    roots.insert(reference.from)
                }
            case .auxl:
                let isKept =
                    reference.to.contains(primary) && (reference.from == gainMap || isAlpha(reference.from))
                    && !extra.contains(reference.from)
                if isKept { wanted.insert(reference.from) } else { roots.insert(reference.from) }
            case .thmb:
                if reference.to.contains(primary) { wanted.insert(reference.from) }
            default:
                continue
            }
        }
        // An item kept as the primary's alpha or gain map by one reference is not hidden by another.
        roots.subtract(wanted)
        let sources = derivedImageSources()
        var needed = wanted
        var pending = Array(wanted)
        while let id = pending.popLast() {
            for source in sources[id] ?? [] where needed.insert(source).inserted { pending.append(source) }
        }
        roots.subtract(needed)
        // An image is hidden once every image made of it is (counted as often as each names it).
        var liveParents: [ItemID: Int] = [:]
        for (_, targets) in sources {
            for target in targets { liveParents[target, default: 0] += 1 }
        }
        var hidden = roots
        pending = Array(roots)
        while let id = pending.popLast() {
            for source in sources[id] ?? [] {
                liveParents[source, default: 1] -= 1
                if liveParents[source] == 0, !needed.contains(source), hidden.insert(source).inserted {
                    pending.append(source)
                }
            }
        }
        return hidden
    }

    /// The references of the first `iref` box as libheif 1.15 can read them, in the file's order,
    /// once `hidden` is hidden; nil when they are already so.
    ///
    /// A reference from a hidden item goes; one to hidden items loses them. A `cdsc`, `auxl` or
    /// `thmb` keeps only images libheif reads, and of them only one (the primary when it is
    /// one of them), since libheif refuses any other count; one left with none goes.
    func referencesForLibheif(hiding hidden: Set<ItemID>) -> [Reference]? {
        guard let box = referenceBox else { return nil }
        let singleTarget: Set<FourCC> = [.cdsc, .auxl, .thmb]
        let own = references.filter { box.payload.contains($0.typeOffset) }
        var kept: [Reference] = []
        for reference in own where !hidden.contains(reference.from) {
            var targets = reference.to.filter { !hidden.contains($0) }
            if singleTarget.contains(reference.type) {
                targets = targets.filter { items[$0].map { Self.imageTypes.contains($0.type) } ?? false }
                if targets.count > 1 { targets = [primary.flatMap { targets.contains($0) ? $0 : nil } ?? targets[0]] }
            }
            guard !targets.isEmpty else { continue }
            kept.append(
                Reference(type: reference.type, from: reference.from, to: targets, typeOffset: reference.typeOffset))
        }
        let isUnchanged =
            kept.count == own.count
            && zip(kept, own).allSatisfy { $0.from == $1.from && $0.to == $1.to && $0.type == $1.type }
        return isUnchanged ? nil : kept
    }

    /// The file as libheif 1.15 may be given it: nil when it is, else a copy in which
    ///
    /// - each hidden item (`itemsHiddenFromLibheif`), each Exif or XMP item that declares
    ///   more than `HEIFMetadata.maxExifItemSize` bytes, and each `mime` item whose content is
    ///   encoded (`Item.isEncoded`), has a type libheif does not read, and lengths that end
    ///   within the file (libheif reads every item's data as it opens a file, and refused a
    ///   300x200 photo as "larger than its limits" for an Exif length of 0xFFFFFFF0; such an item
    ///   should cost only the metadata). libheif 1.15.1-1+deb12u1 inflates a deflated item
    ///   whatever its size (a 1 MB item to 1 GB), deb12u2 up to 512 MB: given a type of its own,
    ///   the item is read as the bytes it is, no more than the file;
    /// - the first `iref` box holds `referencesForLibheif`, written in the space the file's own
    ///   took, with a `free` box after it for the bytes it no longer needs.
    ///
    /// Where those bytes are too few for a `free` box (1 to 7, from a `cdsc`, `auxl` or `thmb`
    /// that lost one to three items and no reference that went), the thumbnails' `thmb`
    /// references go too (a thumbnail is never read); without one, each reference that would
    /// change is given a type libheif does not know instead: its Exif, XMP or auxiliary image is
    /// then not linked to its image (no phone writes such a file).
    ///
    /// - Parameter extra: more images to hide (`gainMapOnlyItems` of a refused gain map, which
    ///   libheif would refuse the whole file for when it is larger than its limit).
    func bytesForLibheif(hiding extra: Set<ItemID> = []) -> [UInt8]? {
        let unreadable = unreadableMetadataItems + items.values.filter(\.isEncoded)
        let hidden = itemsHiddenFromLibheif(also: extra)
        let rewritten = referencesForLibheif(hiding: hidden)
        guard !unreadable.isEmpty || !hidden.isEmpty || rewritten != nil else { return nil }
        var copy = Array(bytes)
        func hide(typeAt offset: Int) {
            for (index, byte) in "skip".utf8.enumerated() { copy[offset + index] = byte }
        }
        for item in unreadable + hidden.compactMap({ items[$0] }) {
            hide(typeAt: item.typeOffset)
            // libheif refuses an extent longer than its limit even for an item it does not read.
            for field in item.overlongLengths {
                for index in 0..<field.size {
                    copy[field.offset + index] = UInt8(
                        truncatingIfNeeded: field.available >> (8 * (field.size - 1 - index)))
                }
            }
        }
        if let rewritten, let box = referenceBox, !write(rewritten, into: &copy, box: box),
            !write(rewritten.filter { $0.type != .thmb }, into: &copy, box: box)
        {
            for reference in references where box.payload.contains(reference.typeOffset) {
                let isKept = rewritten.contains {
                    $0.typeOffset == reference.typeOffset && $0.to == reference.to
                }
                if !isKept { hide(typeAt: reference.typeOffset) }
            }
        }
        return copy
    }

    /// Writes `references` over the payload of the `iref` box `box` in `copy`; false, writing
    /// nothing, when the bytes they leave are too few for a `free` box.
    private func write(
        _ references: [Reference], into copy: inout [UInt8],
        box: (header: Int, payload: Range<Int>, hasLargeIDs: Bool)
    ) -> Bool {
        var payload: [UInt8] = []
        payload.reserveCapacity(box.payload.count)
        func append(_ value: UInt64, size: Int) {
            for index in 0..<size { payload.append(UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - index)))) }
        }
        let idSize = box.hasLargeIDs ? 4 : 2
        for reference in references {
            append(UInt64(8 + idSize + 2 + idSize * reference.to.count), size: 4)
            append(UInt64(reference.type.value), size: 4)
            append(UInt64(reference.from), size: idSize)
            append(UInt64(reference.to.count), size: 2)
            for target in reference.to { append(UInt64(target), size: idSize) }
        }
        let slack = box.payload.count - payload.count
        guard slack == 0 || slack >= 8 else { return false }
        copy.replaceSubrange(box.payload.lowerBound..<(box.payload.lowerBound + payload.count), with: payload)
        guard slack > 0 else { return true }
        // The iref box ends where its references do, its size said where the file said it (in a
        // 64-bit field after the type for a box of size 1); a free box fills the rest.
        let headerSize = box.payload.lowerBound - 4 - box.header
        let size = UInt64(box.payload.upperBound - box.header - slack)
        let (sizeField, sizeWidth) = headerSize == 16 ? (box.header + 8, 8) : (box.header, 4)
        for index in 0..<sizeWidth {
            copy[sizeField + index] = UInt8(truncatingIfNeeded: size >> (8 * (sizeWidth - 1 - index)))
        }
        let free = box.payload.upperBound - slack
        let freeHeader: [UInt8] =
            [UInt8(slack >> 24 & 0xFF), UInt8(slack >> 16 & 0xFF), UInt8(slack >> 8 & 0xFF), UInt8(slack & 0xFF)]
            + Array("free".utf8)
        copy.replaceSubrange(free..<(free + 8), with: freeHeader)
        for index in (free + 8)..<box.payload.upperBound { copy[index] = 0 }
        return true
    }
}

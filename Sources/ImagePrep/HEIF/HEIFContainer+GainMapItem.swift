/// Which item is the primary image's HDR gain map, and what decoding it takes.
extension HEIFContainer {
    /// The auxiliary type (`auxC`) of an iPhone's HDR gain map.
    static let appleGainMapType = "urn:com:apple:photo:2020:aux:hdrgainmap"
    /// The auxiliary type of a Samsung Galaxy's HDR gain map, whose `hdrgm` XMP is on the item.
    static let samsungGainMapType = "urn:com:samsung:photo:2024:aux:hdrgainmap"
    /// The auxiliary types read as an HDR gain map.
    static let gainMapTypes = [appleGainMapType, samsungGainMapType]
    /// The auxiliary types libheif 1.15 decodes with their image as its alpha.
    static let alphaTypes = [
        "urn:mpeg:avc:2015:auxid:1", "urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha",
    ]

    /// The ISO 21496-1 tone-mapped image (`tmap`, ISO/IEC 23008-12:2024 6.6.2.4) of the primary:
    /// a derived image whose two `dimg` sources are the primary and its gain map, and whose data
    /// is the gain map's metadata. iOS 18 and later and Samsung's Galaxy write one beside their
    /// own gain map types. Nil when there is none, as in most files.
    var toneMapItem: ItemID? { toneMapReference?.from }

    /// The `dimg` reference of the primary's tone-mapped image: to the primary, then another image.
    private var toneMapReference: Reference? {
        guard let primary else { return nil }
        return references.first { reference in
            reference.type == .dimg && reference.to.count == 2 && reference.to[0] == primary
                && reference.to[1] != primary && items[reference.from]?.type == .tmap
        }
    }

    /// The primary image's HDR gain map: the second source of its tone-mapped image (`tmap`) when
    /// it has one, else the first of its auxiliary images (`auxl`) whose `auxC` names Apple's or
    /// Samsung's gain map type. Nil when it has none, as most HEIF files.
    var gainMapItem: ItemID? {
        guard let primary else { return nil }
        if let toneMap = toneMapReference { return toneMap.to[1] }
        let wanted = Self.gainMapTypes.map { Array($0.utf8) }
        return references.first { reference in
            guard reference.type == .auxl, reference.to.contains(primary),
                let type = items[reference.from].flatMap(auxiliaryType(of:))
            else { return false }
            return wanted.contains { $0 == Array(type) }
        }?.from
    }

    /// The auxiliary type of `id`, as text; nil when it has none.
    func auxiliaryTypeName(of id: ItemID) -> String? {
        items[id].flatMap(auxiliaryType(of:)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The type an auxiliary image's `auxC` names (ISO/IEC 23008-12 6.5.8): the text up to its
    /// NUL, at most 255 bytes (Apple's and MPEG's are under 60).
    func auxiliaryType(of item: Item) -> ArraySlice<UInt8>? {
        guard let auxC = property(.auxC, of: item), auxC.count > 4 else { return nil }
        let text = bytes[(auxC.lowerBound + 4)..<auxC.upperBound].prefix(256)
        guard let end = text.firstIndex(of: 0) else { return nil }
        return ArraySlice(text[..<end])
    }

    /// What decoding the gain map takes, walked as the primary's decode is (its size, every grid
    /// and coded size, its codec, truncation, loops), before libheif sees it.
    ///
    /// - Throws: why it cannot be decoded safely; the photo itself is not refused for it.
    func gainMapPlan() throws(Problem) -> DecodePlan {
        guard let id = gainMapItem, let item = items[id] else { throw .noImage }
        guard Self.imageTypes.contains(item.type) else {
            if let name = Self.unsupportedCodecs[item.type] { throw .unsupported("it is coded as \(name)") }
            throw .malformed("it is not an image")
        }
        try refuseLoops(from: id)
        guard let stored = size(of: item) else { throw .malformed("it has no size ('ispe' box)") }
        var plan = DecodePlan(storedSize: stored, largest: stored)
        plan.orientation = try orientation(of: item)
        plan.hasTransformations = item.properties.contains { index in
            [FourCC.irot, .imir, .clap].contains(properties[index].type)
        }
        var walk = Walk(container: self)
        try walk.visit(id, depth: 0, plan: &plan)
        return plan
    }

    /// The gain map and the images it is made of that the primary's decode does not use: what
    /// is hidden from libheif when the gain map is refused, since libheif 1.15 refuses a whole
    /// file for one image larger than its limit.
    func gainMapOnlyItems() -> Set<ItemID> {
        guard let primary, let gainMap = gainMapItem else { return [] }
        let sources = derivedImageSources()
        func closure(from start: ItemID) -> Set<ItemID> {
            var found: Set<ItemID> = [start]
            var pending = [start]
            while let id = pending.popLast() {
                for source in sources[id] ?? [] where found.insert(source).inserted { pending.append(source) }
            }
            return found
        }
        return closure(from: gainMap).subtracting(closure(from: primary))
    }
}

/// What decoding an image takes, found before libheif decodes anything: every size the decode
/// would allocate, its codecs, and the loops in the item graph that libheif would follow.
extension HEIFContainer {
    /// What decoding the primary image takes, found before libheif decodes anything.
    struct DecodePlan: Equatable {
        /// The primary image's size as stored (its `ispe`), before rotation and mirror.
        var storedSize: PixelSize
        /// The largest image the decode allocates, by pixel count: the primary's size, a grid's
        /// or overlay's canvas, or any coded image's own size.
        var largest: PixelSize
        /// The codecs whose decoders it needs.
        var codecs: Set<Codec> = []
        /// How many coded images it decodes.
        var codedImageCount = 0
        /// The pixels of every coded image the decode reads, each as often as libheif decodes it
        /// (a tile that a grid names 200 times is decoded 200 times), saturated at `Int.max`.
        var decodedPixels = 0
        /// The turn that shows the stored pixels upright, from the primary's `irot` and `imir`;
        /// nil when it also has a clean aperture (`clap`), which only libheif applies.
        var orientation: Orientation?
        /// Whether every grid's tiles cover it (`tilesCover`); checked after the pixel limit, so
        /// that a grid over the limit is refused for its size.
        var tilesCoverGrids = true
        /// How the first coded image stores its samples, from its decoder configuration: what
        /// libheif's decoder gives out before any conversion (a grid's tiles all share it).
        var codedFormat: CodedFormat?
        /// Whether the image has a rotation, mirror or crop of its own (`gainMapPlan` only: an
        /// auxiliary image without one is shown as its primary is).
        var hasTransformations = false
    }

    /// The chroma layout and bit depth a coded image declares.
    struct CodedFormat: Equatable {
        enum Chroma: Equatable { case monochrome, yuv420, yuv422, yuv444 }
        var chroma: Chroma
        var bitDepth: Int
    }

    enum Codec: Hashable, CustomStringConvertible {
        case hevc, av1
        var description: String { self == .hevc ? "HEVC" : "AV1" }
    }

    /// The primary image's decode: every image it is made of (tiles, overlays, the alpha image
    /// libheif decodes with it), each checked for truncation and walked once.
    ///
    /// First the item graph is searched for a loop, over every kind of reference: libheif
    /// follows them without noticing one (an identity image that is also the primary's alpha
    /// made it recurse until it crashed, or grow past 20 GB on a grid).
    func decodePlan() throws(Problem) -> DecodePlan {
        guard let primary, let item = items[primary] else { throw .noImage }
        guard Self.imageTypes.contains(item.type) else {
            if let name = Self.unsupportedCodecs[item.type] { throw .unsupported("its image is coded as \(name)") }
            throw .noImage
        }
        // An HDR gain map is not decoded with the primary; `gainMapPlan` walks it on its own,
        // so that a hostile one costs the gain map alone.
        let gainMap = gainMapItem
        try refuseLoops(from: primary, passingOver: gainMap)
        var plan = try primaryDescription()
        var walk = Walk(container: self)
        try walk.visit(primary, depth: 0, plan: &plan)
        // Its alpha, which libheif decodes with it; its other auxiliary images are hidden from
        // libheif (`bytesForLibheif`), which never decodes them.
        for reference in references
        where reference.type == .auxl && reference.to.contains(primary) && reference.from != gainMap
            && isAlpha(reference.from)
        {
            try walk.visit(reference.from, depth: 1, plan: &plan)
        }
        return plan
    }

    /// Each derived image's sources (`dimg`), in the file's order, a source named twice twice.
    func derivedImageSources() -> [ItemID: [ItemID]] {
        var sources: [ItemID: [ItemID]] = [:]
        for reference in references where reference.type == .dimg {
            sources[reference.from, default: []] += reference.to
        }
        return sources
    }

    /// Refuses the file when items reachable from `start` refer to each other in a loop.
    ///
    /// A derived image (`dimg`) reads its sources; every other reference (`auxl`, `thmb`, `cdsc`,
    /// `prem`, kinds not known here) hangs an item on the one it names, which is read with it.
    /// The search keeps its own stack, so a long chain cannot exhaust the thread's.
    ///
    /// - Parameter passedOver: an item left out of the search (the gain map, searched on its own).
    func refuseLoops(from start: ItemID, passingOver passedOver: ItemID? = nil) throws(Problem) {
        var next = derivedImageSources()
        for reference in references where reference.type != .dimg {
            for target in reference.to { next[target, default: []].append(reference.from) }
        }
        if let passedOver {
            next[passedOver] = nil
            for id in next.keys { next[id]!.removeAll { $0 == passedOver } }
        }
        enum Mark { case onPath, done }
        var marks: [ItemID: Mark] = [start: .onPath]
        var path: [(id: ItemID, nextIndex: Int)] = [(start, 0)]
        while let (id, index) = path.last {
            let targets = next[id] ?? []
            guard index < targets.count else {
                marks[id] = .done
                path.removeLast()
                continue
            }
            path[path.count - 1].nextIndex += 1
            let target = targets[index]
            switch marks[target] {
            case .onPath: throw .malformed("its images refer to each other in a loop")
            case .done: continue
            case nil:
                marks[target] = .onPath
                path.append((target, 0))
            }
        }
    }

    /// The primary image's stored size and turn, without the walk: enough to read its metadata
    /// even when it is coded in a way that cannot be decoded.
    func primaryDescription() throws(Problem) -> DecodePlan {
        guard let primary, let item = items[primary] else { throw .noImage }
        guard let stored = size(of: item) else { throw .malformed("its primary image has no size ('ispe' box)") }
        var plan = DecodePlan(storedSize: stored, largest: stored)
        plan.orientation = try orientation(of: item)
        return plan
    }

    static let imageTypes: Set<FourCC> = [
        .hvc1, .av01, .grid, .iovl, .iden,
    ]

    /// Image codings that HEIF defines and libheif 1.15 in Debian 12 does not decode.
    static let unsupportedCodecs: [FourCC: String] = [
        .vvc1: "VVC (H.266)", .avc1: "AVC (H.264)", .evc1: "EVC",
        .j2k1: "JPEG 2000", .jpeg: "JPEG inside HEIF", .unci: "uncompressed pixels",
        .mski: "a mask", .hvt1: "HEVC tiles",
    ]
}

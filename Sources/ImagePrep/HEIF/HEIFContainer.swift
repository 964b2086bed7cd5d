/// The structure of a HEIF file (HEIC, AVIF) that decides what libheif will decode and at what
/// size, read by our own bounded walk over its boxes (ISO/IEC 14496-12 and 23008-12) before
/// libheif sees the file.
///
/// libheif 1.15 believes what a file says where it allocates: a grid allocates the size its grid
/// data declares, and a coded image the size its own sequence header declares, whatever the
/// `ispe` box says (a 30000x30000 grid behind a 256x256 `ispe` took 1.3 GB in `heif-convert`).
/// So the pixel limit is held against every size the decode would allocate, found here. The walk
/// also finds the primary image's rotation and mirror, which ImagePrep applies itself.
struct HEIFContainer {
    typealias ItemID = UInt32

    /// A box or item type: four ASCII letters, kept as the big-endian number they are in the file.
    struct FourCC: Hashable, Sendable, CustomStringConvertible {
        let value: UInt32

        init(_ text: StaticString) {
            precondition(text.utf8CodeUnitCount == 4)
            value = text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt32($1) } }
        }

        init(value: UInt32) { self.value = value }

        var description: String {
            String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }, as: UTF8.self)
        }
    }

    /// Why the walk refused the file. Each reason is a clause for an error message, in our words,
    /// with nothing read from the file in it.
    enum Problem: Error, Equatable {
        case malformed(String)
        case truncated(String)
        case noImage
        case unsupported(String)

        var clause: String {
            switch self {
            case .malformed(let clause), .truncated(let clause), .unsupported(let clause): clause
            case .noImage: "it holds no image"
            }
        }

        func imagePrepError(file: String) -> ImagePrepError {
            switch self {
            case .malformed(let detail): .corruptHEIF(file: file, detail: detail)
            case .truncated(let detail): .incompleteImageData(file: file, detail: detail)
            case .noImage: .heifWithoutImage(file: file)
            case .unsupported(let reason): .unsupportedHEIF(file: file, reason: reason)
            }
        }
    }

    /// Where an item's bytes are: ranges of the file.
    struct Item {
        let type: FourCC
        /// Where the file writes the type, in its `infe` box.
        let typeOffset: Int
        var extents: [Range<Int>] = []
        /// Indexes into `properties`, in the order the file associates them (the order in which
        /// transformations apply).
        var properties: [Int] = []
        /// Whether an extent lies past the end of the file.
        var isTruncated = false
        /// The `iloc` length fields that run past the end of the file: where each is, its size,
        /// and how many bytes there are.
        var overlongLengths: [(offset: Int, size: Int, available: UInt64)] = []
        /// The bytes its extents declare, saturated: more than the file holds when it is cut short.
        var declaredLength = 0
        /// Whether it is a `mime` item whose `infe` names a content encoding (`deflate`): its bytes
        /// are not its content, and libheif 1.15 inflates a deflated item as it opens the file,
        /// whatever it inflates to (1.15.1-1+deb12u1; deb12u2 stops at 512 MB).
        var isEncoded = false
    }

    /// One property box: its type and payload, as a range of the file.
    struct Property {
        let type: FourCC
        let payload: Range<Int>
    }

    /// One item reference (`iref`): `from` refers to `to`, in the file's order.
    struct Reference {
        let type: FourCC
        let from: ItemID
        let to: [ItemID]
        /// Where the file writes the type, in its box's header.
        let typeOffset: Int
    }

    let bytes: UnsafeRawBufferPointer
    private(set) var primary: ItemID?
    /// The first `iref` box, the one libheif reads: where its header starts, its payload after
    /// the full box's version and flags, and whether its item numbers are 32-bit (version 1).
    private(set) var referenceBox: (header: Int, payload: Range<Int>, hasLargeIDs: Bool)?
    private(set) var items: [ItemID: Item] = [:]
    private(set) var properties: [Property] = []
    private(set) var references: [Reference] = []

    /// More items, properties or references than this is not a photo (libheif's own limit on items).
    static let maxEntries = 20_000

    /// The brands (ISO/IEC 23008-12 and AV1's ISO binding) of a HEIF still image or image
    /// sequence, major or compatible: a file that names one of them is handed to libheif.
    static let brands: Set<FourCC> = [
        FourCC("heic"), FourCC("heix"), FourCC("heim"), FourCC("heis"), FourCC("hevc"), FourCC("hevx"),
        FourCC("hevm"), FourCC("hevs"), FourCC("mif1"), FourCC("mif2"), FourCC("msf1"), FourCC("avif"),
        FourCC("avis"),
    ]

    /// Whether `bytes` start with an `ftyp` box that names a HEIF brand, major or compatible, as a
    /// HEIC, HEIF or AVIF file does, whatever its name. Such a file is read as HEIF even when
    /// the rest of it is damaged, so that the error says what is wrong with it.
    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let reader = BigEndianReader(bytes)
        guard reader.uint(at: 4, size: 4) == UInt64(FourCC("ftyp").value), let size = reader.uint(at: 0, size: 4)
        else { return false }
        let end = min(Int(clamping: size), bytes.count)
        // The major brand at 8, then the minor version, then the compatible brands.
        let brandOffsets = [8] + Array(Swift.stride(from: 16, to: end - 3, by: 4))
        return brandOffsets.contains { offset in
            reader.uint(at: offset, size: 4).map { brands.contains(FourCC(value: UInt32($0))) } ?? false
        }
    }

    /// Walks the file's top-level boxes and its `meta` box.
    init(_ bytes: UnsafeRawBufferPointer) throws(Problem) {
        self.bytes = bytes
        var meta: Range<Int>?
        for box in try Self.boxes(in: 0..<bytes.count, of: bytes, allowingTruncatedLast: true) {
            if box.type == FourCC("meta") {
                guard box.isComplete else { throw .truncated("the file ends inside its 'meta' box") }
                meta = box.payload
                break
            }
        }
        guard let meta, meta.count >= 4 else { throw .truncated("the file ends before its 'meta' box") }
        try readMeta((meta.lowerBound + 4)..<meta.upperBound)
    }

    // MARK: What the decode allocates

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
        where reference.type == FourCC("auxl") && reference.to.contains(primary) && reference.from != gainMap
            && isAlpha(reference.from)
        {
            try walk.visit(reference.from, depth: 1, plan: &plan)
        }
        return plan
    }

    // MARK: An HDR gain map

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
            reference.type == FourCC("dimg") && reference.to.count == 2 && reference.to[0] == primary
                && reference.to[1] != primary && items[reference.from]?.type == FourCC("tmap")
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
            guard reference.type == FourCC("auxl"), reference.to.contains(primary),
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
        guard let auxC = property(FourCC("auxC"), of: item), auxC.count > 4 else { return nil }
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
            [FourCC("irot"), FourCC("imir"), FourCC("clap")].contains(properties[index].type)
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

    /// Each derived image's sources (`dimg`), in the file's order, a source named twice twice.
    func derivedImageSources() -> [ItemID: [ItemID]] {
        var sources: [ItemID: [ItemID]] = [:]
        for reference in references where reference.type == FourCC("dimg") {
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
        for reference in references where reference.type != FourCC("dimg") {
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
        FourCC("hvc1"), FourCC("av01"), FourCC("grid"), FourCC("iovl"), FourCC("iden"),
    ]

    /// Image codings that HEIF defines and libheif 1.15 in Debian 12 does not decode.
    static let unsupportedCodecs: [FourCC: String] = [
        FourCC("vvc1"): "VVC (H.266)", FourCC("avc1"): "AVC (H.264)", FourCC("evc1"): "EVC",
        FourCC("j2k1"): "JPEG 2000", FourCC("jpeg"): "JPEG inside HEIF", FourCC("unci"): "uncompressed pixels",
        FourCC("mski"): "a mask", FourCC("hvt1"): "HEVC tiles",
    ]

    private struct Walk {
        let container: HEIFContainer
        /// The pixels each item walked decodes, itself and what it is made of.
        var decodedPixels: [ItemID: Int] = [:]
        var inProgress: Set<ItemID> = []
        var codedBytes = 0
        /// The coded images' extents counted in `codedBytes`.
        var codedExtents: Set<Range<Int>> = []
        let sources: [ItemID: [ItemID]]

        init(container: HEIFContainer) {
            self.container = container
            sources = container.derivedImageSources()
        }

        /// libheif nests derived images (a grid of grids, an identity of an overlay); real files
        /// use one level.
        static let maxDepth = 4

        /// Walks the item and what it is made of, and adds what it decodes to `plan`.
        mutating func visit(_ id: ItemID, depth: Int, plan: inout DecodePlan) throws(Problem) {
            let pixels = try pixels(of: id, depth: depth, plan: &plan)
            plan.decodedPixels = Self.sum(plan.decodedPixels, pixels)
        }

        /// The pixels the coded images under `id` decode; each item is walked once, and counted
        /// as often as it is used.
        private mutating func pixels(of id: ItemID, depth: Int, plan: inout DecodePlan) throws(Problem) -> Int {
            if let known = decodedPixels[id] { return known }
            guard !inProgress.contains(id) else { throw .malformed("its images refer to each other in a loop") }
            guard depth <= Self.maxDepth else { throw .malformed("its images refer to each other too deeply") }
            guard let item = container.items[id] else { throw .malformed("it refers to an image that is not in it") }
            inProgress.insert(id)
            defer { inProgress.remove(id) }
            if let size = container.size(of: item) { plan.largest = Self.larger(plan.largest, size) }
            let derived = sources[id] ?? []
            var total = 0
            switch item.type {
            case FourCC("grid"):
                let grid = try container.grid(of: item)
                plan.largest = Self.larger(plan.largest, grid.size)
                guard derived.count == grid.columns * grid.rows else {
                    throw .malformed("its grid does not hold as many tiles as it declares")
                }
                if !(try container.tilesCover(grid, tiles: derived)) { plan.tilesCoverGrids = false }
                for tile in derived { total = Self.sum(total, try pixels(of: tile, depth: depth + 1, plan: &plan)) }
            case FourCC("iovl"):
                plan.largest = Self.larger(plan.largest, try container.overlayCanvas(of: item))
                guard !derived.isEmpty else { throw .malformed("its overlay holds no images") }
                for layer in derived { total = Self.sum(total, try pixels(of: layer, depth: depth + 1, plan: &plan)) }
            case FourCC("iden"):
                guard derived.count == 1 else { throw .malformed("its derived image does not name one source") }
                total = try pixels(of: derived[0], depth: depth + 1, plan: &plan)
            case FourCC("hvc1"), FourCC("av01"):
                guard !item.isTruncated else { throw .truncated("the file ends before its image data does") }
                // libavif's writer gives identical tiles one extent, which libheif reads for each;
                // extents that overlap otherwise no encoder writes. Each extent counted once,
                // bounding the sum by the file's size bounds the reading below by it too.
                for extent in item.extents where codedExtents.insert(extent).inserted {
                    codedBytes += extent.count
                }
                guard codedBytes <= container.bytes.count else {
                    throw .malformed("its images' data overlap, which no encoder writes")
                }
                let isHEVC = item.type == FourCC("hvc1")
                plan.codecs.insert(isHEVC ? .hevc : .av1)
                plan.codedImageCount += 1
                var largest = container.size(of: item) ?? PixelSize(width: 0, height: 0)
                for size in try container.codedSizes(of: item, isHEVC: isHEVC) {
                    largest = Self.larger(largest, size)
                }
                plan.largest = Self.larger(plan.largest, largest)
                total = largest.pixelCount
                if plan.codedFormat == nil { plan.codedFormat = container.codedFormat(of: item, isHEVC: isHEVC) }
            default:
                if let name = HEIFContainer.unsupportedCodecs[item.type] {
                    throw .unsupported("part of its image is coded as \(name)")
                }
                throw .malformed("its image is made of an item that is not an image")
            }
            decodedPixels[id] = total
            return total
        }

        static func larger(_ a: PixelSize, _ b: PixelSize) -> PixelSize { b.pixelCount > a.pixelCount ? b : a }

        static func sum(_ a: Int, _ b: Int) -> Int {
            let total = a.addingReportingOverflow(b)
            return total.overflow ? Int.max : total.partialValue
        }
    }

    /// The item's `ispe` (image spatial extents): its size as stored.
    func size(of item: Item) -> PixelSize? {
        guard let ispe = property(FourCC("ispe"), of: item), ispe.count >= 12,
            let width = BigEndianReader(bytes).uint(at: ispe.lowerBound + 4, size: 4),
            let height = BigEndianReader(bytes).uint(at: ispe.lowerBound + 8, size: 4)
        else { return nil }
        return PixelSize(width: Int(width), height: Int(height))
    }

    func property(_ type: FourCC, of item: Item) -> Range<Int>? {
        item.properties.lazy.map { properties[$0] }.first { $0.type == type }?.payload
    }

    /// The grid's declared size (ISO/IEC 23008-12 6.6.2.3.2), columns and rows.
    func grid(of item: Item) throws(Problem) -> (size: PixelSize, columns: Int, rows: Int) {
        let data = try smallData(of: item, named: "grid")
        guard data.count >= 8 else { throw .malformed("its grid description is cut short") }
        let isLarge = data[1] & 1 == 1
        guard data.count >= (isLarge ? 12 : 8) else { throw .malformed("its grid description is cut short") }
        let width = isLarge ? Self.bigEndian(data[4..<8]) : Self.bigEndian(data[4..<6])
        let height = isLarge ? Self.bigEndian(data[8..<12]) : Self.bigEndian(data[6..<8])
        return (PixelSize(width: width, height: height), Int(data[3]) + 1, Int(data[2]) + 1)
    }

    /// Whether every tile declares one size, the tiles cover the grid, and each tile's coded
    /// picture is exactly its declared size. libheif 1.15 allocates a grid's canvas
    /// uninitialised and places each tile after the `ispe` sizes of the tiles before it, so
    /// canvas that no tile's decode reaches would show whatever that memory held, and a picture
    /// larger than its tile would overwrite its neighbour's edge in the order the threads finish.
    private func tilesCover(_ grid: (size: PixelSize, columns: Int, rows: Int), tiles: [ItemID]) throws(Problem)
        -> Bool
    {
        let sizes = tiles.map { items[$0].flatMap(size(of:)) }
        guard let tile = sizes.first ?? nil, tile.width > 0, tile.height > 0, sizes.allSatisfy({ $0 == tile }),
            tile.width * grid.columns >= grid.size.width, tile.height * grid.rows >= grid.size.height
        else { return false }
        for id in tiles {
            guard let item = items[id], item.type == FourCC("hvc1") || item.type == FourCC("av01") else { continue }
            // A picture larger than its tile overlaps the next one, and tiles decoded on two
            // threads then leave the overlap to whichever wrote last (a batch and a photo alone
            // differed); one smaller leaves canvas uncovered.
            let coded = try codedSizes(of: item, isHEVC: item.type == FourCC("hvc1"), cropped: true)
            guard coded.allSatisfy({ $0 == tile }) else { return false }
        }
        return true
    }

    /// The overlay's canvas (ISO/IEC 23008-12 6.6.2.3.3): after four 16-bit fill colour values.
    private func overlayCanvas(of item: Item) throws(Problem) -> PixelSize {
        let data = try smallData(of: item, named: "overlay")
        let isLarge = data.count >= 2 && data[1] & 1 == 1
        let sizeStart = 2 + 8
        guard data.count >= sizeStart + (isLarge ? 8 : 4) else {
            throw .malformed("its overlay description is cut short")
        }
        let field = isLarge ? 4 : 2
        return PixelSize(
            width: Self.bigEndian(data[sizeStart..<(sizeStart + field)]),
            height: Self.bigEndian(data[(sizeStart + field)..<(sizeStart + 2 * field)]))
    }

    /// A derived image's description, which is a few bytes long.
    func smallData(of item: Item, named name: String) throws(Problem) -> [UInt8] {
        guard !item.isTruncated else { throw .truncated("the file ends before its \(name) description does") }
        guard item.extents.reduce(0, { $0 + $1.count }) <= 1024 else {
            throw .malformed("its \(name) description is far longer than one can be")
        }
        return item.extents.flatMap { Array(bytes[$0]) }
    }

    private static func bigEndian(_ bytes: ArraySlice<UInt8>) -> Int { bytes.reduce(0) { $0 << 8 | Int($1) } }

    /// Every size the coded image's decoder would allocate: each sequence parameter set (HEVC) or
    /// sequence header (AV1) in its configuration box and in its data, which the decoder reads too.
    ///
    /// - Parameter cropped: HEVC sizes after their conformance window: the pictures the decoder
    ///   gives out, rather than what it allocates.
    private func codedSizes(of item: Item, isHEVC: Bool, cropped: Bool = false) throws(Problem) -> [PixelSize] {
        let name = isHEVC ? "hvcC" : "av1C"
        guard let configuration = property(FourCC(isHEVC ? "hvcC" : "av1C"), of: item) else {
            throw .malformed("its \(isHEVC ? "HEVC" : "AV1") image has no decoder configuration ('\(name)' box)")
        }
        let config = UnsafeRawBufferPointer(rebasing: bytes[configuration])
        let data = item.extents.count == 1 ? Array(bytes[item.extents[0]]) : item.extents.flatMap { Array(bytes[$0]) }
        let sizes = data.withUnsafeBytes { data in
            isHEVC
                ? HEVCParameterSets.pictureSizes(configuration: config, data: data, cropped: cropped)
                : AV1SequenceHeaders.maximumFrameSizes(configuration: config, data: data)
        }
        guard let sizes else { throw .malformed("its image data is split into far more pieces than an image's") }
        return sizes
    }

    /// The chroma format and luma bit depth of `hvcC` (ISO/IEC 14496-15 8.3.3.1: bytes 16 and 17)
    /// or `av1C` (AV1-ISOBMFF 2.3.3: byte 3, high_bitdepth, twelve_bit, monochrome and the
    /// subsampling flags).
    private func codedFormat(of item: Item, isHEVC: Bool) -> CodedFormat? {
        guard let configuration = property(FourCC(isHEVC ? "hvcC" : "av1C"), of: item) else { return nil }
        let config = UnsafeRawBufferPointer(rebasing: bytes[configuration])
        if isHEVC {
            guard config.count >= 23 else { return nil }
            let chroma: [CodedFormat.Chroma] = [.monochrome, .yuv420, .yuv422, .yuv444]
            return CodedFormat(chroma: chroma[Int(config[16] & 3)], bitDepth: Int(config[17] & 7) + 8)
        }
        guard config.count >= 4 else { return nil }
        let flags = config[2]  // seq_tier_0, high_bitdepth, twelve_bit, monochrome, subsampling x, y
        let bitDepth = flags & 0x40 == 0 ? 8 : (flags & 0x20 == 0 ? 10 : 12)
        let chroma: CodedFormat.Chroma
        switch (flags & 0x10 != 0, flags & 0x08 != 0, flags & 0x04 != 0) {
        case (true, _, _): chroma = .monochrome
        case (false, true, true): chroma = .yuv420
        case (false, true, false): chroma = .yuv422
        default: chroma = .yuv444
        }
        return CodedFormat(chroma: chroma, bitDepth: bitDepth)
    }

    /// The turn that `irot` and `imir`, in the order the file associates them, give the stored
    /// pixels; nil when a `clap` crop comes with them.
    ///
    /// `irot` turns anticlockwise by quarter turns. libheif 1.15 mirrors top to bottom for
    /// `imir` axis 0 and left to right for axis 1 (`heif_transform_mirror_direction_vertical` is
    /// 0), which `heif-convert`'s output confirms (Tests/ImagePrepTests/HEIFOrientationTests.swift).
    private func orientation(of item: Item) throws(Problem) -> Orientation? {
        // A left-right flip, then clockwise quarter turns: what an Orientation does.
        var flip = false
        var turns = 0
        for index in item.properties {
            let property = properties[index]
            switch property.type {
            case FourCC("irot"):
                guard let angle = property.payload.first.map({ Int(bytes[$0] & 3) }) else {
                    throw .malformed("its rotation ('irot' box) is empty")
                }
                turns = (turns + 4 - angle) % 4
            case FourCC("imir"):
                guard let axis = property.payload.first.map({ Int(bytes[$0] & 1) }) else {
                    throw .malformed("its mirror ('imir' box) is empty")
                }
                // Left-right flip after R^turns F^flip is R^-turns F^(flip+1); top-bottom is R^2 F.
                flip.toggle()
                turns = ((axis == 1 ? 0 : 2) - turns + 4) % 4
            case FourCC("clap"):
                return nil
            default:
                continue
            }
        }
        switch (flip, turns) {
        case (false, 0): return .up
        case (true, 0): return .upMirrored
        case (false, 2): return .down
        case (true, 2): return .downMirrored
        case (true, 3): return .leftMirrored
        case (false, 1): return .right
        case (true, 1): return .rightMirrored
        default: return .left
        }
    }

    // MARK: The boxes

    /// One box: its type, its payload, and whether all of it is in the file.
    private struct Box {
        let type: FourCC
        let payload: Range<Int>
        let isComplete: Bool
        /// Where its type is written in the file.
        let typeOffset: Int
    }

    /// The boxes that fill `range`. Only the last top-level box may run past the end of a
    /// truncated file; a box inside another must fit in its parent.
    private static func boxes(
        in range: Range<Int>, of bytes: UnsafeRawBufferPointer, allowingTruncatedLast: Bool = false
    ) throws(Problem) -> [Box] {
        var found: [Box] = []
        var offset = range.lowerBound
        let reader = BigEndianReader(bytes)
        while offset < range.upperBound {
            guard found.count < maxEntries else { throw .malformed("it holds far more boxes than a photo has") }
            guard range.upperBound - offset >= 8, let size32 = reader.uint(at: offset, size: 4),
                let type = reader.uint(at: offset + 4, size: 4)
            else {
                if allowingTruncatedLast { break }
                throw .malformed("a box is cut short inside another")
            }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = reader.uint(at: offset + 8, size: 8), range.upperBound - offset >= 16 else {
                    throw .truncated("the file ends inside a box header")
                }
                header = 16
                size = large > UInt64(Int.max / 2) ? Int.max / 2 : Int(large)
            } else if size32 == 0 {
                size = range.upperBound - offset
            }
            guard size >= header else { throw .malformed("a box declares a size smaller than its own header") }
            let end = offset.addingReportingOverflow(size)
            let isComplete = !end.overflow && end.partialValue <= range.upperBound
            if !isComplete && !allowingTruncatedLast { throw .malformed("a box runs past the end of the box it is in") }
            let payloadEnd = isComplete ? end.partialValue : range.upperBound
            found.append(
                Box(
                    type: FourCC(value: UInt32(type)), payload: (offset + header)..<payloadEnd, isComplete: isComplete,
                    typeOffset: offset + 4))
            guard isComplete else { break }
            offset = end.partialValue
        }
        return found
    }

    /// Reads the `meta` box's children. Of each box libheif 1.15 reads one of, the first, as it
    /// does (`get_child_box`): what the walk checks and hides is then what libheif decodes, even
    /// in a file that holds a second `iinf`, `iloc` or `iprp` box to show the walk.
    private mutating func readMeta(_ range: Range<Int>) throws(Problem) {
        var iloc: Range<Int>?
        var idat: Range<Int>?
        var types: [ItemID: ItemEntry] = [:]
        var associations: [ItemID: [Int]] = [:]
        var seen: Set<FourCC> = []
        for box in try Self.boxes(in: range, of: bytes) {
            // Every `iref` box is read, so that a loop is found over all of them.
            guard box.type == FourCC("iref") || seen.insert(box.type).inserted else { continue }
            var reader = BigEndianReader(bytes, range: box.payload)
            switch box.type {
            case FourCC("pitm"):
                let version = try reader.fullBoxVersion()
                primary = ItemID(try reader.read(version == 0 ? 2 : 4))
            case FourCC("iinf"):
                types = try Self.itemTypes(box.payload, of: bytes)
            case FourCC("iloc"):
                iloc = box.payload
            case FourCC("idat"):
                idat = box.payload
            case FourCC("iprp"):
                associations = try readProperties(box.payload)
            case FourCC("iref"):
                if referenceBox == nil, box.payload.count >= 4 {
                    referenceBox = (
                        box.typeOffset - 4, (box.payload.lowerBound + 4)..<box.payload.upperBound,
                        bytes[box.payload.lowerBound] != 0
                    )
                }
                try readReferences(box.payload)
            default:
                continue
            }
        }
        for (id, entry) in types {
            items[id] = Item(type: entry.type, typeOffset: entry.offset, isEncoded: entry.isEncoded)
        }
        if let iloc { try readLocations(iloc, idat: idat) }
        for (id, indexes) in associations where items[id] != nil { items[id]!.properties = indexes }
    }

    /// An item's `infe` entry: its type, where in the file that type is written, and whether it
    /// names a content encoding (`Item.isEncoded`).
    private struct ItemEntry {
        let type: FourCC
        let offset: Int
        let isEncoded: Bool
    }

    /// Each item's entry. An item listed twice is the first entry's, as for libheif 1.15 (which
    /// keeps the first of each number), whatever the version of either.
    private static func itemTypes(_ range: Range<Int>, of bytes: UnsafeRawBufferPointer) throws(Problem) -> [ItemID:
        ItemEntry]
    {
        var reader = BigEndianReader(bytes, range: range)
        let version = try reader.fullBoxVersion()
        let count = try reader.read(version == 0 ? 2 : 4)
        guard count <= maxEntries else { throw .malformed("it lists far more items than a photo has") }
        var types: [ItemID: ItemEntry] = [:]
        var listed: Set<ItemID> = []
        for entry in try boxes(in: reader.offset..<range.upperBound, of: bytes) where entry.type == FourCC("infe") {
            var entryReader = BigEndianReader(bytes, range: entry.payload)
            let entryVersion = try entryReader.fullBoxVersion()
            let id = ItemID(try entryReader.read(entryVersion <= 2 ? 2 : 4))
            // Versions 0 and 1 come from before item types; nothing in them is an image.
            guard listed.insert(id).inserted, entryVersion >= 2 else { continue }
            _ = try entryReader.read(2)  // item_protection_index
            let offset = entryReader.offset
            let type = FourCC(value: UInt32(try entryReader.read(4)))
            let isEncoded =
                type == FourCC("mime")
                && namesContentEncoding(
                    UnsafeRawBufferPointer(rebasing: bytes[entryReader.offset..<entry.payload.upperBound]))
            types[id] = ItemEntry(type: type, offset: offset, isEncoded: isEncoded)
        }
        return types
    }

    /// Whether the strings of a `mime` item's `infe` (item_name, content_type, then the optional
    /// content_encoding, each ended by a NUL) name a content encoding. libheif 1.15 reads a
    /// string cut short by the box's end as empty; one that is there, ended or not, counts here.
    private static func namesContentEncoding(_ strings: UnsafeRawBufferPointer) -> Bool {
        var rest = strings[...]
        for _ in 0..<2 {
            guard let end = rest.firstIndex(of: 0) else { return false }
            rest = rest[(end + 1)...]
        }
        return rest.first.map { $0 != 0 } ?? false
    }

    // MARK: Metadata libheif cannot read

    /// The Exif and XMP items that declare more than `HEIFMetadata.maxExifItemSize` bytes. One
    /// that only runs past the end is a file cut short, refused as such.
    var unreadableMetadataItems: [Item] {
        items.values.filter { item in
            [FourCC("Exif"), FourCC("mime")].contains(item.type) && item.declaredLength > HEIFMetadata.maxExifItemSize
        }
    }

    /// What is said of the metadata items that are hidden from libheif and not read, whose
    /// metadata is then lost: one too large or cut short, one stored compressed (`Item.isEncoded`).
    var unreadItemWarnings: [PhotoWarning] {
        (unreadableMetadataItems.isEmpty ? [] : [HEIFMetadata.unreadableItemWarning])
            + (items.values.contains(where: \.isEncoded) ? [HEIFMetadata.encodedItemWarning] : [])
    }

    /// `ipco`'s property boxes into `properties`; `ipma`'s associations, by item. As libheif 1.15
    /// reads them: the first `ipco` box, and of an item's associations the first entry's (it
    /// joins every `ipma` box's entries and takes the first it finds).
    private mutating func readProperties(_ range: Range<Int>) throws(Problem) -> [ItemID: [Int]] {
        var associations: [ItemID: [Int]] = [:]
        var hasReadProperties = false
        for box in try Self.boxes(in: range, of: bytes) {
            if box.type == FourCC("ipco"), !hasReadProperties {
                hasReadProperties = true
                properties = try Self.boxes(in: box.payload, of: bytes).map {
                    Property(type: $0.type, payload: $0.payload)
                }
            } else if box.type == FourCC("ipma") {
                var reader = BigEndianReader(bytes, range: box.payload)
                let version = try reader.fullBoxVersion()
                let hasLargeIndexes = reader.flags & 1 == 1
                let count = try reader.read(4)
                guard count <= Self.maxEntries else {
                    throw .malformed("it associates far more items than a photo has")
                }
                for _ in 0..<count {
                    let id = ItemID(try reader.read(version < 1 ? 2 : 4))
                    var indexes: [Int] = []
                    for _ in 0..<(try reader.read(1)) {
                        let value = try reader.read(hasLargeIndexes ? 2 : 1)
                        let index = Int(value & (hasLargeIndexes ? 0x7FFF : 0x7F))
                        // Index 0 means "no property".
                        if index > 0 { indexes.append(index - 1) }
                    }
                    if associations[id] == nil { associations[id] = indexes }
                }
            }
        }
        for indexes in associations.values where indexes.contains(where: { $0 >= properties.count }) {
            throw .malformed("an item is given a property that is not in it")
        }
        return associations
    }

    private mutating func readReferences(_ range: Range<Int>) throws(Problem) {
        var reader = BigEndianReader(bytes, range: range)
        let version = try reader.fullBoxVersion()
        for box in try Self.boxes(in: reader.offset..<range.upperBound, of: bytes) {
            var entry = BigEndianReader(bytes, range: box.payload)
            let idSize = version == 0 ? 2 : 4
            let from = ItemID(try entry.read(idSize))
            var to: [ItemID] = []
            for _ in 0..<(try entry.read(2)) { to.append(ItemID(try entry.read(idSize))) }
            references.append(Reference(type: box.type, from: from, to: to, typeOffset: box.typeOffset))
            guard references.count <= Self.maxEntries else {
                throw .malformed("it holds far more references than a photo has")
            }
        }
    }

    /// `iloc`: each item's extents, as ranges of the file (construction method 0) or of `idat` (1).
    /// An item located twice is where the first entry says, as libheif 1.15 reads it.
    private mutating func readLocations(_ range: Range<Int>, idat: Range<Int>?) throws(Problem) {
        var located: Set<ItemID> = []
        var reader = BigEndianReader(bytes, range: range)
        let version = try reader.fullBoxVersion()
        guard version <= 2 else { throw .unsupported("its item locations ('iloc' box) are of an unknown version") }
        let sizes = try reader.read(2)
        let offsetSize = Int(sizes >> 12 & 15)
        let lengthSize = Int(sizes >> 8 & 15)
        let baseOffsetSize = Int(sizes >> 4 & 15)
        let indexSize = version >= 1 ? Int(sizes & 15) : 0
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw .malformed("its item locations ('iloc' box) use a field size the standard does not allow")
        }
        let count = try reader.read(version < 2 ? 2 : 4)
        guard count <= Self.maxEntries else { throw .malformed("it locates far more items than a photo has") }
        var extentTotal = 0
        for _ in 0..<count {
            let id = ItemID(try reader.read(version < 2 ? 2 : 4))
            let method = version >= 1 ? try reader.read(2) & 15 : 0
            let dataReference = try reader.read(2)
            let base = try reader.read(baseOffsetSize)
            let extentCount = try reader.read(2)
            var extents: [Range<Int>] = []
            var isTruncated = false
            var overlongLengths: [(offset: Int, size: Int, available: UInt64)] = []
            var declaredLength = 0
            let space = method == 1 ? (idat ?? 0..<0) : 0..<bytes.count
            extentTotal += Int(extentCount)
            guard extentTotal <= Self.maxEntries else {
                throw .malformed("its items are split into far more pieces than a photo's are")
            }
            for _ in 0..<extentCount {
                _ = try reader.read(indexSize)
                let offset = try reader.read(offsetSize)
                let lengthField = (offset: reader.offset, size: lengthSize)
                let length = try reader.read(lengthSize)
                let sum = declaredLength.addingReportingOverflow(Int(clamping: length))
                declaredLength = sum.overflow ? Int.max : sum.partialValue
                // An extent that starts or ends past the end of the file is cut at the end, and
                // marks the item as truncated.
                let start = base.addingReportingOverflow(offset)
                guard !start.overflow, start.partialValue <= UInt64(space.count) else {
                    isTruncated = true
                    extents.append(space.upperBound..<space.upperBound)
                    continue
                }
                let lower = space.lowerBound + Int(start.partialValue)
                let remaining = UInt64(space.upperBound - lower)
                if length > remaining {
                    isTruncated = true
                    overlongLengths.append((lengthField.offset, lengthField.size, remaining))
                }
                extents.append(lower..<(length == 0 || length > remaining ? space.upperBound : lower + Int(length)))
            }
            guard items[id] != nil, located.insert(id).inserted else { continue }
            guard dataReference == 0, method <= 1, method == 0 || idat != nil else {
                throw .unsupported(
                    "its image data is stored in a way libheif does not read (another file, or an item offset)")
            }
            items[id]!.extents = extents
            items[id]!.isTruncated = isTruncated
            items[id]!.overlongLengths = overlongLengths
            items[id]!.declaredLength = declaredLength
        }
    }
}

/// Big-endian fields read within a range, refusing to read past it.
private struct BigEndianReader {
    let bytes: UnsafeRawBufferPointer
    var offset: Int
    let end: Int
    private(set) var flags: UInt32 = 0

    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>? = nil) {
        self.bytes = bytes
        offset = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    /// `size` bytes at `position` as a big-endian number; nil past the end.
    func uint(at position: Int, size: Int) -> UInt64? {
        guard position >= 0, size <= 8, position <= end - size else { return nil }
        var value: UInt64 = 0
        for index in 0..<size { value = value << 8 | UInt64(bytes[position + index]) }
        return value
    }

    /// The next `size` bytes (0, 1, 2, 4 or 8) as a big-endian number.
    mutating func read(_ size: Int) throws(HEIFContainer.Problem) -> UInt64 {
        guard let value = uint(at: offset, size: size) else { throw .malformed("a box is cut short") }
        offset += size
        return value
    }

    /// A full box's version, keeping its flags.
    mutating func fullBoxVersion() throws(HEIFContainer.Problem) -> UInt64 {
        let word = try read(4)
        flags = UInt32(word & 0xFF_FFFF)
        return word >> 24
    }
}

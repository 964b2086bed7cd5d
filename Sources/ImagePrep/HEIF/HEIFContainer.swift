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
        .heic, .heix, .heim, .heis, .hevc, .hevx,
        .hevm, .hevs, .mif1, .mif2, .msf1, .avif,
        .avis,
    ]

    /// Whether `bytes` start with an `ftyp` box that names a HEIF brand, major or compatible, as a
    /// HEIC, HEIF or AVIF file does, whatever its name. Such a file is read as HEIF even when
    /// the rest of it is damaged, so that the error says what is wrong with it.
    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let reader = ByteReader(bytes)
        guard reader.uint(at: 4, size: 4) == UInt64(FourCC.ftyp.value), let size = reader.uint(at: 0, size: 4)
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
            if box.type == .meta {
                guard box.isComplete else { throw .truncated("the file ends inside its 'meta' box") }
                meta = box.payload
                break
            }
        }
        guard let meta, meta.count >= 4 else { throw .truncated("the file ends before its 'meta' box") }
        try readMeta((meta.lowerBound + 4)..<meta.upperBound)
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
            guard box.type == .iref || seen.insert(box.type).inserted else { continue }
            var reader = ByteReader(bytes, range: box.payload)
            switch box.type {
            case .pitm:
                let version = try reader.fullBoxHeader().version
                primary = ItemID(try reader.field(version == 0 ? 2 : 4))
            case .iinf:
                types = try Self.itemTypes(box.payload, of: bytes)
            case .iloc:
                iloc = box.payload
            case .idat:
                idat = box.payload
            case .iprp:
                associations = try readProperties(box.payload)
            case .iref:
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
        var reader = ByteReader(bytes, range: range)
        let version = try reader.fullBoxHeader().version
        let count = try reader.field(version == 0 ? 2 : 4)
        guard count <= maxEntries else { throw .malformed("it lists far more items than a photo has") }
        var types: [ItemID: ItemEntry] = [:]
        var listed: Set<ItemID> = []
        for entry in try boxes(in: reader.offset..<range.upperBound, of: bytes) where entry.type == .infe {
            var entryReader = ByteReader(bytes, range: entry.payload)
            let entryVersion = try entryReader.fullBoxHeader().version
            let id = ItemID(try entryReader.field(entryVersion <= 2 ? 2 : 4))
            // Versions 0 and 1 come from before item types; nothing in them is an image.
            guard listed.insert(id).inserted, entryVersion >= 2 else { continue }
            _ = try entryReader.field(2)  // item_protection_index
            let offset = entryReader.offset
            let type = FourCC(value: UInt32(try entryReader.field(4)))
            let isEncoded =
                type == .mime
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

    /// `ipco`'s property boxes into `properties`; `ipma`'s associations, by item. As libheif 1.15
    /// reads them: the first `ipco` box, and of an item's associations the first entry's (it
    /// joins every `ipma` box's entries and takes the first it finds).
    private mutating func readProperties(_ range: Range<Int>) throws(Problem) -> [ItemID: [Int]] {
        var associations: [ItemID: [Int]] = [:]
        var hasReadProperties = false
        for box in try Self.boxes(in: range, of: bytes) {
            if box.type == .ipco, !hasReadProperties {
                hasReadProperties = true
                properties = try Self.boxes(in: box.payload, of: bytes).map {
                    Property(type: $0.type, payload: $0.payload)
                }
            } else if box.type == .ipma {
                var reader = ByteReader(bytes, range: box.payload)
                let (version, flags) = try reader.fullBoxHeader()
                let hasLargeIndexes = flags & 1 == 1
                let count = try reader.field(4)
                guard count <= Self.maxEntries else {
                    throw .malformed("it associates far more items than a photo has")
                }
                for _ in 0..<count {
                    let id = ItemID(try reader.field(version < 1 ? 2 : 4))
                    var indexes: [Int] = []
                    for _ in 0..<(try reader.field(1)) {
                        let value = try reader.field(hasLargeIndexes ? 2 : 1)
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
        var reader = ByteReader(bytes, range: range)
        let version = try reader.fullBoxHeader().version
        for box in try Self.boxes(in: reader.offset..<range.upperBound, of: bytes) {
            var entry = ByteReader(bytes, range: box.payload)
            let idSize = version == 0 ? 2 : 4
            let from = ItemID(try entry.field(idSize))
            var to: [ItemID] = []
            for _ in 0..<(try entry.field(2)) { to.append(ItemID(try entry.field(idSize))) }
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
        var reader = ByteReader(bytes, range: range)
        let version = try reader.fullBoxHeader().version
        guard version <= 2 else { throw .unsupported("its item locations ('iloc' box) are of an unknown version") }
        let sizes = try reader.field(2)
        let offsetSize = Int(sizes >> 12 & 15)
        let lengthSize = Int(sizes >> 8 & 15)
        let baseOffsetSize = Int(sizes >> 4 & 15)
        let indexSize = version >= 1 ? Int(sizes & 15) : 0
        for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where ![0, 4, 8].contains(size) {
            throw .malformed("its item locations ('iloc' box) use a field size the standard does not allow")
        }
        let count = try reader.field(version < 2 ? 2 : 4)
        guard count <= Self.maxEntries else { throw .malformed("it locates far more items than a photo has") }
        var extentTotal = 0
        for _ in 0..<count {
            let id = ItemID(try reader.field(version < 2 ? 2 : 4))
            let method = version >= 1 ? try reader.field(2) & 15 : 0
            let dataReference = try reader.field(2)
            let base = try reader.field(baseOffsetSize)
            let extentCount = try reader.field(2)
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
                _ = try reader.field(indexSize)
                let offset = try reader.field(offsetSize)
                let lengthField = (offset: reader.offset, size: lengthSize)
                let length = try reader.field(lengthSize)
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

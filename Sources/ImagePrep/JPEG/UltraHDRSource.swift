#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a photo's HDR gain map is not carried. Each is our own sentence, with no value from the
/// file but sizes and counts, for the warning that says the upload is SDR only.
enum GainMapProblem: Error, Equatable, Sendable {
    case malformedIndex(String)
    case tooManyImages(Int)
    case noGainMapItem
    /// The gain map's range, in the index, runs past the end of the file.
    case pastEnd
    /// It starts inside the primary (or before it).
    case overlapsPrimary
    /// What is there is not a JPEG.
    case notJPEG
    case tooLarge(PixelSize, base: PixelSize)
    case metadata(String)
    case undecodable(String)
    /// An iPhone's: Apple's metadata gives no headroom to derive the Ultra HDR values from.
    case headroom(String)
    /// A HEIC's auxiliary image says it is an HDR gain map (its XMP's `HDRGainMapVersion` or
    /// `hdrgm:Version`) but is not of a gain map type read here.
    case notGainMapType
    /// A HEIC whose XMP says it has a gain map (`hdrgm:Version`) has no image that is one.
    case noGainMapImage
    /// A JPEG's Extended XMP, which says which image is the gain map, cannot be reassembled.
    case extendedXMP(String)
    /// A JPEG's MPF image is a gain map (its own metadata says so), but the photo's XMP does not
    /// say it is Ultra HDR.
    case unlistedGainMap
    /// A HEIC's gain map is not in the photo's proportions.
    case mismatchedAspect(PixelSize, base: PixelSize)

    var reason: String {
        switch self {
        case .malformedIndex(let detail): "its MPF index is malformed: \(detail)"
        case .tooManyImages(let count):
            "its MPF index lists \(count) images, more than the \(MPFIndex.maximumEntries) read"
        case .noGainMapItem: "its XMP container lists no gain map that the MPF index has"
        case .pastEnd: "the MPF index puts the gain map past the end of the file"
        case .overlapsPrimary: "the MPF index puts the gain map inside the photo itself"
        case .notJPEG: "what the MPF index points at is not a JPEG"
        case .tooLarge(let size, let base): "the gain map declares \(size) pixels, larger than the \(base) photo"
        case .metadata(let detail): "the gain map's metadata cannot be used: \(detail)"
        case .undecodable(let detail): "the gain map cannot be decoded: \(detail)"
        case .headroom(let detail): "its headroom cannot be derived from Apple's metadata: \(detail)"
        case .notGainMapType:
            "an auxiliary image says it is an HDR gain map but is not of a gain map type read here (Apple's or Samsung's)"
        case .noGainMapImage: "the photo's XMP says it has one, but none of its auxiliary images is one"
        case .extendedXMP(let detail):
            "its Extended XMP, which says which image is the gain map, cannot be read: \(detail)"
        case .unlistedGainMap:
            "an image of its MPF index is a gain map, but the photo's XMP does not say it is Ultra HDR"
        case .mismatchedAspect(let size, let base):
            "the gain map's \(size) pixels are not in the proportions of the \(base) photo"
        }
    }

    var warning: PhotoWarning {
        PhotoWarning(.gainMap, "the HDR gain map is left out of the upload, which is SDR only, because \(reason).")
    }
}

/// The gain map of an Ultra HDR JPEG (Google's "Ultra HDR Image Format v1.0") or of an iPhone's
/// JPEG, found and checked in the original's bytes before anything of it is decoded.
///
/// The primary's XMP (with its Extended XMP, reassembled) says the file is Ultra HDR
/// (`hdrgm:Version`) and which image of its container directory is the gain map, or its ISO
/// 21496-1 version segment says so and the gain map is the second image; the MPF index says
/// where that image lies. The gain map must lie wholly after the primary's first scan, start with
/// SOI, be no larger than the primary, and carry its own `hdrgm` XMP or ISO 21496-1 metadata.
/// ISO 21496-1 segments (APP2 `urn:iso:std:iso:ts:21496:-1`) are carried byte for byte: they
/// hold no size, so resizing the gain map does not change them; an ISO-only gain map's values are
/// said again as hdrgm XMP.
///
/// An iPhone's JPEG ("Most Compatible") says nothing of it in the primary: its gain map is an
/// image of the MPF index whose own XMP says `apdi:AuxiliaryImageType`
/// `urn:com:apple:photo:2020:aux:hdrgainmap`, one gray channel, whose headroom is Apple's
/// (`AppleHDRHeadroom`) and whose samples are remapped as a HEIC's are.
struct UltraHDRSource: Sendable {
    /// Where the gain map's JPEG lies in the original.
    let range: Range<Int>
    let size: PixelSize
    let metadata: GainMapMetadata
    /// The primary's ISO 21496-1 segments (its version), whole, in order.
    let primaryISOSegments: [Data]
    /// The gain map's ISO 21496-1 segments (the metadata itself), whole, in order.
    let gainMapISOSegments: [Data]
    /// For each 8-bit sample, the upload's (Apple's gain map); nil to carry them as they are.
    var samples: [UInt8]? = nil

    static let isoSignature: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)

    /// The gain map of the JPEG `bytes` whose marker walk is `layout`.
    ///
    /// - Returns: nil when the photo has none to carry: no `hdrgm` XMP, no ISO 21496-1 segment
    ///   and no MPF image that is a gain map by its own metadata (most photos), or no MPF index
    ///   (an editor that kept the XMP dropped the gain map: the corpus's Pixel 8 Pro photo cut to
    ///   8x8), or a marker walk that stopped before the scan (which warns by itself); else the
    ///   gain map, or why it cannot be carried.
    static func find(in bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> Result<UltraHDRSource, GainMapProblem>? {
        // The MPF index first: most photos have none, and then their XMP need not be read.
        let mpf = layout.segments.first {
            $0.marker == JPEGSegment.app2 && bytes.hasPrefix(MPFIndex.signature, at: $0.payload)
        }
        guard let mpf, let scan = layout.segments.last, scan.marker == JPEGSegment.startOfScan,
            let baseSize = layout.frame?.size
        else { return nil }
        var xmp = layout.xmpPacket(in: bytes)
        var extendedProblem: GainMapProblem?
        if let standard = xmp, !XMPText.values(of: "xmpNote:HasExtendedXMP", in: standard).isEmpty {
            if let guid = ExtendedXMP.guid(in: standard) {
                switch ExtendedXMP.packet(guid: guid, in: bytes, layout: layout) {
                case .success(let extended): xmp = standard + extended
                case .failure(let problem): extendedProblem = problem
                }
            } else {
                extendedProblem = .extendedXMP("the photo's XMP names it by no GUID of 32 hexadecimal digits")
            }
        }
        let primaryISO = layout.segments.filter {
            $0.marker == JPEGSegment.app2 && bytes.hasPrefix(isoSignature, at: $0.payload)
        }
        let saysUltraHDR =
            !primaryISO.isEmpty || (xmp.map { !XMPText.values(of: "hdrgm:Version", in: $0).isEmpty } ?? false)
        let index: MPFIndex
        switch MPFIndex.read(mpf, in: bytes) {
        case .success(let read): index = read
        case .failure(let problem): return saysUltraHDR ? .failure(problem) : nil
        }
        let primaryEnd = scan.bytes.upperBound
        guard saysUltraHDR else {
            return gainMapByItsOwnMetadata(
                in: bytes, layout: layout, index: index, primaryEnd: primaryEnd, baseSize: baseSize,
                extendedProblem: extendedProblem)
        }
        // The container directory names the gain map's entry; without one, Ultra HDR's is the
        // second.
        let semantics = xmp.map(XMPText.itemSemantics) ?? []
        let entryNumber = semantics.isEmpty ? 1 : semantics.firstIndex(of: "GainMap")
        guard let entryNumber, entryNumber >= 1, entryNumber < index.entries.count else {
            return .failure(.noGainMapItem)
        }
        let range: Range<Int>
        switch image(index.entries[entryNumber], of: index, in: bytes, after: primaryEnd) {
        case .success(let found): range = found
        case .failure(let problem): return .failure(problem)
        }
        let gainMap = UnsafeRawBufferPointer(rebasing: bytes[range])
        let gainMapLayout = SegmentWalker.walk(gainMap)
        guard let frame = gainMapLayout.frame else { return .failure(.undecodable("it has no frame header")) }
        guard frame.size.width <= baseSize.width, frame.size.height <= baseSize.height else {
            return .failure(.tooLarge(frame.size, base: baseSize))
        }
        let gainMapISO = gainMapLayout.segments.filter {
            $0.marker == JPEGSegment.app2 && gainMap.hasPrefix(isoSignature, at: $0.payload)
        }
        // hdrgm XMP where the gain map has it; else its ISO 21496-1 metadata, which the upload
        // carries byte for byte and says again as hdrgm XMP, for the readers of Ultra HDR v1.0.
        let gainMapXMP = gainMapLayout.xmpPacket(in: gainMap)
        let saysHDRGM = gainMapXMP.map { !XMPText.values(of: "hdrgm:Version", in: $0).isEmpty } ?? false
        let read: Result<GainMapMetadata, GainMapProblem>
        if let iso = gainMapISO.first, !saysHDRGM {
            let block = (iso.payload.lowerBound + isoSignature.count)..<iso.payload.upperBound
            read = ISOGainMapMetadata.read(UnsafeRawBufferPointer(rebasing: gainMap[block]))
        } else if let gainMapXMP {
            read = GainMapMetadata.read(xmp: gainMapXMP)
        } else {
            return .failure(.metadata("it has no hdrgm XMP and no ISO 21496-1 metadata"))
        }
        let metadata: GainMapMetadata
        switch read {
        case .success(let found): metadata = found
        case .failure(let problem): return .failure(problem)
        }
        return .success(
            UltraHDRSource(
                range: range, size: frame.size, metadata: metadata,
                primaryISOSegments: primaryISO.map { bytes.data(in: $0.bytes) },
                gainMapISOSegments: gainMapISO.map { gainMap.data(in: $0.bytes) }))
    }

    /// Where the MPF image `entry` lies in `bytes`: a JPEG that starts with SOI, wholly inside
    /// the file and after the primary's first scan (`primaryEnd`); or why it does not.
    private static func image(
        _ entry: MPFIndex.Entry, of index: MPFIndex, in bytes: UnsafeRawBufferPointer, after primaryEnd: Int
    ) -> Result<Range<Int>, GainMapProblem> {
        guard entry.attribute & MPFIndex.formatMask == 0 else { return .failure(.notJPEG) }
        let (start, startOverflow) = index.origin.addingReportingOverflow(entry.offset)
        let (end, endOverflow) = start.addingReportingOverflow(entry.size)
        guard !startOverflow, !endOverflow, end <= bytes.count else { return .failure(.pastEnd) }
        guard start >= primaryEnd else { return .failure(.overlapsPrimary) }
        guard entry.size >= 4, bytes[start] == 0xFF, bytes[start + 1] == JPEGSegment.startOfImage else {
            return .failure(.notJPEG)
        }
        return .success(start..<end)
    }

    /// The gain map of a photo whose own metadata does not say it has one: the first MPF image
    /// whose XMP says it is an iPhone's HDR gain map (`apdi:AuxiliaryImageType`, or
    /// `HDRGainMapVersion` alone), with Apple's headroom. Nil when no image is a gain map;
    /// a failure when an image is an Ultra HDR gain map by its own metadata (`hdrgm` XMP or an
    /// ISO 21496-1 block) that the photo does not list, naming `extendedProblem` when its
    /// Extended XMP, which would, could not be read.
    private static func gainMapByItsOwnMetadata(
        in bytes: UnsafeRawBufferPointer, layout: JPEGLayout, index: MPFIndex, primaryEnd: Int, baseSize: PixelSize,
        extendedProblem: GainMapProblem?
    ) -> Result<UltraHDRSource, GainMapProblem>? {
        var unlocated: GainMapProblem?
        for entry in index.entries.dropFirst() {
            let range: Range<Int>
            switch image(entry, of: index, in: bytes, after: primaryEnd) {
            case .success(let found): range = found
            case .failure(let problem):
                unlocated = unlocated ?? problem
                continue
            }
            let image = UnsafeRawBufferPointer(rebasing: bytes[range])
            let imageLayout = SegmentWalker.walk(image)
            let xmp = imageLayout.xmpPacket(in: image) ?? []
            let auxiliaryType = XMPText.values(of: "apdi:AuxiliaryImageType", in: xmp).first
            let saysAppleVersion = !XMPText.values(of: "HDRGainMap:HDRGainMapVersion", in: xmp).isEmpty
            if auxiliaryType == HEIFContainer.appleGainMapType || (auxiliaryType == nil && saysAppleVersion) {
                return appleGainMap(
                    at: range, layout: imageLayout, xmp: xmp, photo: bytes, photoLayout: layout, baseSize: baseSize)
            }
            let saysUltraHDR =
                !XMPText.values(of: "hdrgm:Version", in: xmp).isEmpty
                || imageLayout.segments.contains {
                    $0.marker == JPEGSegment.app2 && image.hasPrefix(isoSignature, at: $0.payload)
                }
            if saysUltraHDR { return .failure(extendedProblem ?? .unlistedGainMap) }
        }
        // An iPhone's HDR photo (its maker note gives Apple's headroom) whose gain map cannot be
        // located (a file cut short loses it first: it is last) says why, as an Ultra HDR one does.
        if let unlocated, let tiff = appleTIFF(of: bytes, layout: layout),
            case .success = tiff.withUnsafeBytes({ AppleHDRHeadroom.read(tiff: $0) })
        {
            return .failure(unlocated)
        }
        return nil
    }

    /// The photo's Exif TIFF block, where Apple's maker note is.
    private static func appleTIFF(of photo: UnsafeRawBufferPointer, layout: JPEGLayout) -> [UInt8]? {
        layout.exifSegment(in: photo).map { segment in
            [UInt8](
                photo.data(
                    in: (segment.payload.lowerBound + JPEGLayout.exifSignature.count)..<segment.payload.upperBound))
        }
    }

    /// An iPhone JPEG's gain map at `range`: one gray channel no larger than the photo, its
    /// headroom from its version 2 XMP or the photo's maker note, its samples to be remapped.
    private static func appleGainMap(
        at range: Range<Int>, layout: JPEGLayout, xmp: [UInt8], photo: UnsafeRawBufferPointer, photoLayout: JPEGLayout,
        baseSize: PixelSize
    ) -> Result<UltraHDRSource, GainMapProblem> {
        guard let frame = layout.frame else { return .failure(.undecodable("it has no frame header")) }
        guard frame.size.width <= baseSize.width, frame.size.height <= baseSize.height else {
            return .failure(.tooLarge(frame.size, base: baseSize))
        }
        guard frame.componentCount == 1 else {
            return .failure(.undecodable("it is not one gray channel, as Apple's gain map is"))
        }
        let tiff = appleTIFF(of: photo, layout: photoLayout)
        return AppleHDRHeadroom.read(gainMapXMP: [xmp], tiff: tiff).map { headroom in
            UltraHDRSource(
                range: range, size: frame.size, metadata: headroom.ultraHDRMetadata, primaryISOSegments: [],
                gainMapISOSegments: [], samples: headroom.ultraHDRSamples)
        }
    }
}

extension JPEGLayout {
    /// The packet of the first XMP APP1 (`http://ns.adobe.com/xap/1.0/`), without its signature.
    func xmpPacket(in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let signature = GainMapMetadata.xmpSignature
        guard
            let segment = segments.first(where: {
                $0.marker == JPEGSegment.app1 && bytes.hasPrefix(signature, at: $0.payload)
            })
        else { return nil }
        return [UInt8](bytes.data(in: (segment.payload.lowerBound + signature.count)..<segment.payload.upperBound))
    }
}

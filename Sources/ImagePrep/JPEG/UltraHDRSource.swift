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
    /// An iPhone HEIC's: Apple's maker note gives no headroom to derive the Ultra HDR values from.
    case headroom(String)
    /// A HEIC's auxiliary image says it is an HDR gain map (its XMP's `HDRGainMapVersion` or
    /// `hdrgm:Version`) but is not of a gain map type read here.
    case notGainMapType
    /// A HEIC whose XMP says it has a gain map (`hdrgm:Version`) has no image that is one.
    case noGainMapImage
    /// An iPhone HEIC's gain map is not in the photo's proportions.
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
        case .mismatchedAspect(let size, let base):
            "the gain map's \(size) pixels are not in the proportions of the \(base) photo"
        }
    }

    var warning: PhotoWarning {
        PhotoWarning(.gainMap, "the HDR gain map is left out of the upload, which is SDR only, because \(reason).")
    }
}

/// The gain map of an Ultra HDR JPEG (Google's "Ultra HDR Image Format v1.0"), found and checked
/// in the original's bytes before anything of it is decoded.
///
/// The primary's XMP says the file is one (`hdrgm:Version`) and which image of its container
/// directory is the gain map, or its ISO 21496-1 version segment says so and the gain map is
/// the second image; the MPF index says where that image lies. The gain map must lie wholly
/// after the primary's first scan, start with SOI, be no larger than the primary, and carry its
/// own `hdrgm` XMP or ISO 21496-1 metadata. ISO 21496-1 segments (APP2
/// `urn:iso:std:iso:ts:21496:-1`) are carried byte for byte: they hold no size, so resizing the
/// gain map does not change them; an ISO-only gain map's values are said again as hdrgm XMP.
struct UltraHDRSource: Sendable {
    /// Where the gain map's JPEG lies in the original.
    let range: Range<Int>
    let size: PixelSize
    let metadata: GainMapMetadata
    /// The primary's ISO 21496-1 segments (its version), whole, in order.
    let primaryISOSegments: [Data]
    /// The gain map's ISO 21496-1 segments (the metadata itself), whole, in order.
    let gainMapISOSegments: [Data]

    static let isoSignature: [UInt8] = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)

    /// The gain map of the JPEG `bytes` whose marker walk is `layout`.
    ///
    /// - Returns: nil when the photo has none to carry: no `hdrgm` XMP and no ISO 21496-1
    ///   segment (most photos, and Apple's own MPF gain maps, which Ultra HDR readers do not read
    ///   either), or no MPF index (an editor that kept the XMP dropped the gain map: the corpus's
    ///   Pixel 8 Pro photo cut to 8x8), or a marker walk that stopped before the scan (which warns
    ///   by itself); else the gain map, or why it cannot be carried.
    static func find(in bytes: UnsafeRawBufferPointer, layout: JPEGLayout) -> Result<UltraHDRSource, GainMapProblem>? {
        // The MPF index first: most photos have none, and then their XMP need not be read.
        let mpf = layout.segments.first {
            $0.marker == JPEGSegment.app2 && bytes.hasPrefix(MPFIndex.signature, at: $0.payload)
        }
        guard let mpf, let scan = layout.segments.last, scan.marker == JPEGSegment.startOfScan,
            let baseSize = layout.frame?.size
        else { return nil }
        let xmp = layout.xmpPacket(in: bytes)
        let primaryISO = layout.segments.filter {
            $0.marker == JPEGSegment.app2 && bytes.hasPrefix(isoSignature, at: $0.payload)
        }
        let saysUltraHDR = xmp.map { !XMPText.values(of: "hdrgm:Version", in: $0).isEmpty } ?? false
        guard saysUltraHDR || !primaryISO.isEmpty else { return nil }
        let index: MPFIndex
        switch MPFIndex.read(mpf, in: bytes) {
        case .success(let read): index = read
        case .failure(let problem): return .failure(problem)
        }
        // The container directory names the gain map's entry; without one, Ultra HDR's is the
        // second.
        let semantics = xmp.map(XMPText.itemSemantics) ?? []
        let entryNumber = semantics.isEmpty ? 1 : semantics.firstIndex(of: "GainMap")
        guard let entryNumber, entryNumber >= 1, entryNumber < index.entries.count else {
            return .failure(.noGainMapItem)
        }
        let entry = index.entries[entryNumber]
        guard entry.attribute & MPFIndex.formatMask == 0 else { return .failure(.notJPEG) }
        let (start, startOverflow) = index.origin.addingReportingOverflow(entry.offset)
        let (end, endOverflow) = start.addingReportingOverflow(entry.size)
        guard !startOverflow, !endOverflow, end <= bytes.count else { return .failure(.pastEnd) }
        guard start >= scan.bytes.upperBound else { return .failure(.overlapsPrimary) }
        guard entry.size >= 4, bytes[start] == 0xFF, bytes[start + 1] == JPEGSegment.startOfImage else {
            return .failure(.notJPEG)
        }
        let gainMap = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
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
                range: start..<end, size: frame.size, metadata: metadata,
                primaryISOSegments: primaryISO.map { bytes.data(in: $0.bytes) },
                gainMapISOSegments: gainMapISO.map { gainMap.data(in: $0.bytes) }))
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

internal import PlatformLayer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The headroom of an iPhone's HDR gain map, derived from its Apple maker note exactly as Apple's
/// "Applying Apple HDR effect to your photos" (developer.apple.com/documentation/appkit/
/// applying-apple-hdr-effect-to-your-photos) says: from the maker note's keys 33 (0x0021,
/// exiftool's HDRHeadroom) and 48 (0x0030, HDRGain), the stops the gain map adds, and the headroom
/// 2^stops, the ratio of the brightest HDR white to SDR white. Apple then applies the gain map as
/// HDR = SDR × (1 + (headroom − 1) × gainMap), all three in linear light, the gain map's samples
/// linearized by Rec. 709's transfer function (the document: "encoded using the Rec.709 transfer
/// function"). docs/library.md ("HDR gain maps") has the derivation of the Ultra HDR values.
///
/// A gain map of version 2 (`HDRGainMap:HDRGainMapVersion` 131072 or more, iOS 18 on) says its
/// headroom itself, in its XMP's `HDRGainMap:HDRGainMapHeadroom`, which is then read instead: on
/// the iPhone 15 Plus fixture both give 2.787 stops.
struct AppleHDRHeadroom: Equatable, Sendable {
    /// The stops of headroom over SDR: log2 of the headroom, positive.
    let stops: Double

    static let makerNoteTag: UInt16 = 0x927C
    static let exifIFDPointer: UInt16 = 0x8769
    static let headroomTag: UInt16 = 0x0021
    static let gainTag: UInt16 = 0x0030
    /// "Apple iOS", NUL, a version (0x0001), then "MM": the IFD follows at 14 (exiftool's Apple.pm
    /// and MakerNotes.pm), its offsets counted from the maker note's first byte.
    static let signature: [UInt8] = Array("Apple iOS\0".utf8)
    static let ifdOffset = 14
    /// More stops than this is no photo's: Apple's formula gives at most 3 for the values it
    /// documents, and only a negative key 48 gives more.
    static let maximumStops = 10.0

    /// The headroom of key 33 and key 48 of the maker note, by Apple's code: for key 33 below 1,
    /// `-20 × maker48 + 1.8` stops up to a key 48 of 0.01 and `-0.101 × maker48 + 1.601` above;
    /// else `-70 × maker48 + 3.0` and `-0.303 × maker48 + 2.303`. Not clamped: `headroom` takes
    /// its maximum with 0, and `read` refuses what is not positive.
    init(maker33: Double, maker48: Double) {
        if maker33 < 1.0 {
            stops = maker48 <= 0.01 ? -20.0 * maker48 + 1.8 : -0.101 * maker48 + 1.601
        } else {
            stops = maker48 <= 0.01 ? -70.0 * maker48 + 3.0 : -0.303 * maker48 + 2.303
        }
    }

    /// The headroom a version 2 gain map's XMP says, as a ratio (`HDRGainMapHeadroom` 6.9025 is
    /// 2.787 stops).
    init(gainMapHeadroom: Double) {
        stops = log2(gainMapHeadroom)
    }

    /// The headroom of an iPhone's gain map, from the XMP on it (`xmp`, which must say
    /// `HDRGainMapVersion`, as Apple's document makes the first condition of a valid gain map):
    /// its own `HDRGainMapHeadroom` from version 2 on, else the maker note of the photo's EXIF
    /// (`tiff`, the TIFF block).
    static func read(gainMapXMP xmp: [[UInt8]], tiff: [UInt8]?) -> Result<AppleHDRHeadroom, GainMapProblem> {
        guard xmp.contains(where: { !XMPText.values(of: "HDRGainMap:HDRGainMapVersion", in: $0).isEmpty }) else {
            return .failure(.metadata("its XMP does not say HDRGainMapVersion"))
        }
        if let said = xmp.lazy.compactMap({ read(gainMapXMP: $0) }).first { return said }
        guard let tiff else { return .failure(.headroom("the photo has no EXIF")) }
        return tiff.withUnsafeBytes { read(tiff: $0) }
    }

    /// The first `HDRGainMapVersion` of Apple's gain map XMP from which the XMP says the headroom.
    static let versionWithHeadroom = 131_072

    /// The headroom that Apple's gain map XMP says; nil when it says none, as version 1 does
    /// (65536: the headroom is then the maker note's).
    ///
    /// - Returns: why it cannot be used: a version 2 or later whose `HDRGainMapHeadroom` is
    ///   missing, no number, at most 1 (nothing to add) or more than `maximumStops`.
    static func read(gainMapXMP xmp: [UInt8]) -> Result<AppleHDRHeadroom, GainMapProblem>? {
        guard let version = XMPText.values(of: "HDRGainMap:HDRGainMapVersion", in: xmp).first.flatMap({ Int($0) }),
            version >= versionWithHeadroom
        else { return nil }
        let said = XMPText.values(of: "HDRGainMap:HDRGainMapHeadroom", in: xmp)
        guard let text = said.first, said.count == 1, text.utf8.count <= 32, let value = Double(text), value.isFinite
        else {
            return .failure(.headroom("its version 2 XMP lacks HDRGainMapHeadroom, or it is not a number"))
        }
        return checked(AppleHDRHeadroom(gainMapHeadroom: value), saying: "its HDRGainMapHeadroom gives")
    }

    /// Apple's `pow(2.0, max(stops, 0.0))`.
    var headroom: Double { pow(2.0, max(stops, 0.0)) }

    /// The two keys from the TIFF block of the photo's EXIF, and the headroom they give.
    ///
    /// - Returns: why none can be derived honestly: no Exif IFD, no maker note or not Apple's,
    ///   a key missing or not a finite number, a headroom of 1 or less (nothing to add), or more
    ///   stops than `maximumStops`.
    static func read(tiff bytes: UnsafeRawBufferPointer) -> Result<AppleHDRHeadroom, GainMapProblem> {
        guard let tiff = TIFFBlock(bytes), let ifd0 = tiff.entries(ofIFDAt: tiff.ifd0Offset),
            let pointer = ifd0.first(where: { $0.tag == exifIFDPointer }), let exifIFD = tiff.integer(pointer),
            let exif = tiff.entries(ofIFDAt: Int(exifIFD))
        else { return .failure(.headroom("the photo's EXIF has no Exif IFD")) }
        guard let entry = exif.first(where: { $0.tag == makerNoteTag }), entry.count > 4,
            let start = tiff.read32(at: entry.valueField).map(Int.init), start <= bytes.count,
            Int(entry.count) <= bytes.count - start
        else { return .failure(.headroom("the photo's EXIF has no maker note")) }
        let note = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + Int(entry.count))])
        guard note.count > ifdOffset, note.starts(with: signature) else {
            return .failure(.headroom("the photo's maker note is not Apple's"))
        }
        let isBigEndian: Bool
        switch (note[12], note[13]) {
        case (0x4D, 0x4D): isBigEndian = true
        case (0x49, 0x49): isBigEndian = false
        default: return .failure(.headroom("the photo's Apple maker note has no byte order"))
        }
        let block = TIFFBlock(bytes: note, isBigEndian: isBigEndian, ifd0Offset: ifdOffset)
        let entries = block.entries(ofIFDAt: ifdOffset) ?? []
        guard let maker33 = number(entries.first { $0.tag == headroomTag }, in: block),
            let maker48 = number(entries.first { $0.tag == gainTag }, in: block)
        else {
            return .failure(
                .headroom("its Apple maker note lacks HDRHeadroom (0x0021) or HDRGain (0x0030), or one is not a number")
            )
        }
        return checked(AppleHDRHeadroom(maker33: maker33, maker48: maker48), saying: "Apple's formula gives")
    }

    /// `found` when its stops are positive and at most `maximumStops`; else why not, as what
    /// `source` gives it.
    private static func checked(_ found: AppleHDRHeadroom, saying source: String) -> Result<
        AppleHDRHeadroom, GainMapProblem
    > {
        guard found.stops > 0 else { return .failure(.headroom("\(source) it no headroom over SDR")) }
        guard found.stops <= maximumStops else {
            return .failure(.headroom("\(source) it more than \(Int(maximumStops)) stops of headroom"))
        }
        return .success(found)
    }

    /// The first value of a RATIONAL, SRATIONAL or FLOAT entry, when it is a finite number.
    private static func number(_ entry: TIFFBlock.Entry?, in block: TIFFBlock) -> Double? {
        guard let entry, entry.count >= 1 else { return nil }
        let value: Double
        switch entry.type {
        case 5, 10:  // (S)RATIONAL: two 32-bit numbers, past the entry.
            guard let at = block.read32(at: entry.valueField).map(Int.init), let top = block.read32(at: at),
                let bottom = block.read32(at: at + 4), bottom != 0
            else { return nil }
            value =
                entry.type == 5
                ? Double(top) / Double(bottom) : Double(Int32(bitPattern: top)) / Double(Int32(bitPattern: bottom))
        case 11:  // FLOAT, in the entry itself.
            guard let bits = block.read32(at: entry.valueField) else { return nil }
            value = Double(Float(bitPattern: bits))
        default:
            return nil
        }
        return value.isFinite ? value : nil
    }

    /// The `hdrgm` values of an Ultra HDR gain map that means the same as Apple's: Ultra HDR is
    /// HDR = (SDR + OffsetSDR) × 2^(log2(GainMapMin) × (1 − g) + log2(GainMapMax) × g) − OffsetHDR
    /// with g the gain map sample after its Gamma (Google's Ultra HDR v1.0; its XMP holds the log2
    /// values). With GainMapMin 0, GainMapMax = HDRCapacityMax = log2(headroom), both offsets 0,
    /// Gamma 1 and HDRCapacityMin 0, that is SDR × headroom^g, which is Apple's
    /// SDR × (1 + (headroom − 1) × a) when g = log2(1 + (headroom − 1) × a) / log2(headroom):
    /// `ultraHDRSamples` maps each sample so.
    var ultraHDRMetadata: GainMapMetadata {
        let capacity = "\(max(stops, 0))"
        return GainMapMetadata(
            gainMapMin: ["0"], gainMapMax: [capacity], gamma: ["1"], offsetSDR: ["0"], offsetHDR: ["0"],
            hdrCapacityMin: "0", hdrCapacityMax: capacity, baseRenditionIsHDR: false)
    }

    /// For each 8-bit sample of Apple's gain map, the Ultra HDR sample that boosts the same:
    /// round(255 × log2(1 + (headroom − 1) × a) / log2(headroom)), where a is the sample
    /// linearized by Rec. 709's inverse transfer (ITU-R BT.709-6 1.2: V = 4.5 L below 0.018, else
    /// 1.099 L^0.45 − 0.099).
    var ultraHDRSamples: [UInt8] {
        let (headroom, capacity) = (self.headroom, max(stops, 0))
        return (0..<256).map { sample in
            let encoded = Double(sample) / 255
            let linear = encoded < 4.5 * 0.018 ? encoded / 4.5 : pow((encoded + 0.099) / 1.099, 1 / 0.45)
            let mapped = log2(1 + (headroom - 1) * linear) / capacity
            return UInt8(max(0, min(255, (255 * mapped).rounded())))
        }
    }
}

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
struct AppleHDRHeadroom: Equatable, Sendable {
    /// Key 33 and key 48, as the maker note stores them.
    let maker33: Double
    let maker48: Double

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

    /// The stops of headroom, by Apple's code: for key 33 below 1, `-20 × maker48 + 1.8` up to a
    /// key 48 of 0.01 and `-0.101 × maker48 + 1.601` above; else `-70 × maker48 + 3.0` and
    /// `-0.303 × maker48 + 2.303`. Not clamped: `headroom` takes its maximum with 0.
    var stops: Double {
        if maker33 < 1.0 {
            return maker48 <= 0.01 ? -20.0 * maker48 + 1.8 : -0.101 * maker48 + 1.601
        }
        return maker48 <= 0.01 ? -70.0 * maker48 + 3.0 : -0.303 * maker48 + 2.303
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
        let found = AppleHDRHeadroom(maker33: maker33, maker48: maker48)
        guard found.stops > 0 else { return .failure(.headroom("Apple's formula gives it no headroom over SDR")) }
        guard found.stops <= maximumStops else {
            return .failure(.headroom("Apple's formula gives it more than \(Int(maximumStops)) stops of headroom"))
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

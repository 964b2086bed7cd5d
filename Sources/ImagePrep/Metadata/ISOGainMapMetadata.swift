#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The binary gain map metadata of ISO 21496-1, as a JPEG gain map carries it after the APP2
/// signature `urn:iso:std:iso:ts:21496:-1\0`, read as libultrahdr's `gainmapmetadata.cpp`
/// (`decodeGainmapMetadata`) and Skia's `SkGainmapInfo` read it: big-endian, a u16 minimum
/// version (0) and a u16 writer version, a flags byte (bit 7 multichannel, bit 6 base colour
/// space, bit 2 backward direction, bit 3 one common denominator), the base and alternate HDR
/// headrooms as unsigned fractions, then for one or three channels the gain map minimum and
/// maximum (signed), its gamma (unsigned) and the base and alternate offsets (signed). Every
/// value is a log2 value or a plain number exactly as the `hdrgm` XMP says it.
///
/// Read bounded: at most 5 + 16 + 3 × 40 bytes, each field checked to lie inside the segment.
enum ISOGainMapMetadata {
    /// The `hdrgm` values the block says (HDRCapacityMin and Max are the base and alternate
    /// headrooms), checked by the same rules as XMP's (`GainMapMetadata.read`).
    ///
    /// - Parameter block: the segment's payload after its signature.
    /// - Returns: why it cannot be carried: cut short, a version this reader does not know, a
    ///   denominator of 0, a base rendition that is HDR (the backward direction, which Ultra HDR
    ///   v1.0's readers do not read), or values that contradict each other.
    static func read(_ block: UnsafeRawBufferPointer) -> Result<GainMapMetadata, GainMapProblem> {
        var reader = ByteReader(block)
        func next(_ width: Int) -> UInt32? { (try? reader.read(width)).map { UInt32(truncatingIfNeeded: $0) } }
        guard let minimumVersion = next(2), next(2) != nil, let flags = next(1) else {
            return .failure(.metadata("its ISO 21496-1 metadata is cut short"))
        }
        guard minimumVersion == 0 else {
            return .failure(.metadata("its ISO 21496-1 metadata needs a reader of version \(minimumVersion)"))
        }
        guard flags & 0x04 == 0 else {
            return .failure(.metadata("its ISO 21496-1 metadata says the base rendition is HDR"))
        }
        let channels = flags & 0x80 != 0 ? 3 : 1
        let common: UInt32? = flags & 0x08 != 0 ? next(4) : 1
        /// One fraction as a decimal number; nil past the end or for a denominator of 0.
        func fraction(signed: Bool) -> String? {
            guard let common, let numerator = next(4) else { return nil }
            let denominator = flags & 0x08 != 0 ? common : next(4)
            guard let denominator, denominator != 0 else { return nil }
            let top = signed ? Double(Int32(bitPattern: numerator)) : Double(numerator)
            return "\(top / Double(denominator))"
        }
        guard let baseHeadroom = fraction(signed: false), let alternateHeadroom = fraction(signed: false) else {
            return .failure(.metadata("its ISO 21496-1 headrooms are cut short or have a denominator of 0"))
        }
        var values: [[String]] = [[], [], [], [], []]
        for _ in 0..<channels {
            for (index, signed) in [true, true, false, true, true].enumerated() {
                guard let value = fraction(signed: signed) else {
                    return .failure(.metadata("its ISO 21496-1 values are cut short or have a denominator of 0"))
                }
                values[index].append(value)
            }
        }
        let metadata = GainMapMetadata(
            gainMapMin: values[0], gainMapMax: values[1], gamma: values[2], offsetSDR: values[3],
            offsetHDR: values[4], hdrCapacityMin: baseHeadroom, hdrCapacityMax: alternateHeadroom,
            baseRenditionIsHDR: false)
        // The same checks as for XMP: each a number as XMP writes one, and no contradiction.
        let packet = [UInt8](metadata.segment.dropFirst(4 + GainMapMetadata.xmpSignature.count))
        return GainMapMetadata.read(xmp: packet).mapError { _ in
            .metadata("its ISO 21496-1 values contradict each other")
        }
    }

    /// The metadata of a HEIF tone-mapped image item (`tmap`, ISO/IEC 23008-12:2024 6.6.2.4.2):
    /// a version byte (0), then the same block as the JPEG APP2 segment's, read by `read`.
    static func read(toneMapItem data: [UInt8]) -> Result<ToneMap, GainMapProblem> {
        guard let version = data.first else { return .failure(.metadata("its ISO 21496-1 'tmap' item is empty")) }
        guard version == 0 else {
            return .failure(.metadata("its ISO 21496-1 'tmap' item is of version \(version), which is not read"))
        }
        // The block as far as its values go: what follows them is no metadata, and is not carried.
        let block = Array(data.dropFirst().prefix(data.count > 5 ? length(withFlags: data[5]) : 0))
        return block.withUnsafeBytes { read($0) }.map { ToneMap(metadata: $0, block: block) }
    }

    /// How many bytes a block whose flags byte is `flags` holds: the versions and flags, a common
    /// denominator if one, and the two headrooms and five values per channel as fractions.
    static func length(withFlags flags: UInt8) -> Int {
        let hasCommonDenominator = flags & 0x08 != 0
        let fractions = 2 + 5 * (flags & 0x80 != 0 ? 3 : 1)
        return 5 + (hasCommonDenominator ? 4 + 4 * fractions : 8 * fractions)
    }

    /// ISO 21496-1 metadata as a HEIF file's `tmap` item gives it: the values, and the block
    /// itself, which the upload's gain map carries byte for byte.
    struct ToneMap: Equatable, Sendable {
        let metadata: GainMapMetadata
        let block: [UInt8]

        /// The gain map's APP2 segment: the signature and the block.
        var gainMapSegment: Data { ISOGainMapMetadata.segment(UltraHDRSource.isoSignature + block) }
    }

    /// The primary's APP2 segment of a file whose gain map carries ISO 21496-1 metadata: the
    /// signature and the version alone (minimum and writer version 0), as libultrahdr writes it.
    static let primarySegment = segment(UltraHDRSource.isoSignature + [0, 0, 0, 0])

    /// An APP2 segment holding `payload`, at most a segment's 65533 bytes (a block is at most 141).
    private static func segment(_ payload: [UInt8]) -> Data {
        precondition(payload.count + 2 <= 0xFFFF, "an ISO 21496-1 block is short")
        return Data(
            [0xFF, JPEGSegment.app2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload)
    }
}

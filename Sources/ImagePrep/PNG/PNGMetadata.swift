internal import CSPNG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a PNG says about itself and what its upload carries: the eXIf chunk's EXIF (else
/// ImageMagick's raw EXIF text), read with the JPEG rules; the iCCP profile; the XMP.
///
/// gAMA, cHRM and cICP are not applied, as vipsthumbnail (libvips 8.14) and ImageMagick do not
/// apply them when they write a JPEG: the pixels are taken as sRGB unless an iCCP says otherwise
/// (docs/metadata.md).
enum PNGMetadata {
    struct Carried {
        var segments: [Data] = []
        var profile: ICCProfile?
        var warnings: [PhotoWarning] = []
    }

    /// Reads the chunks libspng has read (all of them, once the image data and the chunks after
    /// it are decoded) into `metadata`, and makes the upload's segments: EXIF APP1, XMP APP1,
    /// ICC APP2, in that order.
    static func read(
        _ spng: borrowing SPNGContext, into metadata: inout PhotoMetadata, uploadSize: PixelSize
    ) -> Carried {
        var carried = Carried()
        var text = PNGTextMetadata()
        var count: UInt32 = 0
        if spng_get_text(spng.handle, nil, &count) == 0, count > 0 {
            var chunks = [spng_text](repeating: spng_text(), count: Int(count))
            if spng_get_text(spng.handle, &chunks, &count) == 0 {
                for chunk in chunks.prefix(Int(count)) where chunk.text != nil {
                    let keyword = withUnsafeBytes(of: chunk.keyword) {
                        String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                    }
                    text.take(keyword: keyword, text: UnsafeRawBufferPointer(start: chunk.text, count: chunk.length))
                }
            }
        }
        var exifChunk = spng_exif()
        let exif: [UInt8]? =
            spng_get_exif(spng.handle, &exifChunk) == 0 && exifChunk.data != nil
            ? Array(UnsafeRawBufferPointer(start: exifChunk.data, count: exifChunk.length)) : text.exif
        if let exif {
            let (segment, warnings) = exif.withUnsafeBytes {
                EmbeddedEXIF.read($0, into: &metadata, uploadSize: uploadSize)
            }
            carried.segments += segment.map { [$0] } ?? []
            carried.warnings += warnings
        }
        if let xmp = text.xmp {
            if let segment = XMPSegment.segment(packet: xmp) {
                carried.segments.append(segment)
            } else {
                carried.warnings.append(
                    PhotoWarning(
                        .metadata, "the XMP is larger than one JPEG segment holds, so the upload carries none."))
            }
        }
        var iccp = spng_iccp()
        if spng_get_iccp(spng.handle, &iccp) == 0, iccp.profile != nil, iccp.profile_len > 0 {
            let profile = ICCProfile(bytes: Array(UnsafeRawBufferPointer(start: iccp.profile, count: iccp.profile_len)))
            carried.profile = profile
            if let segments = profile.jpegSegments {
                carried.segments += segments
            } else {
                carried.warnings.append(
                    PhotoWarning(
                        .colorProfile, "the ICC profile is too large for a JPEG to carry, so the upload has none."))
            }
        }
        return carried
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An XMP packet from a format other than JPEG (a PNG's iTXt, a WebP's XMP chunk) as the APP1
/// segment a JPEG carries it in (XMP part 3: `http://ns.adobe.com/xap/1.0/\0`, then the packet).
enum XMPSegment {
    /// The segment, or nil when the packet does not fit one (Extended XMP is not written).
    static func segment(packet: [UInt8]) -> Data? {
        let length = 2 + GainMapMetadata.xmpSignature.count + packet.count
        guard !packet.isEmpty, length <= 0xFFFF else { return nil }
        var segment = Data([0xFF, JPEGSegment.app1, UInt8(length >> 8), UInt8(length & 0xFF)])
        segment.append(contentsOf: GainMapMetadata.xmpSignature)
        segment.append(contentsOf: packet)
        return segment
    }
}

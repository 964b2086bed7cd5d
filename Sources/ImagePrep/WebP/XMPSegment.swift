#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An XMP packet as the APP1 segment a JPEG carries it in (XMP part 3): the namespace signature
/// and the packet, in one segment.
enum XMPSegment {
    /// The segment, or nil when the packet does not fit one (64 KB less the signature); Extended
    /// XMP, which a larger packet would need, is for what the standard packet points at.
    static func make(packet: UnsafeRawBufferPointer) -> Data? {
        let length = 2 + GainMapMetadata.xmpSignature.count + packet.count
        guard length <= 0xFFFF else { return nil }
        var segment = Data([0xFF, JPEGSegment.app1, UInt8(length >> 8), UInt8(length & 0xFF)])
        segment.append(contentsOf: GainMapMetadata.xmpSignature)
        segment.append(contentsOf: packet)
        return segment
    }
}

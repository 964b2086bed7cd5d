#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An Ultra HDR upload's gain map, made before the photo's upload is encoded: the primary's
/// XMP holds the gain map's length, so it must be known first.
struct UploadGainMap {
    /// The gain map's JPEG, to follow the upload's EOI.
    var copy: EncodedJPEG
    /// What the upload's primary carries for it, in order: the container XMP, the original's
    /// ISO 21496-1 version segment if any, and the MPF index to fill in once it is encoded.
    var primarySegments: [Data]
}

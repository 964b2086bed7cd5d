import Foundation

@testable import ImagePrep

/// What an upload copy carries in its segments, found by ImagePrep's own segment walker (whose
/// tests are `SegmentWalkerTests`).
enum UploadSegments {
    /// The APP segments, as (marker, payload) pairs, JFIF left out.
    static func appSegments(of jpeg: Data) -> [(marker: UInt8, payload: [UInt8])] {
        jpeg.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).segments.filter { (0xE1...0xEF).contains($0.marker) }.map {
                ($0.marker, Array(bytes[$0.payload]))
            }
        }
    }

    /// The APP1 `Exif\0\0` segment, whole.
    static func exifSegment(of jpeg: Data) -> [UInt8]? {
        jpeg.withUnsafeBytes { bytes in SegmentWalker.walk(bytes).exifSegment(in: bytes).map { Array(bytes[$0.bytes]) }
        }
    }

    /// The ICC profile, put back together from its APP2 chunks.
    static func iccProfile(of jpeg: Data) -> ICCProfile? {
        jpeg.withUnsafeBytes { bytes in ICCProfile.assemble(from: bytes, layout: SegmentWalker.walk(bytes)).0 }
    }
}

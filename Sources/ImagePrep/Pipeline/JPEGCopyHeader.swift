#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a JPEG copy says about itself, read from its markers without decoding it: its size, and
/// the HDR gain map it carries. For a tool that meets copies an earlier run made
/// (`prep-photo --skip-existing` reports them as it reports the ones it makes).
///
/// The bytes are read as untrusted, by the same bounded marker walk and MPF reading as an
/// original's.
public struct JPEGCopyHeader: Sendable, Hashable {
    /// An HDR gain map after the copy's own image, as `PreparedPhoto.uploadGainMap` describes it.
    public struct GainMap: Sendable, Hashable {
        /// Its pixel size.
        public var size: PixelSize
        /// Its length in bytes.
        public var byteCount: Int
    }

    /// The pixel size its frame header gives.
    public var size: PixelSize
    /// The gain map it carries, as an Ultra HDR reader finds it (an upload made from an Ultra HDR
    /// JPEG or an iPhone's HDR HEIC); nil for an SDR copy, or one whose gain map cannot be read.
    public var gainMap: GainMap?

    /// Reads the size and the gain map of a JPEG file.
    ///
    /// - Parameter jpeg: The complete file.
    /// - Returns: Nil when it is not a JPEG, or its markers end before a frame header.
    public static func read(_ jpeg: Data) -> JPEGCopyHeader? {
        jpeg.withUnsafeBytes { bytes in
            let layout = SegmentWalker.walk(bytes)
            guard let frame = layout.frame else { return nil }
            var gainMap: GainMap?
            if case .success(let source) = UltraHDRSource.find(in: bytes, layout: layout) {
                gainMap = GainMap(size: source.size, byteCount: source.range.count)
            }
            return JPEGCopyHeader(size: frame.size, gainMap: gainMap)
        }
    }
}

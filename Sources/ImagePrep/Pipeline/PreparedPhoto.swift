#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One encoded JPEG file and the size of its pixels.
public struct EncodedJPEG: Sendable, Hashable {
    /// The complete JPEG file, from SOI to EOI.
    public var data: Data
    /// The pixel size of the encoded image.
    public var size: PixelSize

    /// An encoded JPEG and its size: for tests, and for an app that stands in its own copies.
    ///
    /// - Parameters:
    ///   - data: The JPEG file's bytes.
    ///   - size: Its pixel size.
    public init(data: Data, size: PixelSize) {
        self.data = data
        self.size = size
    }
}

/// Everything ImagePrep makes from one photo, in one value that is cheap to copy and to send
/// across tasks (the JPEG bytes are shared, not copied).
///
/// - `upload` is for the engine: long edge at most `maxEdge`, pixels as stored, with the
///   original's EXIF (Orientation, GPS and all), ICC profile and comment carried across. From a
///   HEIF original the pixels are turned upright and the carried Orientation is 1. From an
///   Ultra HDR JPEG it is one too: its HDR gain map, resized by the same ratio, follows the
///   photo's EOI, indexed by MPF; from the other HDR forms phones write (an iPhone's or a
///   Samsung's HDR HEIC, an iPhone's JPEG) it is an Ultra HDR JPEG made from the original's gain
///   map (unless `carriesGainMap` is off).
/// - `display` and `thumbnail` are safe to show or share anywhere: they keep only the JPEG
///   comment, their pixels are turned upright, and wide-gamut colour is converted to sRGB.
public struct PreparedPhoto: Sendable, Hashable {
    /// The copy for the engine, with the original's metadata.
    public var upload: EncodedJPEG
    /// The stripped, upright copy at display size; nil when not asked for.
    public var display: EncodedJPEG?
    /// The stripped, upright thumbnail; nil when not asked for.
    public var thumbnail: EncodedJPEG?
    /// What the original says about itself.
    public var metadata: PhotoMetadata
    /// Problems that did not stop the photo, in the order they were found.
    public var warnings: [PhotoWarning]
    /// The HDR gain map that the upload carries after its own EOI (the last bytes of
    /// `upload.data`), with its size; nil when the upload is SDR only.
    public var uploadGainMap: EncodedJPEG?
    /// For a camera raw or DNG, whether its pixels are the embedded JPEG preview's or the raw
    /// sensor data's (`CameraRawPixels`); nil for every other format.
    public var cameraRawPixels: CameraRawPixels?

    /// A prepared photo from its parts: for tests, and for an app that commits copies it made
    /// itself (a photo edited in the app) with the outbox's `commit`.
    ///
    /// - Parameters:
    ///   - upload: The upload copy, with its metadata.
    ///   - display: The display copy, or nil.
    ///   - thumbnail: The thumbnail, or nil.
    ///   - metadata: What the original says about itself.
    ///   - warnings: What was odd.
    ///   - uploadGainMap: The gain map at the end of `upload.data`, or nil.
    public init(
        upload: EncodedJPEG, display: EncodedJPEG?, thumbnail: EncodedJPEG?, metadata: PhotoMetadata,
        warnings: [PhotoWarning] = [], uploadGainMap: EncodedJPEG? = nil
    ) {
        self.uploadGainMap = uploadGainMap
        self.upload = upload
        self.display = display
        self.thumbnail = thumbnail
        self.metadata = metadata
        self.warnings = warnings
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a decoder hands to the copies; its pixels are in `workspace.decoded`, or in
/// `stripUpload` when a strip decode resampled them as it went.
struct DecodedPhoto {
    var metadata: PhotoMetadata
    /// The upload's size before `uploadTurn`, at most `maxEdge` on its long side.
    var uploadSize: PixelSize
    /// How many of the decoded pixels the picture spans; less than their count when a DCT
    /// scale rounded a side up.
    var extent: (width: Double, height: Double)
    /// The turn the upload gets after it is resampled: a HEIF file's rotation and mirror.
    var uploadTurn = Orientation.up
    /// The turn the stripped copies get: a JPEG's EXIF Orientation, which its upload keeps.
    var strippedTurn = Orientation.up
    /// The profile the pixels are in, for the stripped copies' conversion to sRGB; nil when
    /// there is none or it does not describe them (a CMYK profile).
    var profile: ICCProfile?
    /// The original's segments the upload carries (EXIF, ICC profile, comments), in order.
    var uploadSegments: [Data]
    /// The comments, which every copy carries.
    var comments: [Data]
    /// The upload, already at `uploadSize`, when a JPEG was decoded strip by strip straight
    /// into the resampler; nil when the copies resample `workspace.decoded`.
    var stripUpload: PlanarImage? = nil
    /// The upload's file without its metadata, when the strip decode encoded it as it went
    /// (`JPEGStreamEncoder`): in the first lane's encode buffer, until that lane encodes again.
    var streamedUpload: UnsafeRawBufferPointer? = nil
    /// The HDR gain map the upload carries after its EOI, resized; its segments are already in
    /// `uploadSegments`.
    var gainMap: UploadGainMap? = nil
    /// A camera raw's: whether the pixels are its embedded preview's or its sensor data's.
    var cameraRawPixels: CameraRawPixels? = nil
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the original photo says about itself: size, orientation, when, where, which camera.
///
/// Read from the original's EXIF (through libexif; a HEIF file's Exif item) and its first COM
/// segment. Every value the photo does not carry, or carries in a form that cannot be trusted,
/// is nil; the reason for the latter is in `PreparedPhoto.warnings`.
public struct PhotoMetadata: Sendable, Hashable, Codable {
    /// The original's pixel size as stored in its frame header (a HEIF file's `ispe`), before any
    /// orientation is applied.
    public var originalSize: PixelSize
    /// The EXIF Orientation tag; nil when absent or not one of 1–8 (the photo is then shown as
    /// stored). For a HEIF original it is the Exif item's tag as stored, as exiftool reads it;
    /// the copies follow the file's own rotation and mirror, which an iPhone makes the same.
    public var orientation: Orientation?
    /// When the photo was taken; nil when no date tag holds a usable date.
    public var captureTime: CaptureTime?
    /// Where the photo was taken; nil when the GPS tags are absent or unusable.
    public var location: GeoPoint?
    /// The EXIF Make tag, up to its first NUL, trimmed of spaces.
    public var cameraMake: String?
    /// The EXIF Model tag, up to its first NUL, trimmed of spaces.
    public var cameraModel: String?
    /// The text of the first JPEG comment (COM) segment, decoded as UTF-8 (Latin-1 when that fails),
    /// with the NUL terminators some writers add removed; line breaks are kept.
    public var comment: String?

    /// Metadata from its parts: for tests, and for an app that stands in its own.
    ///
    /// - Parameters:
    ///   - originalSize: The original's pixel size, as stored.
    ///   - orientation: Its EXIF Orientation, or nil.
    ///   - captureTime: When it was taken, or nil.
    ///   - location: Where it was taken, or nil.
    ///   - cameraMake: The EXIF Make, or nil.
    ///   - cameraModel: The EXIF Model, or nil.
    ///   - comment: The first JPEG comment, or nil.
    public init(
        originalSize: PixelSize, orientation: Orientation? = nil, captureTime: CaptureTime? = nil,
        location: GeoPoint? = nil, cameraMake: String? = nil, cameraModel: String? = nil, comment: String? = nil
    ) {
        self.originalSize = originalSize
        self.orientation = orientation
        self.captureTime = captureTime
        self.location = location
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
        self.comment = comment
    }
}

extension PhotoMetadata {
    /// Reads what a JPEG says about itself, without decoding or re-encoding it.
    ///
    /// This is what `PreparedPhoto.metadata` holds for the same bytes; use it where only the
    /// metadata is wanted (tools, tests, an index). Never throws: bytes that are not a JPEG, or a
    /// damaged one, give whatever could be read (at least `originalSize` 0x0) and warnings.
    ///
    /// - Parameter jpeg: The complete file.
    /// - Returns: The metadata, and the problems met while reading it, in the order they were found.
    public static func read(fromJPEG jpeg: Data) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        jpeg.withUnsafeBytes { bytes in
            EXIFReader.metadata(of: bytes, layout: SegmentWalker.walk(bytes))
        }
    }

    /// Reads what a photo of any format ImagePrep prepares says about itself, told apart by its
    /// content as `PhotoPreparer` tells them apart: the metadata `PreparedPhoto.metadata` holds
    /// for the same bytes prepared with the default configuration, and the warnings met reading it.
    ///
    /// A JPEG or a HEIF file (HEIC, AVIF) is read without decoding its pixels. For a HEIF file,
    /// `originalSize` is the primary image's size as stored (its `ispe`, before the file's
    /// rotation) and `orientation` is its Exif item's tag, as exiftool reads them; `comment` is nil
    /// (HEIF has no JPEG comment). Every other format is decoded by its own source at the
    /// upload's size, without making a copy, since its metadata is read in that decode (a PNG's
    /// `eXIf` may follow its image data, a raw's orientation may be LibRaw's): the same values as
    /// `prepare`, at most the cost of a decode. A file that cannot be decoded gives
    /// `originalSize` 0x0 and a warning that says why.
    ///
    /// - Parameter photo: The complete file.
    /// - Returns: The metadata, and the problems met while reading it, in the order they were found.
    public static func read(from photo: Data) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        photo.withUnsafeBytes { bytes in
            guard !bytes.isEmpty, let source = PhotoSources.source(for: bytes), source != JPEGSource.self else {
                return EXIFReader.metadata(of: bytes, layout: SegmentWalker.walk(bytes))
            }
            return source == HEIFSource.self ? HEIFMetadata.read(bytes) : decodedMetadata(of: bytes, by: source)
        }
    }

    /// The metadata `source` reads in its decode, with the default configuration and no copies.
    private static func decodedMetadata(
        of bytes: UnsafeRawBufferPointer, by source: any PhotoSource.Type
    ) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        var configuration = PhotoPreparer.Configuration()
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        let context = PreparationContext(
            configuration: configuration, workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false), file: "photo")
        do throws(ImagePrepError) {
            let decoded = try source.init(context: context).decode(bytes)
            return (decoded.metadata, context.warnings)
        } catch {
            // The error's sentence ends with its own full stop.
            let warning = PhotoWarning(
                .metadata, "it gives no metadata, since it cannot be read: \(error.description.dropLast()).")
            return (PhotoMetadata(originalSize: PixelSize(width: 0, height: 0)), context.warnings + [warning])
        }
    }
}

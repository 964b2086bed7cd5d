#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a photo could not be prepared. Every case names the file (or the name the caller gave the
/// bytes) and the cause; `description` is one sentence a user can act on, and it is also the
/// `localizedDescription` (`LocalizedError`), so that an app showing `error.localizedDescription`
/// shows it rather than Foundation's "The operation could not be completed".
public enum ImagePrepError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The file could not be read: `reason` is the system's explanation.
    case unreadable(file: String, reason: String)
    /// The file has no bytes.
    case empty(file: String)
    /// The bytes are in no format ImagePrep prepares (JPEG, HEIF, PNG, ...); `detected` says
    /// what they look like ("text", "a PDF document").
    case unrecognizedFormat(file: String, detected: String)
    /// A JPEG that libjpeg-turbo 2.x cannot decode into 8-bit pixels (12-bit, lossless, hierarchical).
    case unsupportedJPEG(file: String, reason: String)
    /// An image format, or a form of one, that this version recognises but does not prepare
    /// (a lossless JPEG, JPEG XR, a Lab PSD): `format` names it, and the sentence says why.
    case unsupportedFormat(file: String, format: UnsupportedFormat)
    /// The frame header declares more pixels than the configured limit; nothing was decoded.
    case tooManyPixels(file: String, size: PixelSize, limit: Int)
    /// A HEIF file whose coded images (tiles, auxiliary and derived images, each as often as the
    /// file uses it) add up to more than `limit` pixels, twice the pixel limit; nothing was decoded.
    case tooMuchDecoding(file: String, pixels: Int, limit: Int)
    /// A progressive JPEG with more scans than libjpeg-turbo's limit (a known way to make a small
    /// file take minutes to decode).
    case tooManyScans(file: String, detail: String)
    /// Pixels are missing or corrupt (truncated file, damaged data) and `acceptsIncompleteData`
    /// is off, or a HEIF file is cut short (which no setting helps).
    /// `detail` is one of our sentences for what libjpeg reported, never its text.
    case incompleteImageData(file: String, detail: String)
    /// libjpeg-turbo could not decode the JPEG to its last row, or could not read its header.
    /// `detail` says what is wrong in our words, with no number read from the file.
    case corruptJPEG(file: String, detail: String)
    /// A GIF whose blocks or image data giflib cannot read (before any row of its first frame).
    case corruptGIF(file: String, detail: String)
    /// A WebP file whose RIFF chunks or image data libwebp cannot read.
    case corruptWebP(file: String, detail: String)
    /// A HEIF file (HEIC, AVIF) whose structure or image data libheif cannot read.
    case corruptHEIF(file: String, detail: String)
    /// A PNG whose structure or image data libspng cannot read (a bad chunk CRC, a damaged
    /// header, a zlib stream that does not inflate); `detail` gives libspng's fixed reason.
    case corruptPNG(file: String, detail: String)
    /// A PNG this build will not decode: an interlaced one too large to hold whole.
    case unsupportedPNG(file: String, reason: String)
    /// A HEIF file whose image is coded in a way this build cannot decode (VVC, JPEG 2000, or
    /// AV1 where libheif has no AV1 decoder).
    case unsupportedHEIF(file: String, reason: String)
    /// A HEIF file that holds no image to prepare: no primary item, or one that is not an image.
    case heifWithoutImage(file: String)
    /// A HEIF file that libheif refuses at one of its own security limits, which Debian's
    /// security updates add to and tighten (`limit` says which); nothing was decoded.
    case heifSecurityLimit(file: String, limit: HEIFSecurityLimit)
    /// A HEIF file, where libheif, which reads HEIF, cannot be loaded (it is loaded at the first
    /// HEIF file, so JPEGs never need it): `reason` is the dynamic loader's, for each name tried.
    case heifUnavailable(file: String, reason: String)
    /// A TIFF or BigTIFF file whose structure or image data libtiff cannot read.
    case corruptTIFF(file: String, detail: String)
    /// A TIFF file this version does not prepare: a camera raw or DNG, or pixels libtiff cannot
    /// turn into RGB (`reason` says which).
    case unsupportedTIFF(file: String, reason: String)
    /// A BMP file whose headers or pixel data are damaged.
    case corruptBMP(file: String, detail: String)
    /// A BMP file stored in a way this version does not read (an embedded JPEG or PNG).
    case unsupportedBMP(file: String, reason: String)
    /// A JPEG XL file whose codestream or container libjxl cannot read.
    case corruptJXL(file: String, detail: String)
    /// A JPEG 2000 file (jp2 or a raw codestream) whose structure or image data OpenJPEG cannot read.
    case corruptJPEG2000(file: String, detail: String)
    /// A Photoshop file (PSD or PSB) whose header, sections or composite image are damaged.
    case corruptPSD(file: String, detail: String)
    /// A Photoshop file saved without its merged composite image ("Maximize Compatibility" off),
    /// which is the only picture ImagePrep reads from one: its layers are not flattened here.
    case psdWithoutComposite(file: String)
    /// A camera raw or DNG file that LibRaw cannot read, and whose embedded previews are too
    /// small or absent.
    case corruptRaw(file: String, detail: String)
    /// A file whose decode would need more memory than ImagePrep allows one photo (`budget`
    /// bytes), from what its header declares, for a decoder that holds the whole picture
    /// (JPEG 2000, JPEG XL, camera raw, a HEIF image of one coded picture); nothing was decoded.
    case tooMuchMemory(file: String, byteCount: Int, budget: Int)
    /// Encoding a copy failed; this is a bug or an exhausted machine, not a bad photo.
    case encodingFailed(file: String, detail: String)
    /// The system would not give the memory the photo's pixels need (`byteCount` bytes for one
    /// buffer; `Int.max` when the size itself overflows).
    case outOfMemory(file: String, byteCount: Int)
    /// A setting of `PhotoPreparer.Configuration` is outside what it allows: `setting` names it,
    /// `value` is what it was given and `allowed` what it takes. It is about no file.
    case invalidSetting(setting: String, value: String, allowed: String)

    /// The file (or name) the error is about; empty for `invalidSetting`, which is about none.
    public var file: String {
        switch self {
        case .invalidSetting:
            return ""
        case .unreadable(let file, _), .empty(let file), .unrecognizedFormat(let file, _),
            .unsupportedJPEG(let file, _), .unsupportedFormat(let file, _),
            .tooManyPixels(let file, _, _), .tooMuchDecoding(let file, _, _), .tooManyScans(let file, _),
            .incompleteImageData(let file, _),
            .corruptJPEG(let file, _), .corruptHEIF(let file, _), .unsupportedHEIF(let file, _),
            .corruptPNG(let file, _), .unsupportedPNG(let file, _),
            .corruptGIF(let file, _), .corruptWebP(let file, _),
            .heifWithoutImage(let file), .heifSecurityLimit(let file, _), .heifUnavailable(let file, _),
            .encodingFailed(let file, _),
            .outOfMemory(let file, _), .corruptTIFF(let file, _), .unsupportedTIFF(let file, _),
            .corruptBMP(let file, _), .unsupportedBMP(let file, _), .corruptJXL(let file, _),
            .corruptJPEG2000(let file, _), .corruptPSD(let file, _), .psdWithoutComposite(let file),
            .corruptRaw(let file, _), .tooMuchMemory(let file, _, _):
            return file
        }
    }

    /// The error's own sentence, naming the file and the cause; `errorDescription` gives the same.
    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "'\(file)' could not be read: \(reason)."
        case .empty(let file):
            return "'\(file)' is empty (0 bytes)."
        case .unrecognizedFormat(let file, let detected):
            return "'\(file)' is in no image format ImagePrep prepares: it looks like \(detected)."
        case .unsupportedJPEG(let file, let reason):
            return "'\(file)' is a kind of JPEG that cannot be decoded: \(reason)."
        case .unsupportedFormat(let file, let format):
            return "'\(file)' is \(format.name), which cannot be prepared: \(format.reason)."
        case .tooManyPixels(let file, let size, let limit):
            return "'\(file)' is \(size) (\(size.pixelCount) pixels), more than the limit of \(limit) pixels."
        case .tooMuchDecoding(let file, let pixels, let limit):
            let count = pixels == Int.max ? "more than \(Int.max)" : "\(pixels)"
            return "'\(file)' was refused because its images add up to \(count) pixels to decode (tiles and "
                + "auxiliary images, each as often as the file uses it), more than the limit of \(limit)."
        case .tooManyScans(let file, let detail):
            return "'\(file)' was refused because decoding it would take far too long: \(detail)."
        case .incompleteImageData(let file, let detail):
            return "'\(file)' has missing or damaged image data: \(detail)."
        case .corruptJPEG(let file, let detail):
            return "'\(file)' is a damaged JPEG: \(detail)."
        case .corruptGIF(let file, let detail):
            return "'\(file)' is a damaged GIF: \(detail)."
        case .corruptWebP(let file, let detail):
            return "'\(file)' is a damaged WebP file: \(detail)."
        case .corruptHEIF(let file, let detail):
            return "'\(file)' is a damaged HEIF file: \(detail)."
        case .corruptPNG(let file, let detail):
            return "'\(file)' is a damaged PNG: \(detail)."
        case .unsupportedPNG(let file, let reason):
            return "'\(file)' is a PNG that cannot be prepared here: \(reason)."
        case .unsupportedHEIF(let file, let reason):
            return "'\(file)' is a HEIF file that cannot be decoded here: \(reason)."
        case .heifWithoutImage(let file):
            return "'\(file)' is a HEIF file with no image in it."
        case .heifSecurityLimit(let file, let limit):
            return "'\(file)' is a HEIF file that libheif refuses at one of its security limits: \(limit.clause)."
        case .heifUnavailable(let file, let reason):
            return "'\(file)' is a HEIF file, and \(Self.libheifNeeded)\(reason)."
        case .corruptTIFF(let file, let detail):
            return "'\(file)' is a damaged TIFF file: \(detail)."
        case .unsupportedTIFF(let file, let reason):
            return "'\(file)' is a TIFF file that cannot be prepared: \(reason)."
        case .corruptBMP(let file, let detail):
            return "'\(file)' is a damaged BMP file: \(detail)."
        case .unsupportedBMP(let file, let reason):
            return "'\(file)' is a BMP file that cannot be prepared: \(reason)."
        case .corruptJXL(let file, let detail):
            return "'\(file)' is a damaged JPEG XL file: \(detail)."
        case .corruptJPEG2000(let file, let detail):
            return "'\(file)' is a damaged JPEG 2000 file: \(detail)."
        case .corruptPSD(let file, let detail):
            return "'\(file)' is a damaged Photoshop file: \(detail)."
        case .psdWithoutComposite(let file):
            return "'\(file)' is a Photoshop file saved without its composite image (\"Maximize Compatibility\" was "
                + "off), and its layers are not flattened here: save it again with that option on, or export a copy."
        case .corruptRaw(let file, let detail):
            return "'\(file)' is a camera raw file that cannot be read: \(detail)."
        case .tooMuchMemory(let file, let byteCount, let budget):
            return "'\(file)' was refused because its decoder would hold \(Self.megabytes(byteCount)) MB at once, more "
                + "than the limit of \(Self.megabytes(budget)) MB for one photo; nothing was decoded."
        case .encodingFailed(let file, let detail):
            return "Encoding a copy of '\(file)' failed: \(detail)."
        case .outOfMemory(let file, let byteCount):
            let amount = byteCount == Int.max ? "more than can be counted" : "\(Self.megabytes(byteCount)) MB"
            return "'\(file)' could not be prepared: the system would not give one of its buffers the memory it needs "
                + "(\(amount))."
        case .invalidSetting(let setting, let value, let allowed):
            return "The photo setting \(setting) cannot be \(value): it must be \(allowed)."
        }
    }

    /// The same sentence as `description`, for `error.localizedDescription`.
    public var errorDescription: String? { description }

    /// Bytes as whole megabytes, rounded up, as the error says them.
    static func megabytes(_ byteCount: Int) -> Int { byteCount / (1 << 20) + (byteCount % (1 << 20) == 0 ? 0 : 1) }

    /// What `.heifUnavailable` says before the loader's reason.
    static let libheifNeeded = "HEIF support needs libheif (Debian package libheif1), which could not be loaded: "
}

/// An image format that this version recognises by its bytes but does not prepare
/// (`ImagePrepError.unsupportedFormat`), so that a refusal names what the file is and why, not
/// only what it is not.
public enum UnsupportedFormat: String, Equatable, Sendable, CaseIterable {
    /// TIFF, BigTIFF included.
    case tiff
    /// A camera's raw file (DNG, CR2, CR3, NEF-like TIFFs that say so, ORF, RW2, RAF).
    case cameraRaw
    /// JPEG XL, as a bare codestream or in its container.
    case jpegXL
    /// JPEG 2000, as a JP2 file or a bare codestream.
    case jpeg2000
    /// A Windows bitmap.
    case bmp
    /// A Photoshop document.
    case psd
    /// A lossless JPEG (SOF3, SOF7, SOF11, SOF15: scanners, medical imaging, some DNG previews).
    case losslessJPEG

    /// The stable code that `ImagePrepError.code` and `prep-photo --json` give for it.
    public var code: String {
        switch self {
        case .tiff: "unsupported_tiff"
        case .cameraRaw: "unsupported_camera_raw"
        case .jpegXL: "unsupported_jpeg_xl"
        case .jpeg2000: "unsupported_jpeg_2000"
        case .bmp: "unsupported_bmp"
        case .psd: "unsupported_psd"
        case .losslessJPEG: "unsupported_lossless_jpeg"
        }
    }

    /// What the file is and why it is refused, as the end of a sentence that starts with its name.
    var clause: String {
        switch self {
        case .losslessJPEG:
            "a lossless JPEG, which libjpeg-turbo 2.1 (Debian 12's) cannot decode"
        default:
            "\(name), which this version does not prepare yet"
        }
    }

    private var name: String {
        switch self {
        case .tiff: "a TIFF image"
        case .cameraRaw: "a camera raw file"
        case .jpegXL: "a JPEG XL image"
        case .jpeg2000: "a JPEG 2000 image"
        case .bmp: "a BMP image"
        case .psd: "a Photoshop document (PSD)"
        case .losslessJPEG: "a lossless JPEG"
        }
    }
}

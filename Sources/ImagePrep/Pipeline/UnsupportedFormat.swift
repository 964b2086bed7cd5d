/// An image format, or a form of one, that ImagePrep recognises but does not prepare
/// (`ImagePrepError.unsupportedFormat`): the one list of what is refused and why, so that a
/// refusal names what the file is and why, never only what it is not.
public enum UnsupportedFormat: Hashable, Sendable {
    /// A lossless JPEG (SOF3, SOF7, SOF11, SOF15: scanners, medical imaging, some DNG previews),
    /// which libjpeg-turbo 2.1 (Debian 12's) cannot decode.
    case losslessJPEG
    /// JPEG XR (HD Photo, Windows Media Photo: .jxr, .wdp, .hdp), for which ImagePrep has no decoder.
    case jpegXR
    /// A Photoshop file whose composite is stored in a form ImagePrep does not read (Lab,
    /// multichannel, 32 bits a channel, ZIP-compressed); `reason` says which, as a clause.
    case photoshopComposite(reason: String)
    /// A JPEG 2000 image of `count` components, where gray, RGB and CMYK, with or without
    /// alpha, are read.
    case jpeg2000Components(count: Int)

    /// JPEG XR's first bytes: a TIFF-like header whose version byte is 0xBC.
    static let jpegXRSignatures: [[UInt8]] = [[0x49, 0x49, 0xBC, 0x00], [0x49, 0x49, 0xBC, 0x01]]

    /// The format refused by its first bytes alone (`RefusedImageSource`), or nil.
    static func recognized(in bytes: UnsafeRawBufferPointer) -> UnsupportedFormat? {
        jpegXRSignatures.contains { bytes.starts(with: $0) } ? .jpegXR : nil
    }

    /// The stable code that `ImagePrepError.code` and `prep-photo --json` give for it.
    public var code: String {
        switch self {
        case .losslessJPEG: "unsupported_lossless_jpeg"
        case .jpegXR, .photoshopComposite, .jpeg2000Components: "unsupported_format"
        }
    }

    /// What the file is, as the object of a sentence.
    var name: String {
        switch self {
        case .losslessJPEG: "a lossless JPEG"
        case .jpegXR: "a JPEG XR image"
        case .photoshopComposite: "a Photoshop file"
        case .jpeg2000Components: "a JPEG 2000 image"
        }
    }

    /// Why it is not prepared, as a clause.
    var reason: String {
        switch self {
        case .losslessJPEG:
            "libjpeg-turbo 2.1 (Debian 12's) cannot decode a lossless JPEG"
        case .jpegXR:
            "ImagePrep has no JPEG XR decoder (jxrlib is unmaintained); convert it to JPEG, PNG or TIFF first"
        case .photoshopComposite(let reason):
            reason
        case .jpeg2000Components(let count):
            "it has \(count) components, where gray, RGB and CMYK with or without alpha are read"
        }
    }
}

/// Which of libheif's own security limits refused a HEIF file
/// (`ImagePrepError.heifSecurityLimit`).
///
/// libheif reports every such refusal with one subcode (`heif_suberror_Security_limit_exceeded`,
/// or none at all), and Debian's security updates add limits to it: libheif 1.15.1-1+deb12u2
/// (2026-12-01) bounds the images a grid, overlay or identity chain decodes, rejects a coded size
/// beyond the largest image and a decoded bit depth that is not the declared one, and caps
/// deflated metadata. Each is told apart by the fixed start of libheif's own sentence, which is
/// matched and never shown: the rest of it carries numbers read from the file.
public enum HEIFSecurityLimit: String, Equatable, Sendable, CaseIterable {
    /// A grid, overlay or chain of derived images decodes more images than libheif allows.
    case tooManyImagesComposed
    /// A coded picture declares a size beyond the largest image libheif decodes.
    case codedSizeBeyondImage
    /// The image data decodes at another bit depth than the file declares for the image.
    case bitDepthChanged
    /// Metadata inflates (`deflate` content encoding) to more than libheif holds in memory.
    case metadataTooLarge
    /// The items' data, or one box, is larger than libheif reads into memory (512 MiB for items).
    case dataTooLarge
    /// An image is wider or taller than libheif decodes (32768 pixels a side).
    case imageTooLarge
    /// An item's location (`iloc`) points outside what libheif lets an offset or a length reach.
    case dataPointerOutOfRange
    /// More items, references of one kind or levels of nested boxes than libheif reads.
    case tooManyEntries
    /// A limit this build does not know by name.
    case unnamed

    /// The stable code that `ImagePrepError.code` and `prep-photo --json` give for it.
    public var code: String {
        switch self {
        case .tooManyImagesComposed: "heif_too_many_images"
        case .codedSizeBeyondImage: "heif_coded_size_too_large"
        case .bitDepthChanged: "heif_bit_depth_changed"
        case .metadataTooLarge: "heif_metadata_too_large"
        case .dataTooLarge: "heif_data_too_large"
        case .imageTooLarge: "heif_image_too_large"
        case .dataPointerOutOfRange: "heif_data_pointer_out_of_range"
        case .tooManyEntries: "heif_too_many_entries"
        case .unnamed: "heif_security_limit"
        }
    }

    /// What was refused, as a clause that fits after a colon.
    var clause: String {
        switch self {
        case .tooManyImagesComposed:
            "it composes more images than libheif allows (a grid, overlay or chain of derived images that uses "
                + "its images too often)"
        case .codedSizeBeyondImage: "its image data codes a picture larger than libheif allows an image to be"
        case .bitDepthChanged: "its image data decodes at another bit depth than the file declares"
        case .metadataTooLarge: "its compressed metadata inflates to more than libheif allows"
        case .dataTooLarge: "it declares more data than libheif reads into memory"
        case .imageTooLarge: "an image in it is larger than libheif allows (32768 pixels a side)"
        case .dataPointerOutOfRange: "an item's location points beyond the offsets and lengths libheif allows"
        case .tooManyEntries: "it has more items, references or levels of boxes than libheif reads"
        case .unnamed: "libheif names a limit this version of ImagePrep does not know"
        }
    }

    /// The limit behind libheif's sentence `message`, or nil when it names none. The phrases are
    /// those of libheif 1.15.1 as Debian builds it (`strings libheif.so.1`), 1+deb12u2 included.
    init?(libheifMessage message: String, isSecurityLimit: Bool) {
        let known: [(phrases: [String], limit: HEIFSecurityLimit)] = [
            (["Overlay image composites more input images than allowed"], .tooManyImagesComposed),
            (["Too many derived-image decode operations"], .tooManyImagesComposed),
            (["Overlay images are nested too deeply"], .tooManyImagesComposed),
            (["Coded image size", "exceeds"], .codedSizeBeyondImage),
            (["Decoded image does not have the bit depth signaled in the file"], .bitDepthChanged),
            (["Inflated metadata exceeds"], .metadataTooLarge),
            (["iloc box contained", "security limit"], .dataTooLarge),
            (["Box size", "exceeds security limit"], .dataTooLarge),
            (["exceeds the maximum image size"], .imageTooLarge),
            (["iloc data pointers out of allowed range"], .dataPointerOutOfRange),
            (["Too many auxiliary image references"], .tooManyEntries),
            (["Too many thumbnail references"], .tooManyEntries),
            (["maximum nesting of boxes"], .tooManyEntries),
            (["exceeds the security limit"], .tooManyEntries),
            (["exceeds security limit"], .tooManyEntries),
        ]
        if let match = known.first(where: { entry in entry.phrases.allSatisfy { message.contains($0) } }) {
            self = match.limit
        } else if isSecurityLimit {
            self = .unnamed
        } else {
            return nil
        }
    }
}

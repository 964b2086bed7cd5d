internal import CExif
internal import CJPEG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One of libjpeg-turbo's messages, said in our own words.
///
/// libjpeg's messages carry numbers read from the file (marker codes, table indexes, byte counts),
/// so none of their text reaches a warning or an error: each is known by its `J_MESSAGE_CODE`,
/// from libjpeg's own API (`DamageSurvey`), or from TurboJPEG's text matched against libjpeg's own
/// message formats, and said as one clause of the fixed set below, with no number from the file.
/// The twelve warnings (`JWRN_*`) are the only messages after which libjpeg decodes to the last
/// row; anything else stopped the decode. A fatal message outside the set keeps its words but
/// loses every word that holds a digit.
struct LibjpegMessage: Equatable, Sendable {
    enum Effect: Equatable, Sendable {
        /// A warning after which every pixel is still the encoder's.
        case harmless
        /// A warning after which libjpeg has filled part of the picture in (with mid grey where
        /// data is missing) and decoded the rest.
        case losesPixels
        /// The decode stopped: nothing it wrote can be trusted.
        case fatal
        /// The decode stopped at the limit of 500 scans.
        case tooManyScans
    }

    let effect: Effect
    /// What happened, as a clause that fits after a colon ("the file ends before its image data does").
    let clause: String

    /// Whether the decode went on to the last row.
    var isWarning: Bool { effect == .harmless || effect == .losesPixels }

    /// The message libjpeg gave as `code` with these integer parameters.
    init(code: Int32, parameters: (Int32, Int32) = (0, 0)) {
        if let warning = Self.warnings.first(where: { Int32($0.code.rawValue) == code }) {
            let isOutOfStep =
                warning.code == JWRN_EXTRANEOUS_DATA
                && Self.endsScanOutOfStep(count: Int(parameters.0), marker: Int(parameters.1))
            (effect, clause) = isOutOfStep ? (.losesPixels, Self.scanOutOfStep) : (warning.effect, warning.clause)
        } else {
            effect = .fatal
            clause =
                Self.fatalErrors.first { $0.codes.contains { Int32($0.rawValue) == code } }?.clause
                ?? "libjpeg-turbo says \"\(LibraryText.withoutNumbers(Self.format(of: code) ?? "code \(code)"))\""
        }
    }

    /// TurboJPEG's text for a message: matched against libjpeg's formats to find its code.
    init(_ text: String) {
        let text = text.trimmed(where: { $0 == " " || $0 == "\n" || $0 == "." })
        if text == Self.scanLimitText {
            self = .scanLimit
        } else if let code = Self.code(of: text) {
            // Only JWRN_EXTRANEOUS_DATA's parameters matter: how many bytes, before which marker.
            var parameters: (Int32, Int32) = (0, 0)
            if Int32(JWRN_EXTRANEOUS_DATA.rawValue) == code,
                let range = text.firstRange(of: " extraneous bytes before marker 0x")
            {
                parameters.0 = Int32(text[..<range.lowerBound].split(separator: " ").last ?? "") ?? Int32.max
                parameters.1 = Int32(text[range.upperBound...].prefix(2), radix: 16) ?? 0
            }
            self.init(code: code, parameters: parameters)
        } else {
            self.init(effect: .fatal, clause: "libjpeg-turbo says \"\(LibraryText.withoutNumbers(text))\"")
        }
    }

    private init(effect: Effect, clause: String) {
        self.effect = effect
        self.clause = clause
    }

    /// The file ends before its image data does (JWRN_JPEG_EOF), said with how much of the
    /// picture that leaves out: a sequential file, or a progressive one cut in its first scan,
    /// ends within one band of rows (`band`, 0-based), below which every row is grey; one cut
    /// after its first scan has every row, with less detail.
    static func fileEnds(inScan scan: Int, inRows band: Range<Int>, of height: Int, isProgressive: Bool)
        -> LibjpegMessage
    {
        let clause: String
        if isProgressive, scan > 1 {
            clause =
                "the file ends in scan \(scan) of the progressive picture, so none of it is missing but all of it has "
                + "less detail than it was made with"
        } else {
            let last = min(band.upperBound, height)
            let missing = height > 0 ? max(1, ((height - band.lowerBound) * 100 + height / 2) / height) : 100
            clause =
                (isProgressive
                    ? "the file ends in the first scan of the progressive picture"
                    : "the file ends before its image data does")
                + ", within rows \(band.lowerBound + 1) to \(last) of \(height): from there down, \(missing) % of "
                + "the picture, it is missing and grey"
        }
        return LibjpegMessage(effect: .losesPixels, clause: clause)
    }

    /// The decode stopped at 500 scans (TurboJPEG's TJFLAG_LIMITSCANS, and `DamageSurvey`'s).
    static let scanLimit = LibjpegMessage(
        effect: .tooManyScans, clause: "it has more than 500 scans, the most libjpeg-turbo decodes")
    static let scanLimitText = "Progressive JPEG image has more than 500 scans"

    /// The warning a photo carries when this message did not stop the decode.
    var warning: PhotoWarning {
        effect == .losesPixels
            ? PhotoWarning(
                .incompleteImageData, "part of the picture is missing or damaged and was filled in: \(clause).")
            : PhotoWarning(.imageData, "libjpeg-turbo met a problem that lost no pixels: \(clause).")
    }

    /// The error for a message that stopped the decode, or for lost pixels that are not accepted.
    func error(file: String) -> ImagePrepError {
        switch effect {
        case .tooManyScans: .tooManyScans(file: file, detail: clause)
        case .losesPixels: .incompleteImageData(file: file, detail: clause)
        case .harmless, .fatal: .corruptJPEG(file: file, detail: clause)
        }
    }

    // MARK: The fixed set

    private static let scanOutOfStep = "the image data runs on past its end, so part of it was decoded out of step"

    /// Padding that some encoders leave between the image data and the marker after it.
    static let paddingByteLimit = 16

    /// libjpeg-turbo 2.1's warnings, the only messages after which the decode goes on to the last row.
    private static let warnings: [(code: J_MESSAGE_CODE, effect: Effect, clause: String)] = [
        (JWRN_EXTRANEOUS_DATA, .harmless, "there are stray bytes between two segments"),
        (JWRN_ADOBE_XFORM, .harmless, "the Adobe segment names an unknown colour transform"),
        (JWRN_NOT_SEQUENTIAL, .harmless, "a scan header holds parameters of a progressive JPEG"),
        (JWRN_JFIF_MAJOR, .harmless, "the JFIF segment has an unknown version"),
        (JWRN_BOGUS_ICC, .harmless, "an ICC profile segment is malformed"),
        (JWRN_TOO_MUCH_DATA, .harmless, "more rows were asked for than the image has"),
        (JWRN_JPEG_EOF, .losesPixels, "the file ends before its image data does"),
        (JWRN_HIT_MARKER, .losesPixels, "a scan's image data stops early"),
        (JWRN_HUFF_BAD_CODE, .losesPixels, "the Huffman-coded image data is damaged"),
        (JWRN_ARITH_BAD_CODE, .losesPixels, "the arithmetic-coded image data is damaged"),
        (JWRN_MUST_RESYNC, .losesPixels, "a restart marker is missing or out of place"),
        (JWRN_BOGUS_PROGRESSION, .losesPixels, "the progressive scans are not in an order that builds the picture"),
    ]

    /// The fatal errors a damaged file causes, grouped by what is wrong with it.
    private static let fatalErrors: [(codes: [J_MESSAGE_CODE], clause: String)] = [
        ([JERR_BAD_LENGTH], "a segment's length does not fit what it holds"),
        (
            [JERR_BAD_HUFF_TABLE, JERR_DHT_INDEX, JERR_NO_HUFF_TABLE, JERR_HUFF_MISSING_CODE, JERR_HUFF_CLEN_OVERFLOW],
            "a Huffman table is missing or malformed"
        ),
        ([JERR_DQT_INDEX, JERR_NO_QUANT_TABLE], "a quantization table is missing or malformed"),
        ([JERR_NO_ARITH_TABLE], "an arithmetic-coding table is missing"),
        (
            [
                JERR_SOF_DUPLICATE, JERR_SOF_NO_SOS, JERR_SOS_NO_SOF, JERR_SOI_DUPLICATE, JERR_EOI_EXPECTED,
                JERR_NO_IMAGE, JERR_NO_SOI, JERR_UNKNOWN_MARKER,
            ], "its segments are not in an order a JPEG allows"
        ),
        (
            [
                JERR_BAD_COMPONENT_ID, JERR_BAD_SAMPLING, JERR_BAD_MCU_SIZE, JERR_COMPONENT_COUNT,
                JERR_BAD_PROGRESSION, JERR_BAD_J_COLORSPACE, JERR_EMPTY_IMAGE, JERR_SOF_UNSUPPORTED,
                JERR_BAD_PRECISION, JERR_WIDTH_OVERFLOW, JERR_CONVERSION_NOTIMPL,
            ], "its frame or scan header is malformed"
        ),
        ([JERR_IMAGE_TOO_BIG], "it is larger than libjpeg-turbo decodes"),
        ([JERR_BAD_DCT_COEF], "its image data is damaged beyond decoding"),
        ([JERR_OUT_OF_MEMORY], "libjpeg-turbo ran out of memory"),
    ]

    /// JWRN_EXTRANEOUS_DATA is harmless between header segments. Before EOI or a restart marker it
    /// means the scan held more bytes than its pixels needed: a few are encoder padding, but many
    /// mean the data went out of step (a damaged scan decodes as garbage and leaves exactly this
    /// warning). The count and the marker are read here and never shown.
    private static func endsScanOutOfStep(count: Int, marker: Int) -> Bool {
        let endsImageData = marker == Int(JPEGSegment.endOfImage) || (0xD0...0xD7).contains(marker)
        return endsImageData && count >= paddingByteLimit
    }

    /// libjpeg's own message formats, by code, from the library itself.
    private static let formats: [Int32: String] = {
        var manager = jpeg_error_mgr()
        _ = jpeg_std_error(&manager)
        guard let table = manager.jpeg_message_table else { return [:] }
        var formats: [Int32: String] = [:]
        for code in 0...manager.last_jpeg_message {
            if let format = table[Int(code)] { formats[code] = String(cString: format) }
        }
        return formats
    }()

    private static func format(of code: Int32) -> String? { formats[code] }

    /// Every code, the warnings first: the order in which a text is matched.
    private static let matchingOrder: [Int32] = {
        let warningCodes = warnings.map { Int32($0.code.rawValue) }
        return warningCodes + formats.keys.sorted().filter { !warningCodes.contains($0) }
    }()

    /// The code whose format prints `text`.
    private static func code(of text: String) -> Int32? {
        matchingOrder.first { code in formats[code].map { LibraryText.matches(text, format: $0) } ?? false }
    }
}

/// What libexif logged while loading one EXIF block, kept as warnings in our own words.
///
/// libexif 0.6.24 prints only from its `*_dump` functions, which we never call; everything else
/// goes to the `ExifLog` callback, or nowhere when none is set. Most of what it logs is
/// `EXIF_LOG_CODE_DEBUG` chatter ("Loading entry 0x10f…"), but it also reports at that level the
/// entries it skips because the block is damaged; those, and every `CORRUPT_DATA` and `NO_MEMORY`
/// message, become warnings. Its messages hold offsets and sizes read from the block, and in a
/// block whose IFD claims more entries than it holds those "offsets" are the bytes of other
/// values, GPS coordinates among them. So the message is never formatted: its format string picks
/// one of a fixed set of clauses, which hold no number from the file.
struct LibexifLog {
    private var reports: [(clause: String, repeats: Int)] = []

    /// libexif 0.6.24's messages about a damaged block (exif-data.c), by the start of their format.
    private static let damage: [(formatPrefixes: [String], clause: String)] = [
        (
            ["Tag starts past end of buffer", "Tag data goes past end of buffer", "Tag data past end of buffer"],
            "a tag's value lies outside the block, so the tag is left out"
        ),
        (
            ["Short data; only loading"],
            "an IFD claims more entries than the block holds, so only those that fit are read"
        ),
        (["Recursive entry in IFD", "Attempt to load IFD"], "an IFD is linked more than once, so it is read once"),
        (["Deep/expensive recursion detected"], "its IFDs nest too deeply, so the deepest are left out"),
        (["Bogus thumbnail"], "the thumbnail lies outside the block, so it is left out"),
        (["Bogus offset of IFD1"], "IFD1 (the thumbnail's) lies outside the block, so it is left out"),
        (
            [
                "Size of data too small", "EXIF header not found", "EXIF marker not found", "APP Tag too short",
                "Read length",
            ], "the block is too short to hold what it claims"
        ),
        (["Unknown encoding"], "its byte order is neither II nor MM, so no tag is read"),
        (["Could not allocate"], "libexif ran out of memory"),
    ]

    /// Debug messages that mean damage; other debug messages are libexif's chatter.
    private static let damageAtDebugLevel = [
        "Tag starts past end of buffer", "Tag data goes past end of buffer", "Tag data past end of buffer",
        "Short data; only loading", "Recursive entry in IFD", "Attempt to load IFD", "Bogus thumbnail",
    ]

    mutating func record(code: ExifLogCode, domain: String, format: String) {
        let isDamage =
            code == EXIF_LOG_CODE_CORRUPT_DATA || code == EXIF_LOG_CODE_NO_MEMORY
            || Self.damageAtDebugLevel.contains { format.hasPrefix($0) }
        guard isDamage else { return }
        let clause: String
        if let known = Self.damage.first(where: { entry in entry.formatPrefixes.contains { format.hasPrefix($0) } }) {
            clause = known.clause
        } else if domain.hasPrefix("ExifMnote") {
            clause = "the maker note is malformed (it is carried across as it is)"
        } else {
            clause = "it does not follow the EXIF standard"
        }
        // One warning per kind of damage: a block with thousands of broken entries must not give
        // thousands of warnings. The count is ours, not the file's.
        if let index = reports.firstIndex(where: { $0.clause == clause }) {
            reports[index].repeats = min(reports[index].repeats, Int.max - 1) + 1
        } else {
            reports.append((clause, 0))
        }
    }

    var warnings: [PhotoWarning] {
        reports.map { report in
            let more = report.repeats == 0 ? "" : " (and \(report.repeats) more like it)"
            return PhotoWarning(.metadata, "libexif could not read all of the EXIF block: \(report.clause)\(more).")
        }
    }
}

/// libexif's log callback. `context` points at the `LibexifLog` of the load in progress; the
/// arguments are never formatted (see `LibexifLog`).
func routeLibexifMessage(
    _ log: OpaquePointer?, _ code: ExifLogCode, _ domain: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?,
    _ arguments: CVaListPointer?, _ context: UnsafeMutableRawPointer?
) {
    guard let format, let context else { return }
    context.assumingMemoryBound(to: LibexifLog.self).pointee.record(
        code: code, domain: domain.flatMap { String(validUTF8CString: $0) } ?? "",
        format: String(validUTF8CString: format) ?? "")
}

/// Matching library messages against their printf formats, and taking the numbers out of text.
enum LibraryText {
    /// Whether `text` is what `format` prints for some arguments: its literal pieces, in order,
    /// with something non-empty wherever a conversion (`%d`, `%02x`, `%s`…) stands.
    static func matches(_ text: String, format: String) -> Bool {
        let pieces = literalPieces(of: format)
        guard pieces.count > 1 else { return text == format }
        var rest = Substring(text)
        guard rest.hasPrefix(pieces[0]) else { return false }
        rest = rest.dropFirst(pieces[0].count)
        for piece in pieces.dropFirst().dropLast() {
            // At least one character for the conversion before the piece.
            guard !rest.isEmpty, let range = rest.dropFirst().firstRange(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        let last = pieces[pieces.count - 1]
        return rest.count > last.count && rest.hasSuffix(last)
    }

    /// The text between a format's conversions (`"a %d b"` gives `["a ", " b"]`).
    private static func literalPieces(of format: String) -> [String] {
        var pieces = [""]
        var index = format.startIndex
        while index < format.endIndex {
            let character = format[index]
            index = format.index(after: index)
            guard character == "%" else {
                pieces[pieces.count - 1].append(character)
                continue
            }
            if index < format.endIndex, format[index] == "%" {
                pieces[pieces.count - 1].append("%")
                index = format.index(after: index)
                continue
            }
            // Flags, width and length modifiers, then the conversion letter.
            while index < format.endIndex, "0123456789.-+ #hlzj".contains(format[index]) {
                index = format.index(after: index)
            }
            if index < format.endIndex { index = format.index(after: index) }
            pieces.append("")
        }
        return pieces
    }

    /// `text` without its words that hold a digit or a printf conversion ("Bogus DQT index 7" and
    /// "Bogus DQT index %d" both give "Bogus DQT index").
    static func withoutNumbers(_ text: String) -> String {
        text.split(separator: " ").filter { !$0.contains(where: { $0.isNumber || $0 == "%" }) }.joined(
            separator: " ")
    }
}

internal import CExif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads what a JPEG says about itself: its EXIF block (through libexif) and its first comment.
///
/// libexif only loads the block. Every value is interpreted here, against what exiftool reads
/// from the same file, so that signs, units and EXIF's placeholders for "unknown" are decided in
/// one place. Nothing libexif logs reaches stdout or stderr: the damage it reports becomes
/// `PhotoWarning(.metadata, …)`.
enum EXIFReader {
    /// Reads what the original says about itself. Never throws: malformed EXIF gives warnings.
    static func metadata(
        of bytes: UnsafeRawBufferPointer, layout: JPEGLayout
    ) -> (metadata: PhotoMetadata, warnings: [PhotoWarning]) {
        var warnings: [PhotoWarning] = []
        var metadata = PhotoMetadata(originalSize: layout.frame?.size ?? PixelSize(width: 0, height: 0))
        // First, because it explains why whatever comes after the stop is missing.
        if let stop = layout.stop { warnings.append(stop.warning) }
        if let comment = layout.commentSegments.first {
            metadata.comment = text(commentBytes: bytes[comment.payload])
        }
        guard let segment = layout.exifSegment(in: bytes) else { return (metadata, warnings) }
        let tiff = segment.payload.dropFirst(JPEGLayout.exifSignature.count)
        read(tiff: UnsafeRawBufferPointer(rebasing: bytes[tiff]), into: &metadata, warnings: &warnings)
        return (metadata, warnings)
    }

    /// Reads orientation, camera, capture time and position from a TIFF block (from `II` or `MM`
    /// on), whichever container it came in: a JPEG's APP1 after `Exif\0\0`, or a HEIF Exif item
    /// after its header offset. Never throws: malformed EXIF gives warnings.
    static func read(tiff: UnsafeRawBufferPointer, into metadata: inout PhotoMetadata, warnings: inout [PhotoWarning]) {
        let tags = EXIFTags.load(tiff: tiff, warnings: &warnings)
        metadata.orientation = orientation(tags, warnings: &warnings)
        metadata.cameraMake = tags.text(.make)
        metadata.cameraModel = tags.text(.model)
        // TIFF/EP puts DateTimeOriginal and DateTimeDigitized in IFD0; the Exif IFD's come first.
        let dates: [(EXIFTag, CaptureTime.Source, EXIFTag, EXIFTag)] = [
            (.dateTimeOriginal, .dateTimeOriginal, .subSecTimeOriginal, .offsetTimeOriginal),
            (.ifd0DateTimeOriginal, .ifd0DateTimeOriginal, .subSecTimeOriginal, .offsetTimeOriginal),
            (.dateTimeDigitized, .dateTimeDigitized, .subSecTimeDigitized, .offsetTimeDigitized),
            (.ifd0DateTimeDigitized, .ifd0DateTimeDigitized, .subSecTimeDigitized, .offsetTimeDigitized),
            (.dateTime, .dateTime, .subSecTime, .offsetTime),
        ]
        metadata.captureTime = CaptureTime(
            exif: dates.map { date, source, subSecond, offset in
                .init(
                    source: source, dateTime: tags.text(date), subSecond: tags.text(subSecond),
                    offset: tags.text(offset))
            },
            gpsClock: GPSClock.reading(dateStamp: tags.text(.gpsDateStamp), timeStamp: tags.rationals(.gpsTimeStamp)),
            warnings: &warnings)
        // A coordinate in the wrong type has been warned about (and why the location is left out).
        guard !tags.isUnreadable(.gpsLatitude), !tags.isUnreadable(.gpsLongitude) else { return }
        // exiftool reads a GPSAltitudeRef with no value (count 0, as the Pixel 7 writes it) as 0,
        // above sea level; an absent one still gives no altitude.
        let altitudeRef = tags.integer(.gpsAltitudeRef) ?? (tags.isEmpty(.gpsAltitudeRef) ? 0 : nil)
        metadata.location = GeoPoint(
            exifLatitude: tags.rationals(.gpsLatitude), latitudeRef: tags.text(.gpsLatitudeRef),
            longitude: tags.rationals(.gpsLongitude), longitudeRef: tags.text(.gpsLongitudeRef),
            altitude: tags.rationals(.gpsAltitude), altitudeRef: altitudeRef, warnings: &warnings)
    }

    /// IFD0's Orientation; a value outside 1–8 is treated as absent (shown as stored), with a warning.
    private static func orientation(_ tags: EXIFTags, warnings: inout [PhotoWarning]) -> Orientation? {
        guard let value = tags.integer(.orientation) else { return nil }
        guard let orientation = Orientation(rawValue: Int(value)) else {
            warnings.append(
                PhotoWarning(.metadata, "Orientation \(value) is not one of 1–8, so the photo is shown as stored."))
            return nil
        }
        return orientation
    }

    /// A COM segment's text, as exiftool reads it: the NULs that some writers add at the end are
    /// not text. UTF-8 when the bytes are valid UTF-8, Latin-1 otherwise (every byte is a Latin-1
    /// character, so nothing is lost or replaced).
    static func text(commentBytes bytes: some Collection<UInt8>) -> String {
        var bytes = Array(bytes)
        while bytes.last == 0 { bytes.removeLast() }
        return text(bytes)
    }

    /// `text` from a file, for a warning: control characters (a newline among them) shown as
    /// `\xHH`, as prep-photo shows them in paths, so that a value never breaks or forges a line
    /// of a log.
    static func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                shown +=
                    "\\x" + String(scalar.value >> 4, radix: 16, uppercase: true)
                    + String(scalar.value & 0xF, radix: 16, uppercase: true)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// UTF-8 when valid, Latin-1 otherwise: old cameras wrote Latin-1 into ASCII tags and comments.
    static func text(_ bytes: [UInt8]) -> String {
        String(validUTF8: bytes)
            ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

/// What one EXIF field holds once read.
enum EXIFReading<Value> {
    /// A usable value.
    case value(Value)
    /// Absent, or EXIF's placeholder for "unknown" (blanks or zeros): nothing to warn about.
    case unknown
    /// Present but unusable. The text is a predicate for a warning about the field: "is not …".
    case invalid(String)
}

/// An EXIF RATIONAL or SRATIONAL, kept as the two integers the file holds.
struct EXIFRational: Equatable, Sendable {
    var numerator: Int64
    var denominator: Int64

    /// The quotient; nil for a zero denominator (which some writers use for "unknown").
    var value: Double? { denominator == 0 ? nil : Double(numerator) / Double(denominator) }
}

/// The tags the reader interprets, each in the IFD where the EXIF standard puts it.
///
/// Tags are looked up in their own IFD only: a tag of the same number in another IFD is another
/// thing (IFD1's Orientation is the thumbnail's; GPS tag numbers 0x00–0x1F are reused elsewhere).
/// The exception is TIFF/EP's DateTimeOriginal and DateTimeDigitized in IFD0, which are cases of
/// their own, tried after the Exif IFD's.
enum EXIFTag: String, CaseIterable, Sendable {
    // Raw values are the EXIF names, as exiftool also spells them, for warnings.
    case make = "Make"
    case model = "Model"
    case orientation = "Orientation"
    case dateTime = "DateTime"
    case ifd0DateTimeOriginal = "IFD0:DateTimeOriginal"
    case ifd0DateTimeDigitized = "IFD0:DateTimeDigitized"
    case dateTimeOriginal = "DateTimeOriginal"
    case dateTimeDigitized = "DateTimeDigitized"
    case subSecTime = "SubSecTime"
    case subSecTimeOriginal = "SubSecTimeOriginal"
    case subSecTimeDigitized = "SubSecTimeDigitized"
    case offsetTime = "OffsetTime"
    case offsetTimeOriginal = "OffsetTimeOriginal"
    case offsetTimeDigitized = "OffsetTimeDigitized"
    case gpsLatitudeRef = "GPSLatitudeRef"
    case gpsLatitude = "GPSLatitude"
    case gpsLongitudeRef = "GPSLongitudeRef"
    case gpsLongitude = "GPSLongitude"
    case gpsAltitudeRef = "GPSAltitudeRef"
    case gpsAltitude = "GPSAltitude"
    case gpsTimeStamp = "GPSTimeStamp"
    case gpsDateStamp = "GPSDateStamp"

    /// The IFD the tag is read from.
    var directory: EXIFDirectory {
        switch self {
        case .make, .model, .orientation, .dateTime, .ifd0DateTimeOriginal, .ifd0DateTimeDigitized: .ifd0
        case .dateTimeOriginal, .dateTimeDigitized, .subSecTime, .subSecTimeOriginal, .subSecTimeDigitized,
            .offsetTime, .offsetTimeOriginal, .offsetTimeDigitized:
            .exif
        case .gpsLatitudeRef, .gpsLatitude, .gpsLongitudeRef, .gpsLongitude, .gpsAltitudeRef, .gpsAltitude,
            .gpsTimeStamp, .gpsDateStamp:
            .gps
        }
    }

    /// The tag number in its IFD. (libexif names the GPS ones only as macros.)
    var number: UInt16 {
        switch self {
        case .make: 0x010F
        case .model: 0x0110
        case .orientation: 0x0112
        case .dateTime: 0x0132
        case .dateTimeOriginal, .ifd0DateTimeOriginal: 0x9003
        case .dateTimeDigitized, .ifd0DateTimeDigitized: 0x9004
        case .offsetTime: 0x9010
        case .offsetTimeOriginal: 0x9011
        case .offsetTimeDigitized: 0x9012
        case .subSecTime: 0x9290
        case .subSecTimeOriginal: 0x9291
        case .subSecTimeDigitized: 0x9292
        case .gpsLatitudeRef: 0x0001
        case .gpsLatitude: 0x0002
        case .gpsLongitudeRef: 0x0003
        case .gpsLongitude: 0x0004
        case .gpsAltitudeRef: 0x0005
        case .gpsAltitude: 0x0006
        case .gpsTimeStamp: 0x0007
        case .gpsDateStamp: 0x001D
        }
    }

    /// The kind of value the tag holds; a tag stored as another TIFF type is ignored, with a warning.
    enum Kind: CustomStringConvertible {
        case text, integer, rationals

        var description: String {
            switch self {
            case .text: "ASCII"
            case .integer: "an integer type"
            case .rationals: "RATIONAL"
            }
        }
    }

    var kind: Kind {
        switch self {
        case .orientation, .gpsAltitudeRef: .integer
        case .gpsLatitude, .gpsLongitude, .gpsAltitude, .gpsTimeStamp: .rationals
        default: .text
        }
    }

    /// What ignoring the tag costs, for the warning that says so.
    var costOfIgnoring: String {
        switch self {
        case .gpsLatitude, .gpsLatitudeRef, .gpsLongitude, .gpsLongitudeRef: "the location is left out"
        case .gpsAltitude, .gpsAltitudeRef: "the altitude is left out"
        case .orientation: "the photo is shown as stored"
        default: "it is ignored"
        }
    }
}

extension EXIFDirectory {
    /// libexif's index for the directory.
    fileprivate var libexifIFD: ExifIfd {
        switch self {
        case .ifd0: EXIF_IFD_0
        case .ifd1: EXIF_IFD_1
        case .exif: EXIF_IFD_EXIF
        case .gps: EXIF_IFD_GPS
        case .interoperability: EXIF_IFD_INTEROPERABILITY
        }
    }
}

/// The values of the tags in `EXIFTag`, decoded while libexif's memory is alive and kept as Swift
/// values, so that nothing points into it once it has been freed.
struct EXIFTags {
    /// A value as its TIFF type gives it.
    enum Value {
        /// ASCII up to its first NUL (where exiftool also stops), trimmed; nil when empty.
        case text(String?)
        /// The first value of a BYTE, SHORT or LONG, or of their signed forms.
        case integer(Int64)
        /// Every value of a RATIONAL or SRATIONAL, zero denominators included.
        case rationals([EXIFRational])
        /// Stored as a type that is not the tag's own: ignored, with a warning.
        case unreadable
    }

    private var values: [EXIFTag: Value] = [:]
    /// Present with a count of 0: libexif drops these, exiftool reads them as empty.
    private var emptyTags: Set<EXIFTag> = []

    func text(_ tag: EXIFTag) -> String? { if case .text(let text)? = values[tag] { text } else { nil } }
    func integer(_ tag: EXIFTag) -> Int64? { if case .integer(let value)? = values[tag] { value } else { nil } }
    func rationals(_ tag: EXIFTag) -> [EXIFRational]? {
        if case .rationals(let values)? = values[tag] { values } else { nil }
    }
    func isUnreadable(_ tag: EXIFTag) -> Bool { if case .unreadable? = values[tag] { true } else { false } }
    func isEmpty(_ tag: EXIFTag) -> Bool { emptyTags.contains(tag) }

    /// Loads a TIFF block with libexif and decodes our tags.
    ///
    /// libexif loads the sanitised copy that `EXIFSanitizer` makes, so that an entry that would
    /// make it give up on the rest of an IFD costs only itself, with our own warning.
    ///
    /// Both of libexif's loader options are turned off, because with them (its default) the values
    /// are no longer the file's. In 0.6.24, `FOLLOW_SPECIFICATION` runs `exif_data_fix`, which
    /// adds "mandatory" tags with made-up values (ExifVersion, FlashpixVersion, ColorSpace,
    /// X/YResolution), removes tags it thinks are in the wrong IFD (a whole uncompressed-thumbnail
    /// IFD1), and converts types; `IGNORE_UNKNOWN_TAGS` drops tags missing from its table (an
    /// iPhone's HostComputer, a GoPro's 0xEA1D). 0.6.24 does know OffsetTime* (0x9010–0x9012).
    static func load(tiff: UnsafeRawBufferPointer, warnings: inout [PhotoWarning]) -> EXIFTags {
        let sanitized = EXIFSanitizer.sanitize(tiff: tiff)
        var log = LibexifLog()
        var tags = EXIFTags()
        tags.emptyTags = Set(
            EXIFTag.allCases.filter {
                sanitized.emptyEntries.contains(EXIFSanitizer.EmptyEntry(directory: $0.directory, tag: $0.number))
            })
        var typeWarnings: [PhotoWarning] = []
        let loadedEntryCount = withUnsafeMutablePointer(to: &log) { logPointer in
            guard let exifLog = exif_log_new() else { preconditionFailure("libexif could not allocate a log") }
            defer { exif_log_unref(exifLog) }
            exif_log_set_func(exifLog, routeLibexifMessage, logPointer)
            guard let data = exif_data_new() else { preconditionFailure("libexif could not allocate its data") }
            defer { exif_data_unref(data) }
            exif_data_log(data, exifLog)
            exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
            exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
            sanitized.loadable.withUnsafeBufferPointer { loadable in
                exif_data_load_data(data, loadable.baseAddress, UInt32(loadable.count))
            }
            tags.decode(data, warnings: &typeWarnings)
            return EXIFDirectory.allCases.reduce(0) { $0 + cexif_entry_count(data, $1.libexifIFD) }
        }
        // What was repaired, then libexif's own reports: they explain the values that are missing.
        warnings += sanitized.repairs.map(\.warning) + log.warnings + typeWarnings
        // libexif gives up without a word on some broken headers (a TIFF magic number that is not 42).
        if loadedEntryCount == 0 && log.warnings.isEmpty && sanitized.repairs.isEmpty {
            warnings.append(PhotoWarning(.metadata, "the EXIF block holds no tag that libexif could read."))
        }
        return tags
    }

    private mutating func decode(_ data: UnsafeMutablePointer<ExifData>, warnings: inout [PhotoWarning]) {
        let order = exif_data_get_byte_order(data)
        for tag in EXIFTag.allCases {
            guard
                let entry = cexif_entry_in_ifd(data, tag.directory.libexifIFD, ExifTag(rawValue: UInt32(tag.number)))?
                    .pointee
            else { continue }
            let format = entry.format
            let size = exif_format_get_size(format)
            let count = size == 0 ? 0 : min(Int(entry.components), Int(entry.size) / Int(size))
            guard let bytes = entry.data, count > 0 else { continue }
            switch (tag.kind, format) {
            case (.text, EXIF_FORMAT_ASCII):
                let characters = UnsafeBufferPointer(start: bytes, count: count).prefix { $0 != 0 }
                let text = EXIFReader.text(Array(characters)).trimmed(where: \.isWhitespace)
                values[tag] = .text(text.isEmpty ? nil : text)
            // Every integer type: EXIF says SHORT for Orientation, some Fuji cameras and Pillow
            // write SLONG, and exiftool reads them all.
            case (.integer, EXIF_FORMAT_BYTE): values[tag] = .integer(Int64(bytes[0]))
            case (.integer, EXIF_FORMAT_SBYTE): values[tag] = .integer(Int64(Int8(bitPattern: bytes[0])))
            case (.integer, EXIF_FORMAT_SHORT): values[tag] = .integer(Int64(exif_get_short(bytes, order)))
            case (.integer, EXIF_FORMAT_SSHORT): values[tag] = .integer(Int64(exif_get_sshort(bytes, order)))
            case (.integer, EXIF_FORMAT_LONG): values[tag] = .integer(Int64(exif_get_long(bytes, order)))
            case (.integer, EXIF_FORMAT_SLONG): values[tag] = .integer(Int64(exif_get_slong(bytes, order)))
            case (.rationals, EXIF_FORMAT_RATIONAL):
                values[tag] = .rationals(
                    (0..<count).map { index in
                        let value = exif_get_rational(bytes + index * 8, order)
                        return EXIFRational(numerator: Int64(value.numerator), denominator: Int64(value.denominator))
                    })
            case (.rationals, EXIF_FORMAT_SRATIONAL):
                values[tag] = .rationals(
                    (0..<count).map { index in
                        let value = exif_get_srational(bytes + index * 8, order)
                        return EXIFRational(numerator: Int64(value.numerator), denominator: Int64(value.denominator))
                    })
            default:
                // exiftool converts what it can (it pulls numbers out of a text coordinate, and
                // misreads "52,00000,50,00000,34,01180"); a value in the wrong type is not trusted.
                values[tag] = .unreadable
                let type = TIFFBlock.typeName(UInt16(truncatingIfNeeded: format.rawValue))
                warnings.append(
                    PhotoWarning(
                        .metadata,
                        "\(tag.rawValue) is stored as \(type) rather than \(tag.kind), so \(tag.costOfIgnoring)."
                    ))
            }
        }
    }
}

extension String {
    /// The string without the leading and trailing characters that match `isTrimmed`.
    func trimmed(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

/// One `--json` line, with the types the issue gives each key. Decoding fails on a value of another type
/// (a width as a string, `ok` as a number); that a key is present, even when null, is checked apart
/// (`PhotoReport.keys`), since decoding takes a missing key for null.
struct PhotoReport: Decodable {
    struct Copy: Decodable, Equatable {
        var path: String
        let width: Int
        let height: Int
        let bytes: Int
    }

    struct GainMap: Decodable, Equatable {
        let width: Int
        let height: Int
        let bytes: Int
    }

    struct Size: Decodable, Equatable {
        let width: Int
        let height: Int
    }

    struct CapturedAt: Decodable, Equatable {
        let local: String
        let offset: String?
        let inferred: Bool
        let source: String
    }

    struct Location: Decodable, Equatable {
        let latitude: Double
        let longitude: Double
        let altitude: Double?
    }

    let input: String
    let ok: Bool
    let skipped: Bool
    let code: String?
    let error: String?
    let upload: Copy?
    let display: Copy?
    let thumbnail: Copy?
    let gainMap: GainMap?
    let original: Size?
    let orientation: Int?
    let capturedAt: CapturedAt?
    let location: Location?
    let comment: String?
    let warnings: [String]
    /// A camera raw's: "embedded_preview" or "raw_data".
    let rawPixels: String?

    /// The copies that were written, by the suffix of their name.
    var copies: [(suffix: String, copy: Copy)] {
        [(".jpg", upload), (".display.jpg", display), (".thumb.jpg", thumbnail)].compactMap { suffix, copy in
            copy.map { (suffix, $0) }
        }
    }

    /// The keys of every line, and of each object in it, exactly as the issue lists them.
    enum Keys {
        static let line: Set = [
            "input", "ok", "skipped", "code", "error", "upload", "display", "thumbnail", "gainMap", "original",
            "orientation",
            "capturedAt",
            "location", "comment", "warnings", "rawPixels",
        ]
        static let copy: Set = ["path", "width", "height", "bytes"]
        static let original: Set = ["width", "height"]
        static let gainMap: Set = ["width", "height", "bytes"]
        static let capturedAt: Set = ["local", "offset", "inferred", "source"]
        static let location: Set = ["latitude", "longitude", "altitude"]
        /// The keys of each nested object.
        static let nested: [String: Set<String>] = [
            "upload": copy, "display": copy, "thumbnail": copy, "gainMap": gainMap, "original": original,
            "capturedAt": capturedAt,
            "location": location,
        ]
    }
}

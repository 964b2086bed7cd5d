import Foundation

/// What the engine needs to know about one attachment (a capture's upload copy, a voice note's
/// audio) to check it and to refer to it.
public struct MediaDescriptor: Sendable, Hashable, Codable {
    /// The attachment's position in its operation, from 0; the engine's upload URL ends with it.
    public var index: Int
    /// SHA-256 of the file's bytes, as 64 lowercase hexadecimal digits.
    public var sha256: String
    /// The pixel width of an image; nil for another kind of file.
    public var width: Int?
    /// The pixel height of an image; nil for another kind of file.
    public var height: Int?
    /// The size of the file in bytes.
    public var byteCount: Int64
    /// The file's media type, the upload's `Content-Type` ("image/jpeg" for a capture's photos).
    public var contentType: String

    /// Creates a descriptor.
    public init(
        index: Int, sha256: String, width: Int?, height: Int?, byteCount: Int64, contentType: String = "image/jpeg"
    ) {
        self.index = index
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.contentType = contentType
    }

    /// Reads a descriptor written by any version: a missing count or checksum becomes a value
    /// that claims nothing (0 or ""), so that an old record still decodes and its file is still
    /// sent, and a missing type is "image/jpeg", the only kind of file older versions kept.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
        sha256 = try container.decodeIfPresent(String.self, forKey: .sha256) ?? ""
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        byteCount = try container.decodeIfPresent(Int64.self, forKey: .byteCount) ?? 0
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType) ?? "image/jpeg"
    }

    /// Whether a descriptor read back from the store can describe an upload: an index an engine
    /// URL takes, a SHA-256 of 64 lowercase hexadecimal digits (or none yet, in a record older
    /// than the checksums), no negative size, and a media type.
    var isPlausible: Bool {
        StoredValue.mediaIndices.contains(index) && (width ?? 0) >= 0 && (height ?? 0) >= 0 && byteCount >= 0
            && (sha256.isEmpty || Self.isSHA256(sha256)) && Self.isMediaType(contentType)
    }

    /// Whether `text` is a SHA-256 as the contract writes it: 64 lowercase hexadecimal digits.
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// Whether `text` is a media type an HTTP header can carry: `type/subtype`, each 1 to 63 of
    /// letters, digits and `!#$&-^_.+`, as RFC 6838 allows, without parameters.
    static func isMediaType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count == 2
            && parts.allSatisfy { part in
                (1...63).contains(part.utf8.count)
                    && part.utf8.allSatisfy { byte in
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "!#$&-^_.+".utf8.contains(byte)
                    }
            }
    }

    /// The file name's ending for a media file of this type: what lets a person who opens the
    /// folder see what it is.
    var fileExtension: String {
        switch contentType.lowercased() {
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "image/heic": "heic"
        default: "bin"
        }
    }
}

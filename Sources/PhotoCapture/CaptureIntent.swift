import Foundation
import ImagePrep

/// What the user meant by a capture, in the app's own terms: the operation "create a capture"
/// and its arguments. This, not an HTTP request, is what the outbox keeps; a transport turns it
/// into whatever the engine speaks when it is sent.
///
/// It is stored as versioned JSON, `{"version":1,"operation":"capture.create","arguments":{…}}`,
/// and never rewritten after it is stored, so fields a later version adds survive an older
/// version reading them.
public struct CaptureIntent: Sendable, Hashable {
    /// The operation every capture intent stands for.
    public static let operation = "capture.create"
    /// The newest version of the stored JSON this version reads and writes.
    public static let currentVersion = 1

    /// What was captured, in the app's own vocabulary (for example "plate").
    public var kind: String
    /// The user's note, with surrounding whitespace trimmed by `Outbox.commit`.
    public var note: String
    /// When the capture was made, ISO 8601 with a UTC offset (for example `2024-04-30T14:02:05.495+02:00`);
    /// empty only in a record from a version that did not store it.
    public var capturedAt: String
    /// The device's IANA time zone when the capture was saved (for example "Europe/Berlin").
    public var timeZone: String?
    /// Where the capture was made (signed decimal degrees on WGS 84), or nil when no photo says.
    public var place: GeoPoint?
    /// One descriptor for each upload copy, in upload order.
    public var media: [MediaDescriptor]

    /// Creates an intent.
    public init(
        kind: String, note: String, capturedAt: String, timeZone: String?, place: GeoPoint?, media: [MediaDescriptor]
    ) {
        self.kind = kind
        self.note = note
        self.capturedAt = capturedAt
        self.timeZone = timeZone
        self.place = place
        self.media = media
    }
}

/// What the engine needs to know about one upload copy to check it and to refer to it.
public struct MediaDescriptor: Sendable, Hashable, Codable {
    /// The position of the copy in its capture, from 0; the engine's upload URL ends with it.
    public var index: Int
    /// SHA-256 of the file's bytes, as 64 lowercase hexadecimal digits.
    public var sha256: String
    /// The pixel width of the encoded image.
    public var width: Int
    /// The pixel height of the encoded image.
    public var height: Int
    /// The size of the file in bytes.
    public var byteCount: Int64

    /// Creates a descriptor.
    public init(index: Int, sha256: String, width: Int, height: Int, byteCount: Int64) {
        self.index = index
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }

    /// Whether a descriptor read back from the store can describe an upload: an index an engine
    /// URL takes, a SHA-256 of 64 lowercase hexadecimal digits (or none yet, in a record older
    /// than the checksums), and no negative size.
    var isPlausible: Bool {
        StoredValue.mediaIndices.contains(index) && width >= 0 && height >= 0 && byteCount >= 0
            && (sha256.isEmpty || Self.isSHA256(sha256))
    }

    /// Whether `text` is a SHA-256 as the contract writes it: 64 lowercase hexadecimal digits.
    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    /// Reads a descriptor written by any version: a missing field becomes a value that claims
    /// nothing (0 or ""), so an old record still decodes and its file is still sent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        index = try container.decodeIfPresent(Int.self, forKey: .index) ?? 0
        sha256 = try container.decodeIfPresent(String.self, forKey: .sha256) ?? ""
        width = try container.decodeIfPresent(Int.self, forKey: .width) ?? 0
        height = try container.decodeIfPresent(Int.self, forKey: .height) ?? 0
        byteCount = try container.decodeIfPresent(Int64.self, forKey: .byteCount) ?? 0
    }
}

// MARK: - Stored JSON

extension CaptureIntent {
    /// The stored form: the operation and the version beside the arguments.
    private struct Envelope: Codable {
        var version: Int?
        var operation: String?
        var arguments: Arguments?
    }

    /// The arguments, every one optional so that a record from an older version decodes.
    private struct Arguments: Codable {
        var kind: String?
        var note: String?
        var capturedAt: String?
        var timeZone: String?
        var place: GeoPoint?
        var media: [MediaDescriptor]?
    }

    /// The JSON the store keeps, keys sorted so that equal intents are equal bytes.
    func encodedRecord() throws -> Data {
        let arguments = Arguments(
            kind: kind, note: note, capturedAt: capturedAt, timeZone: timeZone, place: place, media: media)
        let envelope = Envelope(version: Self.currentVersion, operation: Self.operation, arguments: arguments)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(envelope)
    }

    /// Reads the stored JSON of any version up to `currentVersion`.
    ///
    /// Missing fields take defaults that claim nothing and lose nothing: an empty kind, note and
    /// capture time, no time zone, no place, no media descriptors (the files stay the entry's own).
    ///
    /// - Returns: the intent, or why it cannot be read, in words fit for the app's UI (never a value from the record).
    static func decodeRecord(_ data: Data) -> Result<CaptureIntent, RecordProblem> {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: data)
        } catch {
            return .failure(RecordProblem(decoding: error, of: "intent"))
        }
        let version = envelope.version ?? 1
        guard version <= currentVersion else {
            return .failure(
                RecordProblem("its intent is version \(version), and this version reads up to \(currentVersion)"))
        }
        let operation = envelope.operation ?? Self.operation
        guard operation == Self.operation else {
            let shown = UntrustedText.quoted(operation, limit: 40)
            return .failure(RecordProblem("its operation '\(shown)' is not one this version knows"))
        }
        let arguments = envelope.arguments ?? Arguments()
        let media = arguments.media ?? []
        guard media.allSatisfy(\.isPlausible), Set(media.map(\.index)).count == media.count else {
            return .failure(RecordProblem("its intent describes an upload that cannot be one"))
        }
        return .success(
            CaptureIntent(
                kind: arguments.kind ?? "", note: arguments.note ?? "",
                capturedAt: arguments.capturedAt ?? "", timeZone: arguments.timeZone,
                place: arguments.place, media: media))
    }
}

/// Why a stored record cannot be read, in words that never quote the record's values.
struct RecordProblem: Error, Equatable {
    var reason: String

    init(_ reason: String) { self.reason = reason }

    /// Describes a JSON decoding failure by where it happened, not by what the bytes held.
    init(decoding error: any Error, of field: String) {
        guard let error = error as? DecodingError else {
            self.init("its \(field) cannot be decoded")
            return
        }
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            self.init("its \(field) is not valid JSON")
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            self.init("its \(field) has a value of the wrong type at '\(path(context))'")
        case .keyNotFound(let key, _):
            self.init("its \(field) lacks '\(key.stringValue)'")
        @unknown default:
            self.init("its \(field) cannot be decoded")
        }
    }
}

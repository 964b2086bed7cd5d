import Foundation

/// One thing the user did, as the outbox keeps it until the engine has it: the intent (a type,
/// its version and its arguments), not an HTTP request. A transport maps it to a request when it
/// sends it, so an engine API that changes does not strand what is queued.
///
/// The only ways to make one check every rule and hash every attachment, so a queued operation
/// and its files can never disagree.
public struct OutboxOperation: Sendable, Hashable {
    /// The most bytes a payload's JSON may have: the engine takes records of up to 1 MiB, and
    /// this leaves room for the rest of the request.
    public static let largestPayload = 1_000_000
    /// The most attachments one operation may have: the engine takes no more.
    public static let mostAttachments = 100

    /// The id minted on the device; the engine's request id and idempotency key.
    public let id: String
    /// The thing the operation is about, for example "note:42"; operations on one entity reach
    /// the engine in the order they were queued. Nil for one that is about nothing earlier (a
    /// new capture), which waits for nothing.
    public let entity: String?
    /// What it does, for example "note.update" (see `OperationType`).
    public let type: String
    /// The version of the payload's shape, from 1.
    public let version: Int
    /// The arguments as JSON (UTF-8), exactly as given; the transport sends these bytes.
    public let payload: Data
    /// Files the outbox owns and uploads before the operation itself, in order.
    public let attachments: [OperationAttachment]

    /// One descriptor per attachment, with its position, size and SHA-256.
    public var media: [MediaDescriptor] { Self.descriptors(of: attachments) }

    /// Creates an operation whose payload is any `Encodable` value, encoded as JSON with sorted
    /// keys and ISO 8601 dates (`2024-04-30T12:02:05Z`), so that an equal value is equal bytes.
    ///
    /// - Parameters:
    ///   - id: 1 to 128 letters, digits, '-' or '_'; unique on this device (a UUID, or
    ///     `derivedID(prefix:content:)` for a save that may be retried).
    ///   - entity: What it is about, for example "note:42": 1 to 256 bytes of UTF-8 without
    ///     control characters; nil for nothing earlier.
    ///   - type: The type's name, for example "note.update".
    ///   - version: The payload's version, from 1.
    ///   - payload: The arguments.
    ///   - attachments: The files to upload first.
    /// - Throws: `.request(.invalidID)`, `encoding`, or `.request(.invalidOperation)` naming the rule broken.
    public init(
        id: String, entity: String? = nil, type: String, version: Int = 1, payload: some Encodable,
        attachments: [OperationAttachment] = []
    ) throws(OutboxError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let json: Data
        do {
            json = try encoder.encode(payload)
        } catch {
            throw .request(.encoding(id: id, reason: (error as NSError).localizedDescription))
        }
        try self.init(id: id, entity: entity, type: type, version: version, payloadJSON: json, attachments: attachments)
    }

    /// Creates an operation from a payload that is JSON already, kept byte for byte but for a
    /// UTF-8 byte order mark before it, which is dropped: RFC 8259 lets a parser ignore one, and
    /// inside the record the engine gets it would be a stray character.
    ///
    /// - Parameters:
    ///   - id: 1 to 128 letters, digits, '-' or '_'; unique on this device.
    ///   - entity: What it is about, for example "note:42"; nil for nothing earlier.
    ///   - type: The type's name, for example "note.update".
    ///   - version: The payload's version, from 1.
    ///   - payloadJSON: One JSON value (an object, an array, a string, a number, true,
    ///     false or null) in UTF-8, at most `largestPayload` bytes.
    ///   - attachments: The files to upload first.
    /// - Throws: `.request(.invalidID)`, or `.request(.invalidOperation)` naming the rule broken (never quoting the payload).
    public init(
        id: String, entity: String? = nil, type: String, version: Int = 1, payloadJSON: Data,
        attachments: [OperationAttachment] = []
    ) throws(OutboxError) {
        guard OutboxOperation.isValidID(id) else { throw .request(.invalidID(id)) }
        func refuse(_ reason: String) -> OutboxError { .request(.invalidOperation(id: id, reason: reason)) }
        if let entity, !Self.isValidEntity(entity) {
            throw refuse("its entity must be 1 to 256 bytes of text without control characters")
        }
        guard OperationType.isValidName(type) else {
            throw refuse(
                "its type '\(UntrustedText.quoted(type, limit: 64))' is not a type name: use 1 to 64 letters, digits,"
                    + " '.', '-' or '_', starting with a letter")
        }
        guard version >= 1 else { throw refuse("its version must be 1 or more, not \(version)") }
        let byteOrderMark = Data([0xEF, 0xBB, 0xBF])
        let payloadJSON = payloadJSON.starts(with: byteOrderMark) ? Data(payloadJSON.dropFirst(3)) : payloadJSON
        if let problem = Self.payloadProblem(payloadJSON) { throw refuse("its payload \(problem)") }
        guard attachments.count <= Self.mostAttachments else {
            throw refuse(
                "it has \(attachments.count) attachments, and the engine takes at most \(Self.mostAttachments)")
        }
        for (index, attachment) in attachments.enumerated() {
            if let problem = attachment.problem { throw refuse("its attachment \(index + 1) \(problem)") }
        }
        self.id = id
        self.entity = entity
        self.type = type
        self.version = version
        self.payload = payloadJSON
        self.attachments = attachments
    }

    /// An id derived from content: `prefix` followed by 32 hexadecimal digits (128 bits) of the
    /// SHA-256 of `content`. For a save that may be retried without knowing whether the first try
    /// happened: the same content gets the same id, which the outbox then queues only once
    /// (`.alreadyQueued`). Put into `content` everything that tells two operations apart, the
    /// moment of the save included, or two different ones will be taken for one.
    ///
    /// - Parameters:
    ///   - prefix: Starts the id, for example "note-": at most 64 letters, digits, '-' or '_'.
    ///   - content: Everything the operation stands for, in a form that cannot run two values together.
    /// - Throws: `.request(.invalidIDPrefix)`.
    public static func derivedID(prefix: String, content: Data) throws(OutboxError) -> String {
        guard OutboxOperation.isValidIDPrefix(prefix) else { throw .request(.invalidIDPrefix(prefix)) }
        return prefix + String(Cryptography.sha256Hex(of: content).prefix(32))
    }

    /// Whether `id` can name an entry. The id becomes part of file names and of the engine's
    /// URLs, so only characters that are safe in both are allowed: 1 to 128 letters, digits,
    /// '-' or '_'. '.' is left out because it separates the id from the rest of a media file's
    /// name, which makes "the files of id X" unambiguous.
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 128 && id.utf8.allSatisfy(isIDByte)
    }

    /// Whether `prefix` can start an id: the same characters, possibly none, at most 64.
    public static func isValidIDPrefix(_ prefix: String) -> Bool {
        prefix.utf8.count <= 64 && prefix.utf8.allSatisfy(isIDByte)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// One descriptor per attachment, in order: what `media` of an operation with these attachments is.
    public static func descriptors(of attachments: [OperationAttachment]) -> [MediaDescriptor] {
        attachments.enumerated().map { index, attachment in
            MediaDescriptor(
                index: index, sha256: attachment.sha256, width: attachment.width, height: attachment.height,
                byteCount: Int64(attachment.data.count), contentType: attachment.contentType)
        }
    }

    /// Whether `entity` can be an entity key: 1 to 256 bytes, no control characters (they would
    /// reach listings and terminals).
    public static func isValidEntity(_ entity: String) -> Bool {
        !entity.isEmpty && entity.utf8.count <= 256
            && !entity.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    /// What is wrong with a payload, in words that finish "its payload …", or nil: it must be
    /// one JSON value in UTF-8, no larger than `largestPayload`.
    static func payloadProblem(_ json: Data) -> String? {
        guard json.count <= largestPayload else {
            return "has \(json.count) bytes, and at most \(largestPayload) are taken"
        }
        // JSONSerialization would also take UTF-16 and UTF-32, which the engine's JSON may not be.
        guard String(data: json, encoding: .utf8) != nil else { return "is not UTF-8 text" }
        // A character at U+F000 and above cannot start JSON; a second byte order mark would be one.
        guard json.first != 0xEF else { return "is not valid JSON" }
        do {
            _ = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            return "is not valid JSON"
        }
        return nil
    }
}

/// A file an operation carries: its bytes, what kind of file it is, and for an image its size.
/// The outbox keeps its own copy (owner-only, flushed) from the moment the operation is queued
/// until it retires, and uploads it before the operation itself.
public struct OperationAttachment: Sendable, Hashable {
    /// The file's bytes.
    public let data: Data
    /// Its media type, for example "image/jpeg" or "audio/mp4"; the upload's `Content-Type`.
    public let contentType: String
    /// The pixel width of an image; nil for other files.
    public let width: Int?
    /// The pixel height of an image; nil for other files.
    public let height: Int?
    /// SHA-256 of `data`, as 64 lowercase hexadecimal digits: what the engine checks it by.
    let sha256: String

    /// Creates an attachment, hashing its bytes.
    ///
    /// - Parameters:
    ///   - data: The file's bytes, at most 64 MiB.
    ///   - contentType: Its media type (`type/subtype`).
    ///   - width: The pixel width of an image, if it is one.
    ///   - height: The pixel height of an image, if it is one.
    public init(data: Data, contentType: String, width: Int? = nil, height: Int? = nil) {
        self.data = data
        self.contentType = contentType
        self.width = width
        self.height = height
        sha256 = Cryptography.sha256Hex(of: data)
    }

    /// What keeps it from being queued, in words that finish "its attachment N …", or nil.
    var problem: String? {
        if data.count > StoredValue.largestUpload {
            return
                "has \(data.count) bytes, and the engine takes at most \(StoredValue.largestUpload / (1024 * 1024)) MiB"
        }
        if !MediaDescriptor.isMediaType(contentType) {
            return "has the content type '\(UntrustedText.quoted(contentType, limit: 64))', which is not a media type"
                + " such as image/jpeg"
        }
        if (width.map { $0 < 0 } ?? false) || (height.map { $0 < 0 } ?? false) { return "has a negative size" }
        return nil
    }
}

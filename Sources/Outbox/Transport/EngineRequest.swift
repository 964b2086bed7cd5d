import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's wire contract (docs/engine-protocol.md), as requests: the one place that knows
/// the paths, the headers and the JSON keys, so that the transport speaks it exactly.
///
/// An operation goes to one of the protocol's two record endpoints, by its type: a photo
/// capture (`capture.create` version 1) as the contract's `POST /v1/captures`, every other
/// operation as the extension's `POST /v1/operations`, which carries its type, version and
/// payload as they are.
enum EngineRequest {
    /// `PUT /v1/uploads/{request_id}/{index}`: one attachment's bytes, under the same key on every attempt.
    static func upload(_ upload: PendingUpload, of id: String, engine: URL, timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(
            url: engine.appendingPathComponent("v1/uploads/\(id)/\(upload.index)"), timeoutInterval: timeout)
        request.httpMethod = "PUT"
        request.setValue(upload.contentType, forHTTPHeaderField: "Content-Type")
        return request
    }

    /// Whether the operation is a photo capture the contract's captures endpoint takes.
    static func isCapture(type: String, version: Int) -> Bool {
        type == OperationType.captureCreate.name && version == 1
    }

    /// The record's request, sent once every upload landed, and what its answer must confirm:
    /// `POST /v1/captures` for a capture, `POST /v1/operations` for any other operation, each
    /// with `Idempotency-Key: {request_id}`.
    static func record(_ delivery: Delivery, engine: URL, timeout: TimeInterval) throws
        -> (request: URLRequest, confirmation: EngineConfirmation)
    {
        let isCapture = isCapture(type: delivery.type, version: delivery.version)
        var request = URLRequest(
            url: engine.appendingPathComponent(isCapture ? "v1/captures" : "v1/operations"), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(delivery.id, forHTTPHeaderField: "Idempotency-Key")
        let body = try body(for: delivery)
        request.httpBody = body
        let confirmation: EngineConfirmation =
            isCapture
            ? .capture(id: delivery.id, media: delivery.media, request: body)
            : .operation(id: delivery.id, type: delivery.type, media: delivery.media, request: body)
        return (request, confirmation)
    }

    /// The record's JSON body: a capture's with every key always present and absent values as
    /// `null`; an operation's with its payload's bytes as they were queued.
    static func body(for delivery: Delivery) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard isCapture(type: delivery.type, version: delivery.version) else {
            return try operationBody(for: delivery, encoder: encoder)
        }
        let fields = try JSONDecoder().decode(CaptureFields.self, from: delivery.payload)
        return try encoder.encode(CaptureBody(id: delivery.id, fields: fields, media: delivery.media))
    }

    /// Why a stored payload cannot be sent as its type, in words that finish "its …"; nil when
    /// it can. Only a capture's payload has a shape the wire needs; every other payload is
    /// sent as it is.
    static func payloadProblem(type: String, version: Int, payload: Data) -> String? {
        guard isCapture(type: type, version: version) else { return nil }
        do {
            _ = try JSONDecoder().decode(CaptureFields.self, from: payload)
            return nil
        } catch {
            return RecordProblem(decoding: error, of: "capture payload").reason
        }
    }

    /// `{"entity", "media", "payload", "request_id", "type", "version"}`, keys in that order and
    /// the payload spliced in byte for byte (it was checked to be one JSON value when it was queued
    /// and again when it was read), so that what the engine gets is exactly what the app gave.
    private static func operationBody(for delivery: Delivery, encoder: JSONEncoder) throws -> Data {
        struct Media: Encodable {
            let index: Int
            let sha256: String
            let width: Int?
            let height: Int?
        }
        func json(_ value: some Encodable) throws -> Data { try encoder.encode(value) }
        let media = delivery.media.map { Media(index: $0.index, sha256: $0.sha256, width: $0.width, height: $0.height) }
        var body = Data("{\"entity\":".utf8)
        body += try delivery.entity.map(json) ?? Data("null".utf8)
        body += Data(",\"media\":".utf8) + (try json(media))
        body += Data(",\"payload\":".utf8) + delivery.payload
        body += Data(",\"request_id\":".utf8) + (try json(delivery.id))
        body += Data(",\"type\":".utf8) + (try json(delivery.type))
        body += Data(",\"version\":".utf8) + (try json(delivery.version)) + Data("}".utf8)
        return body
    }

    /// What the contract's capture record is made of, read from a `capture.create` payload of
    /// any version of this package: every field may be missing (an older record's), and then
    /// claims nothing.
    private struct CaptureFields: Decodable {
        struct Place: Decodable {
            let latitude: Double
            let longitude: Double
        }
        let kind: String?
        let note: String?
        let capturedAt: String?
        let timeZone: String?
        let place: Place?
    }

    /// The capture request as the contract spells it.
    private struct CaptureBody: Encodable {
        let id: String
        let fields: CaptureFields
        let media: [MediaDescriptor]

        private enum Keys: String, CodingKey {
            case requestID = "request_id"
            case kind, note
            case capturedAt = "captured_at"
            case timeZone = "time_zone"
            case place, media
        }

        private struct Place: Encodable {
            let latitude: Double
            let longitude: Double
        }

        private struct Media: Encodable {
            let index: Int
            let sha256: String
            let width: Int
            let height: Int
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(id, forKey: .requestID)
            try container.encode(fields.kind ?? "", forKey: .kind)
            try container.encode(fields.note ?? "", forKey: .note)
            // Only a record from a version that stored no time has none: say "not known".
            if let capturedAt = fields.capturedAt, !capturedAt.isEmpty {
                try container.encode(capturedAt, forKey: .capturedAt)
            } else {
                try container.encodeNil(forKey: .capturedAt)
            }
            if let timeZone = fields.timeZone {
                try container.encode(timeZone, forKey: .timeZone)
            } else {
                try container.encodeNil(forKey: .timeZone)
            }
            // The altitude stays on the device: the contract's place is latitude and longitude.
            if let place = fields.place {
                try container.encode(Place(latitude: place.latitude, longitude: place.longitude), forKey: .place)
            } else {
                try container.encodeNil(forKey: .place)
            }
            try container.encode(
                media.map { Media(index: $0.index, sha256: $0.sha256, width: $0.width ?? 0, height: $0.height ?? 0) },
                forKey: .media)
        }
    }

    /// `url` as an error, a listing or a log may show it: without the user name, the password,
    /// the query and the fragment, any of which may carry a credential
    /// (`https://alice:secret@host/api?token=…`).
    static func shown(_ url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "?" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "?"
    }

    /// `text` from the engine with the request URL's query, user name and password cut out:
    /// an engine that quotes the request it refused must not put the token into an error.
    static func withoutCredentials(_ text: String, of url: URL?) -> String {
        guard let url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return text }
        let secrets = [components.percentEncodedQuery, components.query, components.password, components.user]
        return secrets.compactMap { $0 }.filter { !$0.isEmpty }.reduce(text) {
            $0.replacingOccurrences(of: $1, with: "…")
        }
    }

    /// The errors of a record's `POST` that say the engine does not hold an upload it was sent,
    /// or holds other bytes under its key: a restored engine, another node of a cluster.
    static let lostUploadCodes: Set<String> = ["upload_missing", "checksum_mismatch"]

    /// The `error` code of a JSON error body, when it is a short word.
    static func code(fromBody body: Data) -> String? {
        guard let code = EngineConfirmation.object(in: body)?["error"] as? String, code.utf8.count <= 64 else {
            return nil
        }
        return code
    }

    /// What an engine's error body says, for `TransportResponse.http`'s detail: the `message` of
    /// a JSON error (`{"error": code, "message": sentence}`), else the start of a text body; one
    /// short line without control characters either way (`UntrustedText`).
    static func detail(fromBody body: Data) -> String? {
        if let object = EngineConfirmation.object(in: body) {
            if let message = object["message"] as? String, !message.isEmpty { return UntrustedText.quoted(message) }
            if let code = object["error"] as? String, !code.isEmpty { return UntrustedText.quoted(code) }
            return nil
        }
        let text = UntrustedText.quoted(String(decoding: body.prefix(4096), as: UTF8.self))
        return text.isEmpty ? nil : text
    }
}

// MARK: - Answers

/// What a success answer must confirm for the send to count: the contract's answer bodies, with
/// what only an engine can add to them. A server that mirrors the request (or a proxy that
/// answers with its own JSON) holds nothing and computed nothing: it cannot know when the
/// engine received the record, nor the size of uploads it never stored.
enum EngineConfirmation: Sendable {
    /// `PUT /v1/uploads/{request_id}/{index}`: 200 or 201 with `{"request_id", "index", "sha256",
    /// "byte_count"}` naming this key and the SHA-256 and byte count the engine computed of the
    /// bytes it received, which must be those of the bytes sent.
    case upload(id: String, index: Int, sha256: String, byteCount: Int)
    /// `POST /v1/captures`: 200 or 201 with a record whose `request_id` is this one, whose
    /// `media` hold exactly these indexes with these SHA-256s, each with the `byte_count` the
    /// engine holds, and which says when the engine received it (`received_at`); never the
    /// request itself (`request`, the body sent).
    case capture(id: String, media: [MediaDescriptor], request: Data)
    /// `POST /v1/operations`: as for a capture, and the record's `type` is this one.
    case operation(id: String, type: String, media: [MediaDescriptor], request: Data)

    /// Whether this confirms an upload rather than a record.
    var isUpload: Bool {
        if case .upload = self { return true }
        return false
    }

    /// Whether `answer` is the engine's confirmation.
    func isConfirmed(by answer: HTTPAnswer) -> Bool {
        guard answer.status == 200 || answer.status == 201, let object = Self.object(in: answer.body) else {
            return false
        }
        switch self {
        case .upload(let id, let index, let sha256, let byteCount):
            return object["request_id"] as? String == id && Self.integer(object["index"]) == index
                && object["sha256"] as? String == sha256 && Self.integer(object["byte_count"]) == byteCount
        case .capture(let id, let media, let request):
            return object["request_id"] as? String == id && Self.isEngineRecord(object, media: media, request: request)
        case .operation(let id, let type, let media, let request):
            return object["request_id"] as? String == id && object["type"] as? String == type
                && Self.isEngineRecord(object, media: media, request: request)
        }
    }

    /// What only an engine that stored the record can answer: its media as the request's with
    /// the byte counts of the uploads it holds, the moment it received it, and not the request's
    /// own object (a mirror's answer).
    private static func isEngineRecord(_ record: [String: Any], media: [MediaDescriptor], request: Data) -> Bool {
        checksums(of: record) == checksums(of: media) && holdsByteCounts(record, of: media)
            && receivedAt(of: record) != nil && !isEcho(record, of: request)
    }

    /// Whether each of the record's media names the byte count of the upload sent; a count that
    /// an older record of the outbox does not know (0) takes any whole number.
    private static func holdsByteCounts(_ record: [String: Any], of media: [MediaDescriptor]) -> Bool {
        guard let held = record["media"] as? [[String: Any]] else { return false }
        let sizes = Dictionary(media.map { ($0.index, $0.byteCount) }, uniquingKeysWith: { first, _ in first })
        return held.allSatisfy { item in
            guard let index = integer(item["index"]), let count = integer(item["byte_count"]), count >= 0 else {
                return false
            }
            let sent = sizes[index] ?? 0
            return sent == 0 || Int64(count) == sent
        }
    }

    /// The record's `received_at` when it is an ISO 8601 moment with its offset.
    private static func receivedAt(of record: [String: Any]) -> Date? {
        guard let text = record["received_at"] as? String, text.utf8.count <= 64 else { return nil }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// Whether the answer's object is the request's, whatever its spelling.
    private static func isEcho(_ record: [String: Any], of request: Data) -> Bool {
        guard let sent = object(in: request) else { return false }
        return NSDictionary(dictionary: record).isEqual(to: sent)
    }

    /// The JSON object in `body`, a UTF-8 byte order mark before it ignored (RFC 8259 allows a
    /// parser to); nil for anything else.
    static func object(in body: Data) -> [String: Any]? {
        let bom = Data([0xEF, 0xBB, 0xBF])
        let json = body.starts(with: bom) ? body.dropFirst(bom.count) : body
        return (try? JSONSerialization.jsonObject(with: Data(json))) as? [String: Any]
    }

    /// Why `answer`, a success status, does not confirm the send: what came back, in words for
    /// `lastError` (after the request's method and URL).
    func whyNotConfirmed(by answer: HTTPAnswer) -> String {
        let status = answer.status
        let what = "the server answered \(status)"
        guard status == 200 || status == 201 else {
            return "\(what), which the engine's contract never answers to this request"
        }
        let type = answer.contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        let start = answer.body.prefix(512).drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if type == "text/html" || type == "application/xhtml+xml" || start.first == UInt8(ascii: "<") {
            return "\(what) with an HTML page, not the engine's answer (a Wi-Fi login page?)"
        }
        if answer.body.isEmpty { return "\(what) with an empty body, not the engine's answer" }
        guard let object = Self.object(in: answer.body) else {
            let quoted = UntrustedText.quoted(String(decoding: answer.body.prefix(1024), as: UTF8.self), limit: 60)
            return "\(what) with something that is not the engine's answer ('\(quoted)')"
        }
        switch self {
        case .upload(let id, let index, let sha256, let byteCount):
            if object["request_id"] as? String == id, Self.integer(object["index"]) == index,
                let heldSHA256 = object["sha256"] as? String, let heldCount = Self.integer(object["byte_count"])
            {
                return "the engine's answer is for other bytes (SHA-256 \(UntrustedText.quoted(heldSHA256, limit: 64)),"
                    + " \(heldCount) bytes) than those sent (SHA-256 \(sha256), \(byteCount) bytes)"
            }
        case .capture(let id, let media, let request):
            if Self.isEcho(object, of: request) { return Self.echoWording(what) }
            if object["request_id"] as? String == id, object["media"] is [Any] {
                guard Self.checksums(of: object) == Self.checksums(of: media) else {
                    return
                        "the engine holds a record under this id whose photos have other SHA-256s than this capture's"
                }
                return Self.lacksEngineWording(what, object, media: media)
            }
        case .operation(let id, let type, let media, let request):
            if Self.isEcho(object, of: request) { return Self.echoWording(what) }
            if object["request_id"] as? String == id, object["media"] is [Any] {
                guard object["type"] as? String == type else {
                    return "the engine holds a record under this id of another type than this operation's"
                }
                guard Self.checksums(of: object) == Self.checksums(of: media) else {
                    return
                        "the engine holds a record under this id whose attachments have other SHA-256s than this operation's"
                }
                return Self.lacksEngineWording(what, object, media: media)
            }
        }
        return "\(what) with JSON that is not the engine's answer"
    }

    private static func echoWording(_ what: String) -> String {
        "\(what) with the request itself, not the engine's answer (a server that mirrors requests?)"
    }

    /// For a record that names this request, with its photos' SHA-256s, but lacks what an engine
    /// adds: most likely an engine written to version 1 of the protocol, before the outbox
    /// required these keys, so the sentence names each key, the version and the section.
    private static func lacksEngineWording(_ what: String, _ record: [String: Any], media: [MediaDescriptor]) -> String
    {
        var problems: [String] = []
        var missing: [String] = []
        if record["received_at"] == nil || record["received_at"] is NSNull {
            missing.append("'received_at' (when the engine received it, UTC, ISO 8601)")
        } else if receivedAt(of: record) == nil {
            problems.append("its 'received_at' is not an ISO 8601 moment with its offset")
        }
        let held = record["media"] as? [[String: Any]] ?? []
        if held.contains(where: { $0["byte_count"] == nil || $0["byte_count"] is NSNull }) {
            missing.append("'byte_count' on each of its media (the size of the upload the engine holds)")
        } else if !holdsByteCounts(record, of: media) {
            problems.append("its media's 'byte_count' are not the sizes of the uploads sent")
        }
        if !missing.isEmpty {
            return "\(what) with a record that lacks \(missing.joined(separator: " and ")), which an engine must give "
                + "since version \(EngineProtocol.version) of the engine protocol (docs/engine-protocol.md, "
                + "\"\(EngineProtocol.confirmationSection)\"): an engine written to version 1 must add "
                + (missing.count == 1 ? "it" : "them")
        }
        guard !problems.isEmpty else { return "\(what) with JSON that is not the engine's answer" }
        return "\(what) with a record in which \(problems.joined(separator: " and ")), not the engine's answer"
    }

    /// A JSON number that is a whole number, as an Int.
    private static func integer(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }

    /// A record's media as index to SHA-256; nil when `media` is not a list of such entries.
    private static func checksums(of record: [String: Any]) -> [Int: String]? {
        guard let media = record["media"] as? [[String: Any]] else { return nil }
        var checksums: [Int: String] = [:]
        for item in media {
            guard let index = integer(item["index"]), let sha256 = item["sha256"] as? String,
                checksums.updateValue(sha256, forKey: index) == nil
            else { return nil }
        }
        return checksums
    }

    private static func checksums(of media: [MediaDescriptor]) -> [Int: String] {
        Dictionary(media.map { ($0.index, $0.sha256) }, uniquingKeysWith: { first, _ in first })
    }
}

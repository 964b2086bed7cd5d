import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's wire contract (docs/engine-protocol.md), as requests: the one place that knows
/// the paths, the headers and the JSON keys, so that the transport speaks it exactly.
enum EngineRequest {
    /// `PUT /v1/uploads/{request_id}/{index}`: one upload copy's bytes, under the same key on every attempt.
    static func upload(_ upload: PendingUpload, of id: String, engine: URL, timeout: TimeInterval) -> URLRequest {
        var request = URLRequest(
            url: engine.appendingPathComponent("v1/uploads/\(id)/\(upload.index)"), timeoutInterval: timeout)
        request.httpMethod = "PUT"
        request.setValue("image/jpeg", forHTTPHeaderField: "Content-Type")
        return request
    }

    /// `POST /v1/captures` with `Idempotency-Key: {request_id}`: the record, sent once every upload landed.
    static func capture(_ delivery: Delivery, engine: URL, timeout: TimeInterval) throws -> URLRequest {
        var request = URLRequest(url: engine.appendingPathComponent("v1/captures"), timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(delivery.id, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = try body(for: delivery)
        return request
    }

    /// The capture's JSON body: every key always present, absent values as `null`.
    static func body(for delivery: Delivery) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(CaptureBody(id: delivery.id, intent: delivery.intent))
    }

    /// The capture request as the contract spells it.
    private struct CaptureBody: Encodable {
        let id: String
        let intent: CaptureIntent

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
            try container.encode(intent.kind, forKey: .kind)
            try container.encode(intent.note, forKey: .note)
            // Only a record from a version that stored no time has an empty one: say "not known".
            if intent.capturedAt.isEmpty {
                try container.encodeNil(forKey: .capturedAt)
            } else {
                try container.encode(intent.capturedAt, forKey: .capturedAt)
            }
            if let timeZone = intent.timeZone {
                try container.encode(timeZone, forKey: .timeZone)
            } else {
                try container.encodeNil(forKey: .timeZone)
            }
            // The altitude stays on the device: the contract's place is latitude and longitude.
            if let place = intent.place {
                try container.encode(Place(latitude: place.latitude, longitude: place.longitude), forKey: .place)
            } else {
                try container.encodeNil(forKey: .place)
            }
            try container.encode(
                intent.media.map { Media(index: $0.index, sha256: $0.sha256, width: $0.width, height: $0.height) },
                forKey: .media)
        }
    }

    /// What an engine's error body says, for `TransportResponse.http`'s detail: the `message` of
    /// a JSON error (`{"error": code, "message": sentence}`), else the start of a text body.
    static func detail(fromBody body: Data) -> String? {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            if let message = object["message"] as? String, !message.isEmpty { return clipped(message) }
            if let code = object["error"] as? String, !code.isEmpty { return clipped(code) }
            return nil
        }
        let text = String(decoding: body.prefix(1024), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : clipped(text)
    }

    /// At most 300 characters on one line: the detail ends up in `lastError`, shown in the app's UI.
    private static func clipped(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= 300 ? line : String(line.prefix(299)) + "…"
    }
}

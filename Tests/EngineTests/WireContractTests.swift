import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

/// What the HTTP transport puts on the wire, byte for byte, and what it takes from an answer.
@Suite("Wire contract")
struct WireContractTests {
    /// The nine bytes of the upload copy the deliveries below carry, as a 512x384 image.
    static let upload = EncodedJPEG(
        data: Data([0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3, 0xFF, 0xD9]), size: PixelSize(width: 512, height: 384))

    /// The delivery of an operation as the outbox hands it to a transport on its first attempt.
    static func delivery(of operation: OutboxOperation) -> Delivery {
        Delivery(
            id: operation.id, entity: operation.entity, type: operation.type, version: operation.version,
            payload: operation.payload, media: operation.media, attempt: 1, pendingUploads: [],
            totalBytes: Int64(operation.attachments.reduce(0) { $0 + $1.data.count }), landedBytes: 0)
    }

    /// A photo capture as PhotoCapture queues it, and so as the outbox stores it.
    static func delivery(place: GeoPoint?, capturedAt: String, timeZone: String?) throws -> Delivery {
        delivery(
            of: try Capture(
                id: "plate-1", kind: "plate", note: "gate \"left\" open", capturedAt: capturedAt, timeZone: timeZone,
                place: place, uploads: [upload]
            ).operation)
    }

    @Test func theCaptureBodyHasEveryKeyOfTheContractAndNoOther() throws {
        let delivery = try Self.delivery(
            place: GeoPoint(latitude: -38.5, longitude: 144.25, altitude: 12), capturedAt: "2024-04-30T14:02:05+02:00",
            timeZone: "Europe/Berlin")
        let body = try EngineRequest.body(for: delivery)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"captured_at":"2024-04-30T14:02:05+02:00","kind":"plate","media":[{"height":384,"index":0,"#
                + #""sha256":"\#(delivery.media[0].sha256)","width":512}],"note":"gate \"left\" open","#
                + #""place":{"latitude":-38.5,"longitude":144.25},"request_id":"plate-1","time_zone":"Europe\/Berlin"}"#
        )
    }

    /// An operation's body carries its payload byte for byte: the number spelled as the app
    /// spelled it, the keys in its order, the text as it was.
    @Test func anOperationsBodyCarriesItsPayloadAsItWasQueued() throws {
        let payload = #"{"z": 1.50, "a": [true, null], "text": "gate \u00e9 left"}"#
        let operation = try OutboxOperation(
            id: "note-1", entity: "note:42", type: "note.update", version: 3, payloadJSON: Data(payload.utf8),
            attachments: [OperationAttachment(data: Data([1, 2, 3]), contentType: "audio/mp4")])
        let body = try EngineRequest.body(for: Self.delivery(of: operation))
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"entity":"note:42","media":[{"index":0,"sha256":"\#(operation.media[0].sha256)"}],"payload":"#
                + payload + #","request_id":"note-1","type":"note.update","version":3}"#)
        let plain = try OutboxOperation(id: "note-2", type: "note.delete", payloadJSON: Data("null".utf8))
        #expect(
            String(decoding: try EngineRequest.body(for: Self.delivery(of: plain)), as: UTF8.self)
                == #"{"entity":null,"media":[],"payload":null,"request_id":"note-2","type":"note.delete","version":1}"#)
    }

    @Test func anOperationGoesToTheOperationsEndpointAndItsAttachmentsWithTheirOwnType() throws {
        let engine = URL(string: "http://127.0.0.1:8080/api")!
        let upload = PendingUpload(
            index: 0, fileURL: URL(fileURLWithPath: "/tmp/x.m4a"), byteCount: 3, contentType: "audio/mp4")
        #expect(
            EngineRequest.upload(upload, of: "note-1", engine: engine, timeout: 5)
                .value(forHTTPHeaderField: "Content-Type") == "audio/mp4")
        let operation = try OutboxOperation(id: "note-1", type: "note.update", payloadJSON: Data("{}".utf8))
        let post = try EngineRequest.record(Self.delivery(of: operation), engine: engine, timeout: 5).request
        #expect(post.httpMethod == "POST")
        #expect(post.url?.absoluteString == "http://127.0.0.1:8080/api/v1/operations")
        #expect(post.value(forHTTPHeaderField: "Idempotency-Key") == "note-1")
        // A capture of a version this build does not send as the contract's goes there too.
        let newer = try OutboxOperation(id: "plate-2", type: "capture.create", version: 2, payloadJSON: Data("{}".utf8))
        #expect(
            try EngineRequest.record(Self.delivery(of: newer), engine: engine, timeout: 5).request.url?.path
                == "/api/v1/operations")
    }

    @Test func whatIsNotKnownIsNull() throws {
        let body = try EngineRequest.body(for: try Self.delivery(place: nil, capturedAt: "", timeZone: nil))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["captured_at"] is NSNull)
        #expect(object["time_zone"] is NSNull)
        #expect(object["place"] is NSNull)
    }

    @Test func theRequestsUseTheContractsPathsAndHeaders() throws {
        let engine = URL(string: "http://127.0.0.1:8080/api")!
        let upload = PendingUpload(
            index: 2, fileURL: URL(fileURLWithPath: "/tmp/x.jpg"), byteCount: 9, contentType: "image/jpeg")
        let put = EngineRequest.upload(upload, of: "plate-1", engine: engine, timeout: 5)
        #expect(put.httpMethod == "PUT")
        #expect(put.url?.absoluteString == "http://127.0.0.1:8080/api/v1/uploads/plate-1/2")
        #expect(put.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
        let post = try EngineRequest.record(
            try Self.delivery(place: nil, capturedAt: "", timeZone: nil), engine: engine, timeout: 5
        ).request
        #expect(post.httpMethod == "POST")
        #expect(post.url?.absoluteString == "http://127.0.0.1:8080/api/v1/captures")
        #expect(post.value(forHTTPHeaderField: "Idempotency-Key") == "plate-1")
        #expect(post.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test(arguments: [
        (
            #"{"error": "upload_missing", "message": "Upload 1 of 'p' has not arrived."}"#,
            "Upload 1 of 'p' has not arrived."
        ),
        (#"{"error": "in_progress"}"#, "in_progress"),
        ("<html>\n<b>Bad gateway</b>\n</html>", "<html> <b>Bad gateway</b> </html>"),
        ("", nil),
        (#"{"error": "x", "message": "\u001b[2J\u001b]0;owned\u0007Cleared\nthe screen"}"#, "Cleared the screen"),
        (String(repeating: "long ", count: 1000), String(repeating: "long ", count: 40).prefix(199) + "…"),
    ])
    func theDetailIsTheEnginesOwnExplanationOnOneLine(body: String, detail: String?) {
        #expect(EngineRequest.detail(fromBody: Data(body.utf8)) == detail)
    }

    static let sha = String(repeating: "ab", count: 32)

    static func answer(_ status: Int, _ body: String, type: String? = "application/json") -> HTTPAnswer {
        HTTPAnswer(status: status, retryAfter: nil, contentType: type, body: Data(body.utf8))
    }

    @Test func onlyTheContractsBodyConfirmsAnUpload() {
        let landed = EngineConfirmation.upload(id: "plate-1", index: 0, sha256: Self.sha, byteCount: 9)
        let body = #"{"byte_count": 9, "index": 0, "request_id": "plate-1", "sha256": "\#(Self.sha)"}"#
        #expect(landed.isConfirmed(by: Self.answer(201, body)))
        #expect(landed.isConfirmed(by: Self.answer(200, body)))
        #expect(!landed.isConfirmed(by: Self.answer(202, body)), "not a status the contract answers an upload with")
        for other in [
            body.replacingOccurrences(of: "plate-1", with: "plate-2"),
            body.replacingOccurrences(of: "\"index\": 0", with: "\"index\": 1"),
            body.replacingOccurrences(of: "\"index\": 0", with: "\"index\": \"0\""),
            body.replacingOccurrences(of: ": 9", with: ": 8"),
            body.replacingOccurrences(of: "ab", with: "cd"), "{}", "[]", "",
        ] {
            #expect(!landed.isConfirmed(by: Self.answer(201, other)), "\(other)")
        }
        #expect(
            landed.whyNotConfirmed(by: Self.answer(201, body.replacingOccurrences(of: "ab", with: "cd")))
                == "the engine's answer is for other bytes (SHA-256 \(String(repeating: "cd", count: 32)), 9 bytes)"
                + " than those sent (SHA-256 \(Self.sha), 9 bytes)")
    }

    @Test func onlyTheRecordWithThisCapturesChecksumsConfirmsACapture() {
        let media = [MediaDescriptor(index: 0, sha256: Self.sha, width: 8, height: 8, byteCount: 9)]
        let request = #"{"request_id": "plate-1", "kind": "plate", "media": [{"index": 0, "sha256": "\#(Self.sha)"}]}"#
        let held = EngineConfirmation.capture(id: "plate-1", media: media, request: Data(request.utf8))
        let record =
            #"{"request_id": "plate-1", "kind": "plate", "received_at": "2024-04-30T12:02:05+00:00","#
            + #" "media": [{"index": 0, "sha256": "\#(Self.sha)", "width": 8, "byte_count": 9}]}"#
        #expect(held.isConfirmed(by: Self.answer(201, record)))
        #expect(held.isConfirmed(by: Self.answer(200, record)))
        let otherPhotos = record.replacingOccurrences(of: "ab", with: "cd")
        #expect(!held.isConfirmed(by: Self.answer(200, otherPhotos)))
        #expect(
            held.whyNotConfirmed(by: Self.answer(200, otherPhotos))
                == "the engine holds a record under this id whose photos have other SHA-256s than this capture's")
        let onePhotoMore = record.replacingOccurrences(
            of: "}]}", with: #"}, {"index": 1, "sha256": "\#(Self.sha)"}]}"#)
        #expect(!held.isConfirmed(by: Self.answer(200, onePhotoMore)))
        #expect(!held.isConfirmed(by: Self.answer(200, record.replacingOccurrences(of: "plate-1", with: "plate-2"))))
        #expect(!held.isConfirmed(by: Self.answer(200, #"{"status": "ok"}"#)))
        #expect(held.isConfirmed(by: Self.answer(201, "\u{FEFF}" + record)), "a byte order mark is ignored")
    }

    /// What only an engine adds: a mirror of the request, or a record without `received_at` or
    /// its uploads' sizes, confirms nothing.
    @Test func aRecordWithoutWhatTheEngineAddsConfirmsNothing() {
        let media = [MediaDescriptor(index: 0, sha256: Self.sha, width: 8, height: 8, byteCount: 9)]
        let request = #"{"request_id": "plate-1", "media": [{"index": 0, "sha256": "\#(Self.sha)", "width": 8}]}"#
        let held = EngineConfirmation.capture(id: "plate-1", media: media, request: Data(request.utf8))
        let echo = #"{"media": [{"width": 8, "sha256": "\#(Self.sha)", "index": 0}], "request_id": "plate-1"}"#
        #expect(!held.isConfirmed(by: Self.answer(201, request)))
        #expect(!held.isConfirmed(by: Self.answer(201, echo)))
        #expect(
            held.whyNotConfirmed(by: Self.answer(201, echo))
                == "the server answered 201 with the request itself, not the engine's answer (a server that mirrors"
                + " requests?)")
        let undated = #"{"request_id": "plate-1", "media": [{"index": 0, "sha256": "\#(Self.sha)", "byte_count": 9}]}"#
        #expect(!held.isConfirmed(by: Self.answer(201, undated)))
        #expect(
            held.whyNotConfirmed(by: Self.answer(201, undated))
                == "the server answered 201 with a record that lacks 'received_at' (when the engine received it, UTC,"
                + " ISO 8601), which an engine must give since version 2 of the engine protocol"
                + " (docs/engine-protocol.md, \"What only the engine adds\"): an engine written to version 1 must add it"
        )
        let misdated = undated.replacingOccurrences(of: "}]}", with: #"}], "received_at": "yesterday"}"#)
        #expect(
            held.whyNotConfirmed(by: Self.answer(201, misdated))
                == "the server answered 201 with a record in which its 'received_at' is not an ISO 8601 moment with its"
                + " offset, not the engine's answer")
        let miscounted = misdated.replacingOccurrences(of: "yesterday", with: "2024-04-30T12:02:05Z")
            .replacingOccurrences(of: ": 9", with: ": 8")
        #expect(
            held.whyNotConfirmed(by: Self.answer(201, miscounted))
                == "the server answered 201 with a record in which its media's 'byte_count' are not the sizes of the"
                + " uploads sent, not the engine's answer")
        let dated = undated.replacingOccurrences(of: "}]}", with: #"}], "received_at": "2024-04-30T12:02:05Z"}"#)
        #expect(held.isConfirmed(by: Self.answer(201, dated)))
        #expect(!held.isConfirmed(by: Self.answer(201, dated.replacingOccurrences(of: ": 9", with: ": 8"))))
        #expect(!held.isConfirmed(by: Self.answer(201, dated.replacingOccurrences(of: "2024-04-30T", with: "soon"))))
        let bare = EngineConfirmation.operation(
            id: "note-1", type: "note.delete", media: [],
            request: Data(#"{"request_id": "note-1", "type": "note.delete", "media": []}"#.utf8))
        #expect(
            !bare.isConfirmed(by: Self.answer(201, #"{"request_id": "note-1", "type": "note.delete", "media": []}"#)))
        #expect(
            bare.isConfirmed(
                by: Self.answer(
                    201,
                    #"{"request_id": "note-1", "type": "note.delete", "media": [], "received_at": "2024-04-30T12:02:05.25Z"}"#
                )))
    }

    @Test(arguments: [
        (
            200, "text/html", "<p>Sign in</p>",
            "the server answered 200 with an HTML page, not the engine's answer (a Wi-Fi login page?)"
        ),
        (
            200, nil, "\n  <!DOCTYPE html><html>",
            "the server answered 200 with an HTML page, not the engine's answer (a Wi-Fi login page?)"
        ),
        (200, "application/json", "", "the server answered 200 with an empty body, not the engine's answer"),
        (
            200, "text/plain", "OK\u{1B}[2J",
            "the server answered 200 with something that is not the engine's answer ('OK')"
        ),
        (
            200, "application/json", #"{"ok": true}"#,
            "the server answered 200 with JSON that is not the engine's answer"
        ),
        (204, nil, "", "the server answered 204, which the engine's contract never answers to this request"),
    ])
    func whatCameBackInsteadOfTheEnginesAnswerIsSaid(status: Int, type: String?, body: String, reason: String) {
        let landed = EngineConfirmation.upload(id: "plate-1", index: 0, sha256: Self.sha, byteCount: 9)
        #expect(landed.whyNotConfirmed(by: Self.answer(status, body, type: type)) == reason)
    }
}

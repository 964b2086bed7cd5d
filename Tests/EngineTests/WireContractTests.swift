import Foundation
import ImagePrep
import Testing

@testable import Outbox

/// What the HTTP transport puts on the wire, byte for byte, and what it takes from an answer.
@Suite("Wire contract")
struct WireContractTests {
    static func delivery(place: GeoPoint?, capturedAt: String, timeZone: String?) -> Delivery {
        let media = [
            MediaDescriptor(index: 0, sha256: String(repeating: "ab", count: 32), width: 512, height: 384, byteCount: 9)
        ]
        let intent = CaptureIntent(
            kind: "plate", note: "gate \"left\" open", capturedAt: capturedAt, timeZone: timeZone, place: place,
            media: media)
        return Delivery(id: "plate-1", intent: intent, attempt: 1, pendingUploads: [], totalBytes: 9, landedBytes: 0)
    }

    @Test func theCaptureBodyHasEveryKeyOfTheContractAndNoOther() throws {
        let body = try EngineRequest.body(
            for: Self.delivery(
                place: GeoPoint(latitude: -38.5, longitude: 144.25, altitude: 12),
                capturedAt: "2024-04-30T14:02:05+02:00",
                timeZone: "Europe/Berlin"))
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"captured_at":"2024-04-30T14:02:05+02:00","kind":"plate","media":[{"height":384,"index":0,"#
                + #""sha256":"\#(String(repeating: "ab", count: 32))","width":512}],"note":"gate \"left\" open","#
                + #""place":{"latitude":-38.5,"longitude":144.25},"request_id":"plate-1","time_zone":"Europe\/Berlin"}"#
        )
    }

    @Test func whatIsNotKnownIsNull() throws {
        let body = try EngineRequest.body(for: Self.delivery(place: nil, capturedAt: "", timeZone: nil))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(object["captured_at"] is NSNull)
        #expect(object["time_zone"] is NSNull)
        #expect(object["place"] is NSNull)
    }

    @Test func theRequestsUseTheContractsPathsAndHeaders() throws {
        let engine = URL(string: "http://127.0.0.1:8080/api")!
        let upload = PendingUpload(index: 2, fileURL: URL(fileURLWithPath: "/tmp/x.jpg"), byteCount: 9)
        let put = EngineRequest.upload(upload, of: "plate-1", engine: engine, timeout: 5)
        #expect(put.httpMethod == "PUT")
        #expect(put.url?.absoluteString == "http://127.0.0.1:8080/api/v1/uploads/plate-1/2")
        #expect(put.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
        let post = try EngineRequest.capture(
            Self.delivery(place: nil, capturedAt: "", timeZone: nil), engine: engine, timeout: 5)
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
        let held = EngineConfirmation.capture(id: "plate-1", media: media)
        let record =
            #"{"request_id": "plate-1", "kind": "plate", "media": [{"index": 0, "sha256": "\#(Self.sha)", "width": 8}]}"#
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

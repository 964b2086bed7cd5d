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
    ])
    func theDetailIsTheEnginesOwnExplanationOnOneLine(body: String, detail: String?) {
        #expect(EngineRequest.detail(fromBody: Data(body.utf8)) == detail)
    }
}

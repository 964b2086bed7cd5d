import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

/// Answers that are not the engine's own, from servers on loopback that answer as a hotel's Wi-Fi
/// login page, a proxy or a broken engine would: none of them may retire a capture or delete its
/// photo, and the real engine later gets it exactly once.
@Suite("Answers that are not the engine's")
struct UntrustedAnswerTests {
    /// An outbox in `folder` holding one capture of one small photo.
    static func outboxWithOneCapture(
        in folder: URL, configuration: Outbox.Configuration = Outbox.Configuration()
    ) async throws -> (Outbox, Capture) {
        let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"), configuration: configuration)
        let capture = try makeCapture(id: "plate-1", photos: [try smallPhoto()])
        try await outbox.enqueue(capture)
        return (outbox, capture)
    }

    /// What the user keeps after a send that must not count: the capture listed and queued with
    /// its file on disk, nothing retired; and then the real engine gets it exactly once.
    static func expectKeptThenDeliveredOnce(
        _ outbox: Outbox, _ capture: Capture, engineData: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let entry = try #require(try await outbox.entry(id: capture.id), sourceLocation: sourceLocation)
        #expect(entry.state == .queued, sourceLocation: sourceLocation)
        #expect(
            entry.ownedMedia.allSatisfy { FileManager.default.fileExists(atPath: outbox.url(of: $0).path) },
            "the photo is still on disk", sourceLocation: sourceLocation)
        #expect(try await outbox.retireSynced().isEmpty, sourceLocation: sourceLocation)
        let engine = try ReferenceEngine(dataFolder: engineData)
        let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
        #expect(report.synced == [capture.id], sourceLocation: sourceLocation)
        #expect(try await outbox.retireSynced() == [capture.id], sourceLocation: sourceLocation)
        try await expectDeliveredOnce(capture.id, to: engine, sourceLocation: sourceLocation)
    }

    /// Each server answers the first upload with a success status and something else than the
    /// contract's `{"request_id", "index", "sha256", "byte_count"}` of the bytes sent.
    ///
    /// A body that is too large is refused already as the answer to the upload resource's
    /// creation (`POST`); any other success there is no upload resource, and the file goes as
    /// the contract's `PUT`, which meets the same server.
    @Test(arguments: [
        ("html", "PUT", "the server answered 200 with an HTML page, not the engine's answer (a Wi-Fi login page?)"),
        ("other-json", "PUT", "the server answered 200 with JSON that is not the engine's answer"),
        (
            "endless", "POST",
            "the server answered 200 with a body larger than 1 MiB, not the engine's answer, and it was not read"
        ),
        (
            "huge-length", "POST",
            "the server answered 200 with a body larger than 1 MiB, not the engine's answer, and it was not read"
        ),
        (
            "other-bytes", "PUT",
            "the engine's answer is for other bytes (SHA-256 \(String(repeating: "0", count: 64)), 1 bytes)"
        ),
    ])
    func aSuccessThatIsNotTheEnginesAnswerRetiresNothing(mode: String, method: String, says: String) async throws {
        try await withTemporaryFolder { folder in
            let (outbox, capture) = try await Self.outboxWithOneCapture(in: folder)
            let server = try ReferenceEngine.misbehaving(mode, dataFolder: folder.appendingPathComponent("server"))
            let started = ContinuousClock.now
            // A deadline far beyond the bound below, so that a body read to the end of it would show.
            let transport = HTTPTransport(configuration: .init(engineURL: server.url, requestTimeout: 3600))
            let report = try await outbox.drainNow(using: transport)
            #expect(report.synced.isEmpty)
            let reason = try #require(EndToEndTests.transientReason(of: report, at: "plate-1"))
            #expect(
                reason.hasPrefix("\(method) \(server.url.absoluteString)/v1/uploads/plate-1/0: \(says)"), "\(reason)")
            #expect(try await outbox.entry(id: "plate-1")?.lastError == reason)
            #expect(try await outbox.entry(id: "plate-1")?.pendingMedia.count == 1, "the upload did not land")
            // An endless body is cut off at the limit, not read until the request's deadline. The
            // bound is loose: a loaded machine's suite can hold the drain up for minutes.
            if mode == "endless" || mode == "huge-length" { #expect(ContinuousClock.now - started < .seconds(600)) }
            try await Self.expectKeptThenDeliveredOnce(
                outbox, capture, engineData: folder.appendingPathComponent("engine"))
        }
    }

    /// The upload lands for real, and the record's POST is answered 200 with a body that is not
    /// a record: the capture is not delivered, and the resend creates it once.
    @Test func aSuccessfulPOSTWithoutTheRecordIsNotADelivery() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, capture) = try await Self.outboxWithOneCapture(in: folder)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await engine.inject(["mode": "status", "status": 200, "method": "POST", "path_prefix": "/v1/captures"])
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            let reason = try #require(EndToEndTests.transientReason(of: report, at: "plate-1"))
            #expect(
                reason
                    == "POST \(engine.url.absoluteString)/v1/captures: the server answered 200 with JSON that is not"
                    + " the engine's answer")
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.state == .queued)
            #expect(entry.pendingMedia.isEmpty, "the upload's own answer confirmed it")
            #expect(entry.ownedMedia.allSatisfy { FileManager.default.fileExists(atPath: outbox.url(of: $0).path) })
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == [capture.id])
            try await expectDeliveredOnce(capture.id, to: engine)
            let paths = try await engine.state().requests(about: "plate-1").map { "\($0.method) \($0.outcome)" }
            #expect(paths == ["POST status(201)", "PATCH status(201)", "POST status(200)", "POST status(201)"])
        }
    }

    /// `Retry-After: 9223372036854775807` asked for a wait until the year 292277026596; the wait
    /// is the ceiling, an hour, and the automatic drain an hour later delivers.
    @Test func aHugeRetryAfterWaitsAnHourAtMost() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let (outbox, capture) = try await Self.outboxWithOneCapture(in: folder, configuration: clock.configuration)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await engine.inject(["mode": "status", "status": 503, "retry_after": "9223372036854775807"])
            let transport = HTTPTransport(engineURL: engine.url)

            let refused = try await outbox.drainNow(using: transport)
            let hour = clock.now.addingTimeInterval(3600)
            #expect(refused.retryAt == hour)
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == hour)
            #expect(try await outbox.drain(using: transport).halt == .waitingToRetry(id: "plate-1", until: hour))
            clock.advance(by: 3600)
            #expect(try await outbox.drain(using: transport).synced == [capture.id])
            try await expectDeliveredOnce(capture.id, to: engine)
        }
    }

    /// The same id under another body (another device saved a different capture under it): the
    /// engine refuses the replay (422 idempotency_key_reused) instead of answering it with the
    /// first record, and the outbox parks it with the engine's reason.
    @Test func aReplayWithAnotherBodyIsParkedWithTheEnginesReason() async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            let photo = try smallPhoto()
            let phone = try Outbox(folder: folder.appendingPathComponent("phone"))
            try await phone.enqueue(makeCapture(id: "plate-1", photos: [photo]))
            let tablet = try Outbox(folder: folder.appendingPathComponent("tablet"))
            let other = try Capture(
                id: "plate-1", kind: "plate", note: "back gate", capturedAt: "2024-04-30T14:02:05+02:00",
                timeZone: "Europe/Berlin", place: nil, uploads: [photo.upload])
            try await tablet.enqueue(other)

            #expect(try await phone.drainNow(using: transport).synced == ["plate-1"])
            let report = try await tablet.drainNow(using: transport)
            #expect(report.synced.isEmpty)
            #expect(report.parked == ["plate-1"])
            let parked = try #require(try await tablet.entry(id: "plate-1"))
            #expect(parked.state == .failedNeedsAttention)
            let reason = try #require(parked.lastError)
            #expect(reason.hasPrefix("HTTP 422: POST \(engine.url.absoluteString)/v1/captures: "))
            #expect(reason.contains("was already used for a capture with a different body"))
            #expect(try await tablet.retireSynced().isEmpty)
            #expect(parked.ownedMedia.allSatisfy { FileManager.default.fileExists(atPath: tablet.url(of: $0).path) })

            let state = try await engine.state()
            #expect(state.records.map(\.note) == ["front gate"], "the first capture stays as it was, once")
            #expect(
                state.requests(about: "plate-1").filter { $0.path == "/v1/captures" }.map(\.outcome)
                    == [.status(201), .status(422)])
        }
    }
}

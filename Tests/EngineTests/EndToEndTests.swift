import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

/// The outbox and the HTTP transport against the reference engine on loopback: what reaches the
/// engine, how often, and what the outbox makes of each way the engine or the network fails.
@Suite("End to end")
struct EndToEndTests {
    /// Three small photos from the real pipeline, each its own capture.
    static func threeCaptures() throws -> [Capture] {
        let names = ["offset-plus0200-pixel8pro-8x8.jpg", "no-exif.jpg", "exif-little-endian-canon-40d.jpg"]
        return try names.enumerated().map { number, name in
            try makeCapture(
                id: "plate-\(number + 1)", photos: [Fixtures.prepared(Fixtures.corpus.appendingPathComponent(name))])
        }
    }

    /// An outbox holding `captures`, and an engine, both in `folder`.
    static func setUp(
        _ folder: URL, captures: [Capture], configuration: Outbox.Configuration = Outbox.Configuration()
    ) async throws -> (Outbox, ReferenceEngine) {
        let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"), configuration: configuration)
        for capture in captures { try await outbox.enqueue(capture) }
        return (outbox, try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine")))
    }

    /// The reason of the transient failure that stopped the pass at `id`; an issue when it did not.
    static func transientReason(
        of report: DrainReport, at id: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> String? {
        guard case .transientFailure(id, let reason) = report.halt else {
            Issue.record(
                "the pass should have stopped at '\(id)' after a transient failure: \(String(describing: report.halt))",
                sourceLocation: sourceLocation)
            return nil
        }
        return reason
    }

    @Test func engineDownThenUpEachCaptureArrivesExactlyOnce() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            let captures = try Self.threeCaptures()
            for capture in captures { try await outbox.enqueue(capture) }
            let port = try unusedPort()
            let transport = HTTPTransport(engineURL: URL(string: "http://127.0.0.1:\(port)")!)

            let down = try await outbox.drainNow(using: transport)
            let reason = try #require(Self.transientReason(of: down, at: "plate-1"))
            #expect(reason.hasPrefix("network error: POST http://127.0.0.1:\(port)/v1/uploads/plate-1/0: "))
            #expect(try await outbox.list().entries.map(\.state) == [.queued, .queued, .queued])

            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"), port: port)
            // plate-1 met the outage: while it still backs off, the drain sends it after the others.
            let up = try await outbox.drainNow(using: transport)
            #expect(Set(up.synced) == ["plate-1", "plate-2", "plate-3"])
            #expect(Set(try await outbox.retireSynced()) == ["plate-1", "plate-2", "plate-3"])
            // A drain after that has nothing to send.
            #expect(try await outbox.drainNow(using: transport).synced.isEmpty)

            let state = try await engine.state()
            #expect(Set(state.records.map(\.requestId)) == ["plate-1", "plate-2", "plate-3"])
            for capture in captures {
                let creations = state.requests(about: capture.id).filter { $0.path == "/v1/captures" }
                #expect(creations.map(\.outcome) == [.status(201)], "\(capture.id) was created once")
                #expect(state.record(capture.id)?.media.map(\.sha256) == capture.intent.media.map(\.sha256))
            }
        }
    }

    @Test func a422ParksTheEntryWhileTheOnesBehindItStillGo() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, engine) = try await Self.setUp(folder, captures: try Self.threeCaptures())
            // Someone else's bytes are already under plate-2's upload key.
            let (status, _) = try await engine.request(
                "PUT", "v1/uploads/plate-2/0", body: Data("not these bytes".utf8),
                headers: ["Content-Type": "image/jpeg"])
            #expect(status == 201)

            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            #expect(report.synced == ["plate-1", "plate-3"])
            #expect(report.parked == ["plate-2"])
            #expect(report.halt == nil)
            let parked = try #require(try await outbox.entry(id: "plate-2"))
            #expect(parked.state == .failedNeedsAttention)
            let reason = try #require(parked.lastError)
            #expect(reason.hasPrefix("HTTP 422: PATCH \(engine.url.absoluteString)/v1/uploads/plate-2/0/"))
            #expect(reason.contains("Upload 0 of 'plate-2' already holds different bytes"))
            #expect(try await engine.state().records.map(\.requestId) == ["plate-1", "plate-3"])
        }
    }

    /// 503 with delta-seconds and 429 with an HTTP date: each stops the pass, and its
    /// Retry-After becomes the entry's wait before the next automatic try.
    @Test(arguments: [(503, "120", 120.0), (429, "Tue, 30 Apr 2024 12:07:05 GMT", 300.0)])
    func aRefusalWithRetryAfterStopsThePassAndSetsTheWait(
        status: Int, retryAfter: String, expectedWait: TimeInterval
    ) async throws {
        try await withTemporaryFolder { folder in
            let now = Date(timeIntervalSince1970: 1_714_478_525)  // Tue, 30 Apr 2024 12:02:05 GMT
            let configuration = Outbox.Configuration(now: { now }, randomUnit: { 0.5 })
            let (outbox, engine) = try await Self.setUp(
                folder, captures: try Self.threeCaptures(), configuration: configuration)
            try await engine.inject(["mode": "status", "status": status, "retry_after": retryAfter, "count": 1])
            let transport = HTTPTransport(engineURL: engine.url)

            let report = try await outbox.drainNow(using: transport)
            #expect(report.synced.isEmpty)
            let reason = try #require(Self.transientReason(of: report, at: "plate-1"))
            #expect(reason.hasPrefix("HTTP \(status): POST \(engine.url.absoluteString)/v1/uploads/"))
            #expect(try await engine.state().requests.count == 1, "nothing was sent after the refusal")
            #expect(report.retryAt == now.addingTimeInterval(expectedWait))
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == now.addingTimeInterval(expectedWait))

            // An automatic pass keeps to the wait; one someone asks for goes now.
            let automatic = try await outbox.drain(using: transport)
            #expect(automatic.halt == .waitingToRetry(id: "plate-1", until: now.addingTimeInterval(expectedWait)))
            #expect(try await engine.state().requests.count == 1)
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-2", "plate-3", "plate-1"])
        }
    }

    /// The engine does the work and the answer is lost: the resend is answered as a replay and
    /// the engine still holds one record. The lost answer of an upload is the one of a `PUT` to
    /// an engine without resumable uploads (`ResumableUploadTests` has the resumable one's).
    @Test(arguments: ["POST", "PUT"])
    func aLostReplyIsReplayedAndDeduped(method: String) async throws {
        try await withTemporaryFolder { folder in
            let captures = [try Self.threeCaptures()[0]]
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            for capture in captures { try await outbox.enqueue(capture) }
            let engine = try ReferenceEngine.misbehaving(
                "no-resumption", dataFolder: folder.appendingPathComponent("contract-engine"))
            try await engine.inject([
                "mode": "drop_reply", "method": method,
                "path_prefix": method == "PUT" ? "/v1/uploads/" : "/v1/captures",
            ])
            let transport = HTTPTransport(engineURL: engine.url)

            let lost = try await outbox.drainNow(using: transport)
            let reason = try #require(Self.transientReason(of: lost, at: "plate-1"))
            #expect(reason.hasPrefix("network error: \(method) \(engine.url.absoluteString)/v1/"))

            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            let state = try await engine.state()
            #expect(state.records.map(\.requestId) == ["plate-1"])
            let outcomes = state.requests(about: "plate-1").map { "\($0.method) \($0.outcome) \($0.replayed)" }
            if method == "POST" {
                // The upload landed in the first attempt, so the second sends only the record.
                #expect(
                    outcomes == [
                        "POST status(405) false", "PUT status(201) false",
                        "POST other(\"reply dropped after 201\") false", "POST status(200) true",
                    ])
            } else {
                #expect(
                    outcomes == [
                        "POST status(405) false", "PUT other(\"reply dropped after 201\") false",
                        "PUT status(200) false", "POST status(201) false",
                    ])
            }
        }
    }

    @Test func aDroppedConnectionIsANetworkErrorAndTheNextDrainDelivers() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, engine) = try await Self.setUp(folder, captures: [try Self.threeCaptures()[0]])
            try await engine.inject(["mode": "drop_connection"])
            let transport = HTTPTransport(engineURL: engine.url)
            let dropped = try await outbox.drainNow(using: transport)
            let reason = try #require(Self.transientReason(of: dropped, at: "plate-1"))
            #expect(reason.hasPrefix("network error: POST \(engine.url.absoluteString)/v1/uploads/"))
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            #expect(try await engine.state().records.count == 1)
        }
    }

    /// The engine takes longer than the timeout; while it still works on the key a resend meets
    /// 409 (transient), and once it is done the resend is a replay. The engine holds the record
    /// until the test releases it, not for a time: a busy machine once took longer between the
    /// two drains than the engine's delay, and the second drain timed out too.
    @Test func aSlowEngineTimesOutAndTheKeyInFlightAnswers409() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, engine) = try await Self.setUp(folder, captures: [try Self.threeCaptures()[0]])
            try await engine.inject(["mode": "hold", "method": "POST", "path_prefix": "/v1/captures"])
            // Timeouts that only the held record reaches: the uploads and the 409 are loopback requests.
            let transport = HTTPTransport(
                configuration: HTTPTransport.Configuration(engineURL: engine.url, idleTimeout: 5, requestTimeout: 10))

            let slow = try await outbox.drainNow(using: transport)
            #expect(slow.halt == .transientFailure(id: "plate-1", reason: "the engine did not answer in time"))
            let busy = try await outbox.drainNow(using: transport)
            let reason = try #require(Self.transientReason(of: busy, at: "plate-1"))
            #expect(reason.hasPrefix("HTTP 409: POST "))
            #expect(reason.hasSuffix("The capture 'plate-1' is still being processed."))

            #expect(try await engine.request("POST", "_engine/release").0 == 200)
            #expect(try await waitUntil(seconds: 90) { try await engine.state().records.count == 1 })
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            #expect(try await engine.state().requests(about: "plate-1").last?.replayed == true)
        }
    }

    @Test func uploadProgressReachesTheAppAsBytesLeave() async throws {
        try await withTemporaryFolder { folder in
            let progress = Recorder<UploadProgress>()
            let photos = try ["gps-north-west-display-p3-nikon.jpg", "progressive.jpg"].map {
                try PreparedPhoto(
                    upload: EncodedJPEG(
                        data: Data(contentsOf: Fixtures.corpus.appendingPathComponent($0)),
                        size: PixelSize(width: 1, height: 1)),
                    display: nil, thumbnail: nil, metadata: PhotoMetadata(originalSize: PixelSize(width: 1, height: 1)))
            }
            let capture = try makeCapture(id: "plate-1", photos: photos)
            let total = capture.intent.media.reduce(0) { $0 + $1.byteCount }
            let (outbox, engine) = try await Self.setUp(
                folder, captures: [capture], configuration: Outbox.Configuration(onProgress: { progress.append($0) }))
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == ["plate-1"])

            let sent = progress.elements.map(\.bytesSent)
            #expect(progress.elements.allSatisfy { $0.id == "plate-1" && $0.totalBytes == total })
            // Nothing is told before bytes move, so a send that fails at once shows no 0 %.
            #expect(sent.first.map { $0 > 0 } == true)
            #expect(sent.last == total)
            #expect(sent == sent.sorted(), "progress never goes back")
            #expect(sent.contains { $0 > 0 && $0 < total }, "progress is reported on the way, not only at the end")
            #expect(sent.contains(capture.intent.media[0].byteCount), "the first copy's landing is reported")
        }
    }

    @Test func aResumedSendDoesNotUploadAgainWhatLanded() async throws {
        try await withTemporaryFolder { folder in
            let photos = try ["no-exif.jpg", "exif-little-endian-canon-40d.jpg"].map {
                try Fixtures.prepared(Fixtures.corpus.appendingPathComponent($0))
            }
            let (outbox, engine) = try await Self.setUp(
                folder, captures: [try makeCapture(id: "plate-1", photos: photos)])
            try await engine.inject(["mode": "status", "status": 503, "method": "POST", "path_prefix": "/v1/captures"])
            let transport = HTTPTransport(engineURL: engine.url)

            #expect(try await outbox.drainNow(using: transport).synced.isEmpty)
            #expect(try await outbox.entry(id: "plate-1")?.pendingMedia == [])
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            let paths = try await engine.state().requests(about: "plate-1").map { "\($0.method) \($0.path)" }
            #expect(
                paths.filter { !$0.hasPrefix("PATCH ") } == [
                    "POST /v1/uploads/plate-1/0", "POST /v1/uploads/plate-1/1", "POST /v1/captures",
                    "POST /v1/captures",
                ])
            #expect(paths.filter { $0.hasPrefix("PATCH ") }.count == 2)
        }
    }

    /// The engine's rule: the camera's own clock over the client's time, the photo's GPS over
    /// the client's place; the client's values when the photo has none.
    @Test func theEngineKeepsTheCamerasClockAndThePhotosPlace() async throws {
        try await withTemporaryFolder { folder in
            let pixel = try Fixtures.prepared(
                Fixtures.corpus.appendingPathComponent("offset-plus0200-pixel8pro-8x8.jpg"))
            let plain = try Fixtures.prepared(Fixtures.corpus.appendingPathComponent("no-exif.jpg"))
            let elsewhere = GeoPoint(latitude: 52.5, longitude: 13.25)
            let captures = [
                try makeCapture(id: "camera", photos: [pixel], place: elsewhere),
                try makeCapture(id: "client", photos: [plain], place: elsewhere),
            ]
            let (outbox, engine) = try await Self.setUp(folder, captures: captures)
            #expect(
                try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == ["camera", "client"])
            let state = try await engine.state()

            let camera = try #require(state.record("camera"))
            #expect(camera.capturedAt == "2023-10-06T22:53:51.724+02:00")
            #expect(camera.capturedAtSource == "camera")
            #expect(camera.place?.latitude == pixel.metadata.location?.latitude)
            #expect(camera.place?.longitude == pixel.metadata.location?.longitude)
            #expect(camera.placeSource == "photo")

            let client = try #require(state.record("client"))
            #expect(client.capturedAt == "2024-04-30T14:02:05+02:00")
            #expect(client.capturedAtSource == "client")
            #expect(client.place == EngineState.Record.Place(latitude: 52.5, longitude: 13.25))
            #expect(client.placeSource == "client")
            #expect(client.kind == "plate")
            #expect(client.note == "front gate")
            #expect(client.timeZone == "Europe/Berlin")
            #expect(
                client.media == [
                    EngineState.Record.Media(
                        index: 0, sha256: captures[1].intent.media[0].sha256, width: plain.upload.size.width,
                        height: plain.upload.size.height, byteCount: plain.upload.data.count)
                ])
            #expect(state.uploads.allSatisfy { $0.sha256OnDisk == $0.sha256 })
        }
    }
}

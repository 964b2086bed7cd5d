import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

/// Servers on loopback that are not the engine (a mirror, a gzip bomb), and engines that lose
/// what they took or keep failing one entry: nothing is retired on their word, nothing is lost,
/// and the rest of the queue still goes.
@Suite("Mirrors, bombs, lost uploads and poison entries")
struct HostileEngineTests {
    /// An outbox in `folder` that knows `note.update`.
    static func outbox(in folder: URL) throws -> Outbox {
        try Outbox(
            folder: folder.appendingPathComponent("outbox"),
            configuration: Outbox.Configuration(operationTypes: [.captureCreate, OperationType("note.update")]))
    }

    static func operation(_ id: String, entity: String? = nil) throws -> OutboxOperation {
        try OutboxOperation(id: id, entity: entity, type: "note.update", payloadJSON: Data(#"{"text":"gate"}"#.utf8))
    }

    /// A server that answers each record with the request itself (and each upload with the
    /// right checksum) confirms nothing: the entry stays queued, and the engine later gets it once.
    @Test(arguments: ["operation", "capture"])
    func aMirrorConfirmsNothing(kind: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(in: folder)
            let id = kind == "operation" ? "note-1" : "plate-1"
            if kind == "operation" {
                try await outbox.enqueue(Self.operation(id))
            } else {
                try await outbox.enqueue(makeCapture(id: id, photos: [try smallPhoto()]))
            }
            let mirror = try ReferenceEngine.misbehaving("echo", dataFolder: folder.appendingPathComponent("mirror"))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: mirror.url))
            #expect(report.synced.isEmpty)
            let reason = try #require(EndToEndTests.transientReason(of: report, at: id))
            let path = kind == "operation" ? "operations" : "captures"
            #expect(
                reason
                    == "POST \(mirror.url.absoluteString)/v1/\(path): the server answered 201 with the request itself,"
                    + " not the engine's answer (a server that mirrors requests?)")
            #expect(try await outbox.entry(id: id)?.state == .queued)
            #expect(try await outbox.retireSynced().isEmpty)

            // The mirror "took" the capture's upload; the engine says it has none, and gets it again.
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == [id])
            let created = try await engine.state().requests(about: id).filter {
                $0.method == "POST" && !$0.path.hasPrefix("/v1/uploads/") && $0.outcome == .status(201)
            }
            #expect(created.count == 1)
        }
    }

    /// A 1 GiB gzip bomb answering the first upload, from a server that compresses what the
    /// client accepts: the transport asks for no compression, so the answer comes plain and is
    /// refused by its length, and the drain's memory stays small.
    @Test func aGzipBombIsNeverAskedFor() async throws {
        try await withTemporaryFolder { folder in
            let (result, peak, requests) = try await Self.drainAgainstBomb("gzip-bomb", in: folder)
            #expect(result.standardError.contains("with a body larger than 1 MiB"), "\(result.standardError)")
            #expect(peak < 50 * 1024 * 1024, "peak resident memory \(peak / 1024) KiB")
            #expect(!requests.isEmpty)
            for headers in requests {
                let encoding = headers.first { $0.key.lowercased() == "accept-encoding" }?.value
                #expect(encoding == "identity", "\(headers)")
            }
        }
    }

    /// A server that compresses although the request asked for no encoding is refused at its
    /// headers, as a transient failure that says what came, and the drain's memory stays small:
    /// the send ends at the headers, and what libcurl inflates meanwhile is dropped as it comes
    /// (it cost 1.15 GB while the delegate's queue waited for the cancel).
    @Test func aCompressedAnswerThatWasNotAskedForIsRefused() async throws {
        try await withTemporaryFolder { folder in
            let (result, peak, _) = try await Self.drainAgainstBomb("gzip-bomb-anyway", in: folder)
            #expect(peak < 50 * 1024 * 1024, "peak resident memory \(peak / 1024) KiB")
            #expect(
                result.standardError.contains(
                    "the server answered 200 with a body compressed with 'gzip', which was not asked for, not the"
                        + " engine's answer, and it was not read"),
                "\(result.standardError)")
        }
    }

    /// `outbox drain` of one capture against a bomb server: what it printed, its peak resident
    /// memory, and the headers of each request the server saw.
    static func drainAgainstBomb(_ mode: String, in folder: URL) async throws
        -> (OutboxProcess.FinishedRun, Int, [[String: String]])
    {
        let store = folder.appendingPathComponent("outbox").path
        let photo = Fixtures.corpus.appendingPathComponent("no-exif.jpg").path
        let added = try OutboxProcess.run(["--store", store, "add", "--kind", "plate", photo])
        #expect(added.status == 0, "\(added.standardError)")
        let bombData = folder.appendingPathComponent("bomb")
        let bomb = try ReferenceEngine.misbehaving(mode, dataFolder: bombData)
        let drain = try OutboxProcess(["--store", store, "drain", "--engine", bomb.url.absoluteString])
        var peak = 0
        while drain.isRunning {
            peak = max(peak, drain.peakResidentBytes ?? 0)
            try await Task.sleep(for: .milliseconds(5))
        }
        let result = drain.wait()
        #expect(result.status == 1)
        #expect(result.standardError.contains("stopped at '\(added.lines.first ?? "?")': POST "))
        let log = try String(contentsOf: bombData.appendingPathComponent("requests.jsonl"), encoding: .utf8)
        let requests = log.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["headers"] as? [String: String]
        }
        return (result, peak, requests)
    }

    /// The upload landed, and the engine was then restored from a backup without it: the record
    /// is answered 422 upload_missing, the upload goes back in line and the same drain delivers.
    @Test func anUploadARestoredEngineLostIsSentAgain() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            let before = try ReferenceEngine(dataFolder: folder.appendingPathComponent("before"))
            try await before.inject(["mode": "status", "status": 503, "method": "POST", "path_prefix": "/v1/captures"])
            _ = try await outbox.drainNow(using: HTTPTransport(engineURL: before.url))
            #expect(try await outbox.entry(id: "plate-1")?.pendingMedia.isEmpty == true, "the upload landed")

            let restored = try ReferenceEngine(dataFolder: folder.appendingPathComponent("restored"))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: restored.url))
            #expect(report.synced == ["plate-1"])
            try await expectDeliveredOnce("plate-1", to: restored)
            let requests = try await restored.state().requests(about: "plate-1").map { "\($0.method) \($0.outcome)" }
            #expect(requests == ["POST status(422)", "POST status(201)", "PATCH status(201)", "POST status(201)"])
        }
    }

    /// An engine that answers every record upload_missing: the uploads are sent again a few
    /// times, at most twice a copy in one pass (the rest in the passes after it), then the entry
    /// is parked with a reason that says what happened; send-now sends every upload again.
    @Test func anEngineThatKeepsLosingUploadsGetsThemAFewTimesThenTheEntryIsParked() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            let engine = try ReferenceEngine.misbehaving(
                "loses-uploads", dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            var report = try await outbox.drainNow(using: transport)
            #expect(report.retrying == ["plate-1"], "two copies in the first pass, then the next pass")
            #expect(try await engine.state().requests(about: "plate-1").count { $0.method == "PATCH" } == 2)
            report = try await outbox.drainNow(using: transport)
            #expect(report.parked == ["plate-1"])
            let parked = try #require(try await outbox.entry(id: "plate-1"))
            #expect(parked.state == .failedNeedsAttention)
            let reason = try #require(parked.lastError)
            #expect(
                reason.hasPrefix(
                    "the engine answered upload_missing after its uploads were sent again 3 times: it does not keep"
                        + " what it takes (HTTP 422 upload_missing: POST "),
                "\(reason)")
            #expect(!reason.contains(".."))
            let puts = try await engine.state().requests(about: "plate-1").filter { $0.method == "PATCH" }
            #expect(puts.count == 1 + Outbox.mostUploadResends)

            _ = try await outbox.sendNow(id: "plate-1", using: transport)
            let after = try await engine.state().requests(about: "plate-1").filter { $0.method == "PATCH" }
            #expect(after.count > puts.count, "send-now sent the upload again")
        }
    }

    /// One operation the engine answers 500 every time, queued first, and three of other
    /// entities behind it: one requested drain delivers the three, and the poison one backs off.
    @Test func onePoisonEntryDoesNotHoldUpTheOthers() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(in: folder)
            try await outbox.enqueue(Self.operation("poison-1", entity: "note:0"))
            for number in 1...3 { try await outbox.enqueue(Self.operation("note-\(number)", entity: "note:\(number)")) }
            let engine = try ReferenceEngine.misbehaving(
                "refuses-poison", dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            let first = try await outbox.drainNow(using: transport)
            #expect(first.synced == ["note-1", "note-2", "note-3"])
            #expect(first.retrying == ["poison-1"])
            #expect(first.halt == nil)
            let poison = try #require(try await outbox.entry(id: "poison-1"))
            #expect(poison.state == .queued)
            #expect(poison.nextAttemptAt != nil, "it backs off")

            // Asked again, it is tried after the others, and never holds the new ones up.
            try await outbox.enqueue(Self.operation("note-4", entity: "note:4"))
            let second = try await outbox.drainNow(using: transport)
            #expect(second.synced == ["note-4"])
            #expect(second.retrying == ["poison-1"])
            let posts = try await engine.state().requests.filter { $0.method == "POST" }.map(\.requestId)
            #expect(posts.filter { $0 == "poison-1" }.count == 2, "one request per drain")
        }
    }

    /// An engine that fails every request with 500: the pass stops after two, not after the
    /// whole queue.
    @Test func anEngineFailingEveryRequestStopsThePassAfterTwo() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(in: folder)
            for number in 1...4 { try await outbox.enqueue(Self.operation("note-\(number)", entity: "note:\(number)")) }
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await engine.inject(["mode": "status", "status": 500, "count": 100])
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            #expect(report.retrying == ["note-1"])
            #expect(EndToEndTests.transientReason(of: report, at: "note-2") != nil)
            #expect(try await engine.state().requests.count == 2)
        }
    }
}

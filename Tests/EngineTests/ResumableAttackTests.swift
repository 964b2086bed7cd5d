import Foundation
import Testing

@testable import Outbox

/// Resumable uploads against engines, gateways and stored values that try to turn them against
/// the user (issue 43): each answer or value below once wedged a capture for good, parked it, or
/// cost many times the user's data; now each costs at most twice the file, and the capture
/// arrives wherever the engine takes the contract's `PUT`.
@Suite("Resumable uploads under attack")
struct ResumableAttackTests {
    /// A second entry, with other bytes of the same size.
    static let otherAttachment = Data(ResumableUploadTests.attachment.reversed())

    /// An outbox with `note-1` (the 46,000-byte attachment) and `note-2` (as many other bytes).
    static func outboxWithTwoEntries(in folder: URL) async throws -> Outbox {
        let outbox = try await ResumableUploadTests.outbox(in: folder)
        try await outbox.enqueue(
            OutboxOperation(
                id: "note-2", entity: "note:2", type: "note.update", payloadJSON: Data(#"{"text":"b"}"#.utf8),
                attachments: [OperationAttachment(data: otherAttachment, contentType: "application/octet-stream")]))
        return outbox
    }

    /// The bytes the client sent through `proxy` once it and the engine logged every connection.
    static func bytesOnTheWire(through proxy: ReferenceEngine, to engine: ReferenceEngine) async throws -> Int {
        let log = proxy.dataFolder.appendingPathComponent("connections.jsonl")
        let count = try await engine.state().requests.count
        #expect(
            try await waitUntil(seconds: 120) { try ResumableUploadTests.bytesSent(through: log).connections >= count })
        return try ResumableUploadTests.bytesSent(through: log).bytes
    }

    /// The reference engine, answering every resumable upload's creation with `status`.
    static func refusingCreation(with status: Int, in folder: URL) throws -> ReferenceEngine {
        try ReferenceEngine.misbehaving(
            "refuses-creation", dataFolder: folder.appendingPathComponent("engine"), options: ["--status", "\(status)"])
    }

    /// The `history` column of the one entry of the store in `folder`, read raw.
    static func storedHistory(in folder: URL) throws -> String? {
        try withRawDatabase(in: folder) {
            try $0.query("SELECT history FROM outbox_entries") { $0.text(at: 0) }.first ?? nil
        }
    }

    // MARK: - One normal form for URLs

    /// A creation's `Location` with its scheme in capitals names the same URL. It used to pass the
    /// same-origin check (which compared in lower case) and then fail every request as an
    /// unsupported URL, a "network error" that kept the resource for ever: the capture never
    /// arrived, whatever the engine did next.
    @Test func aLocationWithItsSchemeInCapitalsIsFollowedAndTheUploadArrives() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "upper-case-location", dataFolder: folder.appendingPathComponent("engine"))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            #expect(report.synced == ["note-1"], "\(requests)")
            #expect(requests == ["POST 201", "PATCH 201", "POST 201"])
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    /// A resource kept in the store in capitals, with the scheme's default port spelled out (as
    /// an older version kept what such an engine named), is the engine's resource: the next
    /// process asks for its offset and sends the rest.
    @Test func aKeptResourceInCapitalsIsResumed() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await ResumableUploadTests.sendCutAndLoseTheOffset(outbox, to: engine)
            let store = folder.appendingPathComponent("outbox")
            try withRawDatabase(in: store) {
                try $0.run(
                    "UPDATE outbox_entries SET upload_resources = replace(upload_resources, 'http://', 'HTTP://')")
            }
            let next = try ResumableUploadTests.reopened(in: folder)
            #expect(try await next.drainNow(using: HTTPTransport(engineURL: engine.url)).synced == ["note-1"])
            let methods = try await engine.state().requests(about: "note-1").map(\.method)
            #expect(methods.suffix(3) == ["HEAD", "PATCH", "POST"], "\(methods)")
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    /// The engine's URL in capitals, as an app's settings or `--engine` may give it, is the engine.
    @Test func anEngineURLInCapitalsIsTheEngine() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let shouted = try #require(URL(string: "HTTP://127.0.0.1:\(engine.port)"))
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: shouted)).synced == ["note-1"])
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)

            let store = folder.appendingPathComponent("command").path
            let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add"] + photos).lines
            let drained = try OutboxProcess.run(["--store", store, "drain", "--engine", shouted.absoluteString])
            #expect(drained.status == 0, "\(drained.standardError)")
            try await expectDeliveredOnce(try #require(ids.first), to: engine)
        }
    }

    // MARK: - A budget per send

    /// An engine that reads every append to its end and then refuses it (409) or drops the
    /// connection, and says on each `HEAD` that it holds one byte more, used to get the rest of
    /// the file 33 times in one send, from every entry of the pass. Now the offset must move by a
    /// real share of what was sent: one that refuses appends is taken as an engine without
    /// resumable uploads for the pass (one PUT, and the next entry goes as one PUT straight
    /// away), one that drops them ends the send. One that says it holds just enough more to count
    /// as progress gets appends no larger than that, at most 33. No upload costs more than twice
    /// its bytes, headers aside. The bytes are counted by a proxy that passes everything.
    @Test(arguments: ["refuses-appends", "drops-appends", "creeps-a-share"])
    func anEngineWhoseOffsetCreepsGetsAtMostTwiceTheFile(mode: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await Self.outboxWithTwoEntries(in: folder)
            let engine = try ReferenceEngine.misbehaving(mode, dataFolder: folder.appendingPathComponent("engine"))
            let counter = try ReferenceEngine.cuttingProxy(
                to: engine, cutAfter: 1 << 40, dataFolder: folder.appendingPathComponent("proxy"))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: counter.url))
            let bytes = try await Self.bytesOnTheWire(through: counter, to: engine)
            let file = ResumableUploadTests.attachment.count
            let first = try await ResumableUploadTests.requests("note-1", at: engine)
            let second = try await ResumableUploadTests.requests("note-2", at: engine)
            print(
                "\(mode): \(bytes) bytes on the wire in one drain for two uploads of \(file) bytes: \(first) \(second)")
            if mode == "refuses-appends" {
                #expect(Set(report.synced) == ["note-1", "note-2"], "\(first)")
                #expect(first.prefix(4) == ["POST 201", "PATCH 409", "HEAD 204", "PUT 201"], "\(first)")
                #expect(second == ["PUT 201", "POST 201"], "remembered for the pass")
                #expect(first.contains("DELETE 204"), "the resource it will not use again is given back")
                #expect(try await engine.state().resumableUploads.filter { !$0.complete }.isEmpty)
                // Twice the first file, once the second, and the headers of a dozen requests.
                #expect(bytes <= 3 * file + 12_000)
                try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
            } else if mode == "drops-appends" {
                #expect(report.synced.isEmpty)
                #expect(first.count <= 4, "\(first)")
                #expect(second.isEmpty, "a lost connection stops the pass")
                #expect(bytes <= 2 * file + 4_000)
            } else {
                // Progress just big enough: appends as small as the link seems to carry, at most
                // 33 of them, and never past twice the file.
                #expect(report.synced.isEmpty)
                #expect(first.filter { $0.hasPrefix("PATCH") }.count <= HTTPTransport.mostResumptionsPerSend + 1)
                #expect(second.isEmpty, "a lost connection stops the pass")
                #expect(bytes <= 2 * file + 40_000)
            }
        }
    }

    /// An engine that reads the first append to its end and answers 401, so that the client
    /// repeats it with fresh credentials, and then refuses appends while its offset creeps. The
    /// repeat carried the rest of the file uncounted, and the PUT after the refusal a third copy:
    /// now the repeat is charged to the send's budget, so the send stops at twice the file, gives
    /// the resource back, and the next one delivers.
    @Test func aBodyRepeatedAfterA401IsChargedToTheBudget() async throws {
        struct RenewedToken: CredentialsProvider {
            func credentials(refreshing: Bool) async throws -> EngineCredentials {
                .bearer(refreshing ? "renewed" : "expired")
            }
        }
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "refuses-appends", dataFolder: folder.appendingPathComponent("engine"),
                options: ["--unauthorized-once", "PATCH"])
            let counter = try ReferenceEngine.cuttingProxy(
                to: engine, cutAfter: 1 << 40, dataFolder: folder.appendingPathComponent("proxy"))
            let transport = HTTPTransport(configuration: .init(engineURL: counter.url), credentials: RenewedToken())
            #expect(try await outbox.drainNow(using: transport).synced.isEmpty)
            let bytes = try await Self.bytesOnTheWire(through: counter, to: engine)
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            print("refuses-appends after a 401: \(bytes) bytes on the wire in one send: \(requests)")
            #expect(requests == ["POST 201", "PATCH 401", "PATCH 409", "HEAD 204", "DELETE 204"])
            #expect(bytes <= 2 * ResumableUploadTests.attachment.count + 4_000)

            #expect(try await outbox.drainNow(using: transport).synced == ["note-1"])
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    // MARK: - A refused creation falls back

    /// A creation answered with a 4xx that is not about the credentials, the proxy, the time or
    /// the rate means "no resumable uploads here", whatever the engine or its gateway meant by
    /// it: the upload goes as the contract's one PUT, and so do the pass's other uploads. These
    /// used to park the capture, even where the engine took the PUT.
    @Test(arguments: [400, 410, 411, 413, 415, 422])
    func aCreationRefusedWithA4xxFallsBackToOnePUT(status: Int) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await Self.outboxWithTwoEntries(in: folder)
            let engine = try Self.refusingCreation(with: status, in: folder)
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            #expect(Set(report.synced) == ["note-1", "note-2"])
            #expect(report.parked.isEmpty)
            #expect(
                try await ResumableUploadTests.requests("note-1", at: engine) == [
                    "POST \(status)", "PUT 201", "POST 201",
                ])
            #expect(try await ResumableUploadTests.requests("note-2", at: engine) == ["PUT 201", "POST 201"])
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    /// A 5xx to the creation is a transient failure like any other request's, and 401, 403, 407,
    /// 408 and 429 are about every request alike: the capture waits and is tried again, never
    /// parked, and no PUT goes in the same send.
    @Test(arguments: [403, 429, 500, 503])
    func aCreationRefusedForTheMomentIsTriedAgain(status: Int) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try Self.refusingCreation(with: status, in: folder)
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            #expect(report.synced.isEmpty && report.parked.isEmpty)
            #expect(try await ResumableUploadTests.requests("note-1", at: engine) == ["POST \(status)"])
            #expect(try await outbox.entry(id: "note-1")?.state == .queued)
        }
    }

    // MARK: - Refused stored values are cleared

    /// A planted `upload_resources` refused by its size, its form, its seal or its owner is set
    /// to NULL in the pass that refuses it, with a line in the entry's history. It used to be
    /// kept until the upload landed, refused again on every pass, and rewritten with its row at
    /// every change of state: 441 MB of disk traffic a drain for a 200 MiB value. The engine here
    /// is not reachable, so nothing lands that would clear it anyway.
    @Test(arguments: [
        ("size", false), ("form", false), ("owner", false), ("seal", true), ("owner", true),
    ])
    func aRefusedUploadResourceIsClearedInThePassThatRefusesIt(refusal: String, isEncrypted: Bool) async throws {
        try await withTemporaryFolder { folder in
            let key = isEncrypted ? OutboxKey.generate() : nil
            _ = try await ResumableUploadTests.outbox(in: folder, key: key)
            let foreign = Data(#"{"0":"http://attacker.example/v1/uploads/note-1/0/abc"}"#.utf8)
            let planted: SQLiteValue
            switch (refusal, key) {
            case ("size", _): planted = .text(String(repeating: "{", count: 1024 * 1024))
            case ("form", _): planted = .text(#"{"0":42}"#)
            case ("owner", let key?):
                planted = .blob(StoreCipher(key: key).seal(foreign, for: .uploadResources(id: "note-1")))
            case ("owner", nil): planted = .text(String(decoding: foreign, as: UTF8.self))
            default: planted = .text(#"{"0":"http://127.0.0.1:1/v1/uploads/note-1/0/abc"}"#)
            }
            let store = folder.appendingPathComponent("outbox")
            try withRawDatabase(in: store) { try $0.run("UPDATE outbox_entries SET upload_resources = ?", planted) }
            let nowhere = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            _ = try await ResumableUploadTests.reopened(in: folder, key: key).drainNow(
                using: HTTPTransport(engineURL: nowhere))
            let stored = try withRawDatabase(in: store) {
                try $0.query("SELECT upload_resources IS NULL FROM outbox_entries") { $0.integer(at: 0) }
            }
            #expect(stored == [1], "cleared in the same pass")
            let history = try Self.storedHistory(in: store)
            #expect(history?.contains("cleared its upload resource") == true, "\(history ?? "no history")")
        }
    }

    /// Every other column the store reads back and can do without: a value of the wrong kind,
    /// or too large, is cleared in the next pass with a line in the history, even for an entry
    /// that pass does not send (parked here), so that it is not read and rewritten for ever.
    @Test(arguments: [
        ("created_at", "'yesterday'", "creation time"),
        ("attempts", "'many'", "attempt count"),
        ("next_attempt_at", "x'00ff'", "time of its next try"),
        ("transient_failures", "-5", "count of failures in a row"),
        ("awaits_send_now", "'yes'", "wait for send-now"),
        ("first_attempt_at", "'never'", "time of its first send"),
        ("upload_resends", "1.5", "count of uploads sent again"),
        ("last_error", "zeroblob(100)", "last error"),
        ("last_error", "printf('%.*c', 20000, 'x')", "last error"),
    ])
    func aRefusedValueOfAnyColumnIsClearedInTheNextPass(column: String, value: String, wording: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let store = folder.appendingPathComponent("outbox")
            try withRawDatabase(in: store) {
                try $0.run("UPDATE outbox_entries SET state = 'FAILED_NEEDS_ATTENTION', \(column) = \(value)")
            }
            let nowhere = try #require(URL(string: "http://127.0.0.1:\(try unusedPort())"))
            _ = try await outbox.drainNow(using: HTTPTransport(engineURL: nowhere))
            let cleared = try withRawDatabase(in: store) {
                try $0.query("SELECT \(column) IS NULL FROM outbox_entries") { $0.integer(at: 0) }
            }
            #expect(cleared == [1])
            let history = try Self.storedHistory(in: store)
            #expect(history?.contains("cleared its \(wording): ") == true, "\(history ?? "no history")")
        }
    }
}

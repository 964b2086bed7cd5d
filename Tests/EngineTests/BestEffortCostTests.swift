import Foundation
import Testing

@testable import Outbox

/// Work the outbox does on the side, which must stay cheap whatever the engine does (issue 56):
/// giving back upload resources to an engine that never answers `DELETE`, sending uploads again
/// to one that reads every completing append and then loses what it took, the space of a planted
/// value, and credentials in the engine's URL.
@Suite("Best-effort work stays cheap")
struct BestEffortCostTests {
    /// Queues one more `note.update` without attachments, so that the next pass hears the engine.
    static func enqueueNote(_ number: Int, in outbox: Outbox) async throws {
        try await outbox.enqueue(
            OutboxOperation(
                id: "other-\(number)", entity: "note:other-\(number)", type: "note.update",
                payloadJSON: Data(#"{"text":"b"}"#.utf8)))
    }

    /// The rows of resources to give back in the store of `ResumableUploadTests.outbox(in:)`:
    /// each row's entry id and how many passes went unanswered.
    static func rowsToGiveBack(in folder: URL) throws -> [String] {
        try withRawDatabase(in: folder.appendingPathComponent("outbox")) {
            try $0.query("SELECT id, unanswered FROM outbox_abandoned_uploads ORDER BY rowid") {
                "\($0.text(at: 0) ?? "?") \($0.integer(at: 1).map(String.init) ?? "-")"
            }
        }
    }

    // MARK: - Giving back

    /// Plants rows of resources to give back, each the resource of upload 0 of its entry on the
    /// engine, with its count of unanswered passes.
    static func plantRowsToGiveBack(_ rows: [(id: String, unanswered: SQLiteValue)], in folder: URL) throws {
        try withRawDatabase(in: folder.appendingPathComponent("outbox")) { database in
            for row in rows {
                try database.run(
                    "INSERT INTO outbox_abandoned_uploads (id, resources, unanswered) VALUES (?, ?, ?)", .text(row.id),
                    .text(#"{"0":"/v1/uploads/\#(row.id)/0/token"}"#), row.unanswered)
            }
        }
    }

    /// An engine that never answers `DELETE` (it holds each one until the client leaves) used to
    /// cost every pass the idle timeout of each row to give back, one after another, and the rows
    /// were tried again on every pass: 60 s added to a drain with two rows. Now a pass sends one
    /// `DELETE`, stops there when it goes unanswered, and a row unanswered in three passes is
    /// forgotten. The transport's idle timeout is the default (30 s): only the pass's deadline
    /// can end the held request.
    @Test func anEngineThatNeverAnswersDELETECostsOneRequestAPass() async throws {
        try await withTemporaryFolder { folder in
            // Only the deadline ends a held DELETE: any will do.
            let outbox = try await ResumableUploadTests.outbox(in: folder, giveBackDeadline: .seconds(2))
            let engine = try ReferenceEngine.misbehaving(
                "holds-deletes", dataFolder: folder.appendingPathComponent("engine"))
            try Self.plantRowsToGiveBack([("gone-1", .null), ("gone-2", .null)], in: folder)
            let transport = HTTPTransport(engineURL: engine.url)

            #expect(try await outbox.drainNow(using: transport).synced == ["note-1"])
            #expect(try Self.rowsToGiveBack(in: folder) == ["gone-1 1", "gone-2 -"])
            for pass in 2...4 {
                try await Self.enqueueNote(pass, in: outbox)
                #expect(try await outbox.drainNow(using: transport).synced == ["other-\(pass)"])
            }
            let deletes = try await engine.state().requests.filter { $0.method == "DELETE" }.map(\.path)
            #expect(
                deletes == Array(repeating: "/v1/uploads/gone-1/0/token", count: 3) + ["/v1/uploads/gone-2/0/token"])
            #expect(try Self.rowsToGiveBack(in: folder) == ["gone-2 1"], "the first row forgotten after three passes")
        }
    }

    /// The count of unanswered passes is a stored value like any other: a planted one that is not
    /// a count reads as none, one past the limit forgets the row at once.
    @Test func aPlantedCountOfUnansweredPassesIsNotBelieved() async throws {
        try await withTemporaryFolder { folder in
            // Only the deadline ends a held DELETE: any will do.
            let outbox = try await ResumableUploadTests.outbox(in: folder, giveBackDeadline: .seconds(2))
            let engine = try ReferenceEngine.misbehaving(
                "holds-deletes", dataFolder: folder.appendingPathComponent("engine"))
            try Self.plantRowsToGiveBack([("gone-1", .text("lots")), ("gone-2", .integer(.max))], in: folder)
            let transport = HTTPTransport(engineURL: engine.url)
            #expect(try await outbox.drainNow(using: transport).synced == ["note-1"])
            #expect(try Self.rowsToGiveBack(in: folder) == ["gone-1 1", "gone-2 \(Int64.max)"])
            try await Self.enqueueNote(2, in: outbox)
            #expect(try await outbox.drainNow(using: transport).synced == ["other-2"])
            #expect(try Self.rowsToGiveBack(in: folder) == ["gone-1 2", "gone-2 \(Int64.max)"])
            try await Self.enqueueNote(3, in: outbox)
            try withRawDatabase(in: folder.appendingPathComponent("outbox")) {
                try $0.run("DELETE FROM outbox_abandoned_uploads WHERE id = 'gone-1'")
            }
            #expect(try await outbox.drainNow(using: transport).synced == ["other-3"])
            #expect(try Self.rowsToGiveBack(in: folder).isEmpty, "a count past the limit forgets the row")
        }
    }

    // MARK: - Sending again

    /// An engine that reads every completing append to its end and answers 404, takes the PUT,
    /// and answers the record 422 `upload_missing`: each round cost an append and a PUT, and the
    /// entry went round four times in one drain (8.5 times the file on the wire). Now one upload's
    /// sends in one pass share one budget of twice the file, and after the refused append the
    /// pass sends whole files only: the send again finds no room, the entry backs off without
    /// stopping the pass, and the next pass goes on. Until it is parked, an upload the engine never
    /// keeps costs at most twice the file a pass. The bytes are counted by a proxy.
    @Test func anEngineThatLosesWhatItTookGetsTwiceTheFileAPass() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            try await Self.enqueueNote(1, in: outbox)
            let engine = try ReferenceEngine.misbehaving(
                "refuses-completion", dataFolder: folder.appendingPathComponent("engine"),
                options: ["--record-refusals", "1000"])
            let counter = try ReferenceEngine.cuttingProxy(
                to: engine, cutAfter: 1 << 40, dataFolder: folder.appendingPathComponent("proxy"))
            let transport = HTTPTransport(engineURL: counter.url)
            let file = ResumableUploadTests.attachment.count

            let first = try await outbox.drainNow(using: transport)
            let firstBytes = try await ResumableAttackTests.bytesOnTheWire(through: counter, to: engine)
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            #expect(requests == ["POST 201", "PATCH 404", "PUT 201", "POST 422"], "\(requests)")
            #expect(first.retrying == ["note-1"] && first.halt == nil, "the pass goes on: \(first)")
            #expect(firstBytes <= 2 * file + 4_000, "\(firstBytes) bytes for a file of \(file)")
            let entry = try #require(try await outbox.entry(id: "note-1"))
            #expect(entry.lastError?.contains("sent twice over in this pass") == true, "\(entry.lastError ?? "")")

            // Every later pass costs twice the file at most, until the entry is parked.
            var passes = 1
            while try await outbox.entry(id: "note-1")?.state == .queued, passes < 10 {
                let before = try await ResumableAttackTests.bytesOnTheWire(through: counter, to: engine)
                _ = try await outbox.drainNow(using: transport)
                let after = try await ResumableAttackTests.bytesOnTheWire(through: counter, to: engine)
                #expect(after - before <= 2 * file + 4_000, "pass \(passes + 1)")
                passes += 1
            }
            let total = try await ResumableAttackTests.bytesOnTheWire(through: counter, to: engine)
            print(
                "refuses-completion: \(firstBytes) bytes in the first drain, \(total) in \(passes) drains until parked,"
                    + " for a file of \(file) bytes")
            #expect(try await outbox.entry(id: "note-1")?.state == .failedNeedsAttention)
            #expect(passes == Outbox.mostUploadResends + 1)
            #expect(total <= (Outbox.mostUploadResends + 1) * (2 * file + 4_000))
        }
    }

    /// The same engine, taking the record the second time: delivered in the next pass, with
    /// twice the file in each of the two.
    @Test func anUploadLostOnceArrivesInTheNextPass() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "refuses-completion", dataFolder: folder.appendingPathComponent("engine"),
                options: ["--record-refusals", "1"])
            let transport = HTTPTransport(engineURL: engine.url)
            #expect(try await outbox.drainNow(using: transport).retrying == ["note-1"])
            #expect(try await outbox.drainNow(using: transport).synced == ["note-1"])
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    // MARK: - Space given back

    /// The size of the database file in the store of `ResumableUploadTests.outbox(in:)`.
    static func databaseSize(in folder: URL) throws -> Int64 {
        let path = folder.appendingPathComponent("outbox").appendingPathComponent(OutboxStore.databaseName).path
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Plants a 200 MiB `last_error` and checkpoints it into the database file.
    static func plantLargeValue(in folder: URL) throws {
        try withRawDatabase(in: folder.appendingPathComponent("outbox")) { database in
            try database.run("UPDATE outbox_entries SET last_error = zeroblob(200 * 1024 * 1024)")
            _ = try database.query("PRAGMA wal_checkpoint(TRUNCATE)") { _ in () }
        }
    }

    /// A planted 200 MiB value was cleared, and the file stayed 200 MiB for good. Now each pass
    /// gives back up to 32 MiB of free pages once they pass a quarter of the file, until the
    /// file holds what the store holds.
    @Test func aPlantedValueClearedGivesItsSpaceBack() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            try Self.plantLargeValue(in: folder)
            let planted = try Self.databaseSize(in: folder)
            #expect(planted > 200 * 1024 * 1024)
            // Nothing listens there: every pass fails at once, and still tidies up.
            let transport = HTTPTransport(engineURL: try #require(URL(string: "http://127.0.0.1:9")))
            var sizes: [Int64] = []
            for _ in 0..<8 {
                _ = try await outbox.drainNow(using: transport)
                sizes.append(try Self.databaseSize(in: folder))
            }
            print("a planted 200 MiB value: \(planted) bytes, then after each drain \(sizes)")
            #expect(sizes[0] <= planted - 32 * 1024 * 1024, "\(sizes)")
            #expect(try #require(sizes.last) < 1024 * 1024, "\(sizes)")
            #expect((try await outbox.entry(id: "note-1")?.lastError?.utf8.count ?? 0) < 1024, "the value was cleared")
        }
    }

    /// A store made before stores gave space back has SQLite's auto-vacuum off, which only a
    /// `VACUUM` switches on: the first pass that finds a quarter of the file free runs it, once,
    /// and gives everything back; the passes after it give back a bounded share at a time.
    @Test func anOlderStoreIsVacuumedOnceAndThenGivesSpaceBackStepByStep() async throws {
        try await withTemporaryFolder { folder in
            _ = try await ResumableUploadTests.outbox(in: folder)
            let autoVacuum = {
                try withRawDatabase(in: folder.appendingPathComponent("outbox")) {
                    try $0.query("PRAGMA auto_vacuum") { $0.integer(at: 0) }.first ?? nil
                }
            }
            // As an earlier version made it.
            try withRawDatabase(in: folder.appendingPathComponent("outbox")) { database in
                try database.run("PRAGMA auto_vacuum = NONE")
                try database.run("VACUUM")
            }
            #expect(try autoVacuum() == 0)
            try Self.plantLargeValue(in: folder)
            let outbox = try ResumableUploadTests.reopened(in: folder)
            let transport = HTTPTransport(engineURL: try #require(URL(string: "http://127.0.0.1:9")))
            _ = try await outbox.drainNow(using: transport)
            #expect(try Self.databaseSize(in: folder) < 1024 * 1024)
            #expect(try autoVacuum() == 2, "incremental from now on")
            #expect(try await outbox.entry(id: "note-1")?.state == .queued, "the entry is as it was")
        }
    }

    // MARK: - Credentials in the URL

    /// A user name and password in the engine's URL turned resumable uploads off without a word
    /// (the resource's Location, resolved against a URL with credentials, was refused as
    /// another's), and a 401 was reported as a timeout. Now they go as Basic credentials on every
    /// request, the resumable ones included, and never in a URL or a message.
    @Test func credentialsInTheURLGoOnEveryRequest() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "requires-basic", dataFolder: folder.appendingPathComponent("engine"),
                options: ["--token", "ann:pa:ss w@rd"])
            let port = engine.port
            let url = try #require(URL(string: "http://ann:pa%3Ass%20w%40rd@127.0.0.1:\(port)"))
            #expect(try await outbox.drainNow(using: HTTPTransport(engineURL: url)).synced == ["note-1"])
            let requests = try await ResumableUploadTests.requests("note-1", at: engine)
            #expect(requests == ["POST 201", "PATCH 201", "POST 201"], "resumable, every request signed in")
            try await ResumableUploadTests.expectHeldOnce("note-1", by: engine)
        }
    }

    @Test func aWrongPasswordInTheURLIsReportedAsA401() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await ResumableUploadTests.outbox(in: folder)
            let engine = try ReferenceEngine.misbehaving(
                "requires-basic", dataFolder: folder.appendingPathComponent("engine"),
                options: ["--token", "ann:right"])
            let url = try #require(URL(string: "http://ann:wrong@127.0.0.1:\(engine.port)"))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: url))
            guard case .transientFailure(let id, let reason) = report.halt else {
                Issue.record("the pass should stop at the 401: \(report)")
                return
            }
            #expect(id == "note-1")
            #expect(reason.hasPrefix("HTTP 401: POST http://127.0.0.1:\(engine.port)/v1/uploads/note-1/0"), "\(reason)")
            #expect(!reason.contains("wrong"), "no password in a message")
        }
    }
}

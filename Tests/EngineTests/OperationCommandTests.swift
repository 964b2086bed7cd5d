import Foundation
import Testing

@testable import Outbox

/// `outbox op` and what `drain` does with operations, against the reference engine: the
/// issue's proofs of order under failure and of compaction, end to end over the wire.
@Suite("Operations on the command line and the wire")
struct OperationCommandTests {
    /// Queues an operation with `outbox op` and returns the id it printed.
    static func op(_ store: String, _ arguments: [String]) throws -> String {
        let result = try OutboxProcess.run(["--store", store, "op"] + arguments)
        try #require(result.status == 0, "op failed: \(result.standardError)")
        return try #require(result.lines.first)
    }

    static func listed(_ store: String) throws -> [[String: Any]] {
        Array(try OutboxProcess.run(["--store", store, "list", "--json"]).jsonLines.dropLast())
    }

    @Test func aParkedOperationHoldsBackItsEntityUntilItIsDiscarded() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let a1 = try Self.op(store, ["--type", "note.append", "--entity", "note:A", "--payload", #"{"n":1}"#])
            let a2 = try Self.op(store, ["--type", "note.append", "--entity", "note:A", "--payload", #"{"n":2}"#])
            let b1 = try Self.op(store, ["--type", "note.append", "--entity", "note:B", "--payload", #"{"n":1}"#])
            let c1 = try Self.op(store, ["--type", "log.set", "--payload", #"{"reps":10}"#])
            // The engine refuses the first operation it is sent for good.
            try await engine.inject([
                "mode": "status", "status": 422, "method": "POST", "path_prefix": "/v1/operations",
            ])
            let drain = ["--store", store, "drain", "--engine", engine.url.absoluteString]

            let first = try OutboxProcess.run(drain)
            #expect(first.lines == [b1, c1])
            #expect(first.status == 0, "what waits behind a parked one waits for the user, like it")
            #expect(first.standardError.contains("outbox: '\(a1)' needs attention: HTTP 422"))
            #expect(
                first.standardError.hasSuffix(
                    "outbox: 0 entries left in the queue, 1 parked, 1 waiting behind an earlier one of its entity.\n"))
            #expect(try await engine.state().requests(about: a2).isEmpty, "A's second was never sent")
            let rows = try Self.listed(store)
            #expect(rows.map { $0["id"] as? String } == [a1, a2])
            #expect(rows.map { $0["blockedBy"] as? String } == [nil, a1])
            #expect(rows.map { $0["entity"] as? String } == ["note:A", "note:A"])
            #expect(rows.map { $0["type"] as? String } == ["note.append", "note.append"])
            #expect(rows.map { $0["status"] as? String } == ["parked", "blocked"], "the states in words")
            let table = try OutboxProcess.run(["--store", store, "list"]).standardOutput
            #expect(table.contains("waits behind '\(a1)'"))
            #expect(table.contains("\(a1)  note.append  note:A  parked   "))
            #expect(table.contains("\(a2)  note.append  note:A  blocked  "))
            #expect(table.contains("2 entries: 1 blocked, 1 parked;"))

            let refused = try OutboxProcess.run([
                "--store", store, "send-now", a2, "--engine", engine.url.absoluteString,
            ])
            #expect(refused.status == 1)
            #expect(refused.standardError.contains("waits behind '\(a1)', an earlier one of 'note:A'"))

            #expect(try OutboxProcess.run(["--store", store, "discard", a1]).status == 0)
            let second = try OutboxProcess.run(drain)
            #expect(second.lines == [a2])
            #expect(second.status == 0)
            let state = try await engine.state()
            #expect(state.operations.map(\.requestId) == [b1, c1, a2])
            #expect(state.operation(a2)?.payload == .object(["n": .number(2)]))
            #expect(state.operation(c1)?.entity == nil && state.operation(c1)?.type == "log.set")
            #expect(state.requests(about: a1).map(\.outcome) == [.status(422)])
        }
    }

    /// `--network metered`: the note goes, the photo waits for Wi-Fi, says so in list and in the
    /// summary, uses no attempt, and goes with the next drain on an unmetered network.
    @Test func onAMeteredNetworkThePhotoWaitsForWiFiAndTheNoteGoes() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let photo = Fixtures.corpus.appendingPathComponent("no-exif.jpg").path
            let capture = try #require(try OutboxProcess.run(["--store", store, "add", photo]).lines.first)
            let note = try Self.op(store, ["--type", "note.append", "--entity", "note:1", "--payload", #"{"n":1}"#])
            let drain = ["--store", store, "drain", "--engine", engine.url.absoluteString]

            let metered = try OutboxProcess.run(drain + ["--network", "metered"])
            #expect(metered.lines == [note])
            #expect(metered.status == 0, "what waits for its network is not a failure")
            #expect(
                metered.standardError.hasSuffix(
                    "outbox: 0 entries left in the queue, 0 parked, 1 waiting for Wi-Fi (the network is metered).\n"))
            #expect(try await engine.state().requests(about: capture).isEmpty)

            let table = try OutboxProcess.run(["--store", store, "list", "--network", "metered"]).standardOutput
            #expect(table.contains("\(capture)  waits-network   0         waits for Wi-Fi\n"), "\(table)")
            #expect(table.hasSuffix("1 capture: 1 waits-network; 0 records this version cannot read.\n"))
            let row = try #require(
                try OutboxProcess.run(["--store", store, "list", "--json", "--network", "metered,constrained"])
                    .jsonLines.first)
            #expect(row["waitsForNetwork"] as? String == "Wi-Fi" && row["attempts"] as? Int == 0)
            #expect(try Self.listed(store).first?["status"] as? String == "pending", "on Wi-Fi it would go")

            let refused = try OutboxProcess.run(
                ["--store", store, "send-now", capture, "--engine", engine.url.absoluteString, "--network", "metered"])
            #expect(refused.status == 1)
            #expect(
                refused.standardError.contains(
                    "The entry '\(capture)' waits for Wi-Fi: operations 'capture.create' are not sent on a metered"))

            let unmetered = try OutboxProcess.run(drain)
            #expect(unmetered.lines == [capture] && unmetered.status == 0)
            #expect(try await engine.state().records.map(\.requestId) == [capture])

            let wrong = try OutboxProcess.run(drain + ["--network", "wifi"])
            #expect(wrong.status == 2)
            #expect(
                wrong.standardError.hasPrefix(
                    "Error: The value 'wifi' is invalid for '--network <kind>': it must be unmetered, metered,"
                        + " constrained, or metered,constrained\n"))
        }
    }

    @Test func threeLastWriteWinsUpdatesNeverSentReachTheEngineAsTheLast() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let photo = Fixtures.corpus.appendingPathComponent("no-exif.jpg").path
            var ids: [String] = []
            var replacements: [String] = []
            for text in ["one", "two", "three"] {
                let result = try OutboxProcess.run([
                    "--store", store, "op", "--type", "note.update", "--entity", "note:1", "--lww", "--payload",
                    #"{"text":"\#(text)"}"#, "--attach", photo,
                ])
                ids += result.lines
                replacements.append(result.standardError)
            }
            #expect(
                replacements == [
                    "", "outbox: '\(ids[1])' took the place of '\(ids[0])', which was never sent.\n",
                    "outbox: '\(ids[2])' took the place of '\(ids[1])', which was never sent.\n",
                ])
            #expect(try Self.listed(store).map { $0["id"] as? String } == [ids[2]])
            #expect(
                try mediaFileNames(in: URL(fileURLWithPath: store)).count == 1, "the replaced ones' photos are gone")
            let drained = try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString])
            #expect(drained.lines == [ids[2]])
            let state = try await engine.state()
            #expect(state.operations.map(\.requestId) == [ids[2]])
            #expect(state.operations.first?.payload == .object(["text": .string("three")]))
            #expect(state.uploads.filter { $0.requestId == ids[2] }.count == 1)
            #expect(state.requests.allSatisfy { $0.requestId == ids[2] }, "nothing of the first two was sent")
        }
    }

    @Test func anUpdateThatGotA503IsNotReplacedAndTheEngineGetsBothInOrder() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let update = ["--type", "note.update", "--entity", "note:1", "--lww", "--payload"]
            let first = try Self.op(store, update + [#"{"text":"one"}"#])
            try await engine.inject([
                "mode": "status", "status": 503, "method": "POST", "path_prefix": "/v1/operations",
            ])
            let failed = try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString])
            #expect(failed.status == 1)
            let result = try OutboxProcess.run(["--store", store, "op"] + update + [#"{"text":"two"}"#])
            #expect(result.standardError.isEmpty, "nothing was replaced")
            let second = try #require(result.lines.first)
            #expect(try Self.listed(store).map { $0["blockedBy"] as? String } == [nil, first])
            let drained = try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString])
            #expect(drained.lines == [first, second])
            #expect(try await engine.state().operations.map(\.requestId) == [first, second])
        }
    }

    @Test func aPayloadThatIsNotJSONIsRefusedWithExit1AndNothingIsQueued() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let result = try OutboxProcess.run([
                "--store", store, "op", "--type", "note.update", "--payload", "{\"text\":",
            ])
            #expect(result.status == 1)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.hasPrefix("outbox: error: The payload is not valid JSON"))
            let missing = try OutboxProcess.run([
                "--store", store, "op", "--type", "note.update", "--attach", folder.appendingPathComponent("gone").path,
            ])
            #expect(missing.status == 1)
            #expect(missing.standardError.contains("gone' cannot be read"))
            #expect(try Self.listed(store).isEmpty)
            #expect(try mediaFileNames(in: URL(fileURLWithPath: store)).isEmpty)
        }
    }

    @Test(arguments: [
        (
            ["op"], "Error: Missing expected option '--type <type>'"
        ),
        (
            ["op", "--type", "note update"],
            "Error: The value 'note update' is invalid for '--type <type>': it must be 1 to 64 letters, digits, '.', '-' or '_', starting with a letter"
        ),
    ])
    func aMissingOrBadTypeIsAUsageError(arguments: [String], message: String) throws {
        let result = try OutboxProcess.run(["--store", "s"] + arguments)
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix(message + "\nUsage: outbox --store <folder> op --type <type> "))
    }

    /// The attachments are uploaded first, each with its own media type, and the engine's record
    /// lists them.
    @Test func attachmentsAreUploadedFirstWithTheirOwnType() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let photo = Fixtures.corpus.appendingPathComponent("no-exif.jpg")
            let memo = folder.appendingPathComponent("memo.m4a")
            try Data(repeating: 3, count: 5000).write(to: memo)
            let id = try Self.op(
                store,
                [
                    "--type", "memo.create", "--payload", "\"spoken on a trail\"", "--attach", photo.path, "--attach",
                    memo.path,
                ])
            #expect(
                try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString]).lines == [id])
            let state = try await engine.state()
            #expect(state.requests(about: id).map(\.method) == ["POST", "PATCH", "POST", "PATCH", "POST"])
            let record = try #require(state.operation(id))
            #expect(record.payload == .string("spoken on a trail"))
            #expect(record.media.map(\.byteCount) == [try Data(contentsOf: photo).count, 5000])
            #expect(
                state.uploads.filter { $0.requestId == id }.map(\.sha256OnDisk)
                    == [try Data(contentsOf: photo), try Data(contentsOf: memo)].map { Cryptography.sha256Hex(of: $0) })
        }
    }
}

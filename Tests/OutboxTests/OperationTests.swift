import Foundation
import Testing

@testable import Outbox

/// Operations of any type: what one holds, the order per entity, compaction of what was never
/// sent, and entries of types this build does not know.
@Suite("Operations")
struct OperationTests {
    static func outbox(_ folder: URL, clock: TestClock = TestClock()) throws -> Outbox {
        try Outbox(folder: folder, configuration: clock.configuration())
    }

    // MARK: What an operation holds

    @Test func anOperationKeepsItsPayloadByteForByteAndItsAttachments() async throws {
        try await withTemporaryFolder { folder in
            let payload = #"{ "z": 1.50, "a": [true, null], "big": 123456789012345678901234567890 }"#
            let memo = OperationAttachment(data: Data(repeating: 7, count: 3000), contentType: "audio/mp4")
            let operation = try makeOperation(
                id: "note-1", entity: "note:42", type: "note.append", payload: payload, attachments: [memo])
            do { try await Self.outbox(folder).enqueue(operation) }
            let entry = try #require(try await Self.outbox(folder).entry(id: "note-1"))
            #expect(entry.payload == Data(payload.utf8))
            #expect((entry.entity, entry.type, entry.version) == ("note:42", "note.append", 1))
            #expect(entry.media == operation.media)
            #expect(entry.media.first?.contentType == "audio/mp4" && entry.media.first?.width == nil)
            let file = try #require(entry.ownedMedia.first)
            #expect(file.name.hasSuffix(".bin"))
            #expect(try Data(contentsOf: folder.appendingPathComponent("media/\(file.name)")) == memo.data)
        }
    }

    @Test func aCodablePayloadIsJSONWithSortedKeysAndISODates() throws {
        struct Edit: Codable, Equatable {
            var text: String
            var at: Date
        }
        let edit = Edit(text: "gate", at: Date(timeIntervalSince1970: 1_714_478_525))
        let operation = try OutboxOperation(id: "note-1", entity: "note:1", type: "note.update", payload: edit)
        #expect(String(decoding: operation.payload, as: UTF8.self) == #"{"at":"2024-04-30T12:02:05Z","text":"gate"}"#)
    }

    @Test(arguments: [
        ("{\"a\":", "its payload is not valid JSON"),
        ("{} {}", "its payload is not valid JSON"),
        ("", "its payload is not valid JSON"),
    ])
    func aPayloadThatIsNotOneJSONValueIsRefused(payload: String, reason: String) {
        #expect(throws: OutboxError.request(.invalidOperation(id: "note-1", reason: reason))) {
            try makeOperation(id: "note-1", entity: nil, payload: payload)
        }
    }

    @Test func whatCannotBeAnOperationIsRefusedNamingTheRule() throws {
        let longEntity = String(repeating: "n", count: 257)
        for (entity, type, version) in [
            ("", "note.update", 1), (longEntity, "note.update", 1), ("note\n42", "note.update", 1),
            ("note:1", "9lives", 1), ("note:1", "note update", 1), ("note:1", "note.update", 0),
        ] {
            #expect(throws: OutboxError.self) {
                try OutboxOperation(
                    id: "note-1", entity: entity, type: type, version: version, payloadJSON: Data("{}".utf8))
            }
        }
        let huge =
            Data("\"".utf8) + Data(repeating: UInt8(ascii: "x"), count: OutboxOperation.largestPayload)
            + Data("\"".utf8)
        #expect(throws: OutboxError.self) { try OutboxOperation(id: "note-1", type: "note.update", payloadJSON: huge) }
        #expect(throws: OutboxError.self) {
            try OutboxOperation(
                id: "note-1", type: "note.update", payloadJSON: Data("{}".utf8),
                attachments: [OperationAttachment(data: Data(), contentType: "a memo")])
        }
    }

    @Test func aTypeTheConfigurationDoesNotDeclareCannotBeQueued() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            await #expect(throws: OutboxError.request(.unknownOperationType(type: "memo.create", version: 1))) {
                try await outbox.enqueue(try makeOperation(id: "memo-1", entity: nil, type: "memo.create"))
            }
            await #expect(throws: OutboxError.request(.unknownOperationType(type: "note.update", version: 2))) {
                try await outbox.enqueue(
                    try OutboxOperation(id: "note-1", type: "note.update", version: 2, payloadJSON: Data("{}".utf8)))
            }
            #expect(try await outbox.list().entries.isEmpty)
        }
    }

    /// Written by a newer build that knows version 2 and another type; read by this one, which
    /// knows version 1 only: both are kept, counted, never sent, and what comes after them on
    /// their entity waits. Once a build that knows them opens the store, they go.
    @Test func anOperationOfATypeOrVersionThisBuildDoesNotKnowIsKeptAndNeverSent() async throws {
        try await withTemporaryFolder { folder in
            let newer = Outbox.Configuration(
                operationTypes: TestTypes.all + [
                    OperationType("note.update", versions: 1...2), OperationType("memo.create"),
                ])
            do {
                let outbox = try Outbox(folder: folder, configuration: newer)
                try await outbox.enqueue(
                    try OutboxOperation(
                        id: "note-1", entity: "note:1", type: "note.update", version: 2, payloadJSON: Data("{}".utf8),
                        attachments: [OperationAttachment(data: Data([1, 2]), contentType: "audio/mp4")]))
                try await outbox.enqueue(try makeOperation(id: "memo-1", entity: nil, type: "memo.create"))
            }
            let outbox = try Self.outbox(folder)
            try await outbox.enqueue(try makeOperation(id: "note-2", entity: "note:1", type: "note.append"))
            let listing = try await outbox.list()
            #expect(listing.unreadable.map(\.id) == ["note-1", "memo-1"])
            #expect(
                listing.unreadable.map(\.reason) == [
                    "its operation 'note.update' is version 2, and this app knows version 1",
                    "its operation 'memo.create' is not one this app knows",
                ])
            #expect(listing.entries.map(\.id) == ["note-2"])
            #expect(listing.entries.first?.blockedBy == "note-1")
            let transport = ScriptedTransport()
            _ = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs.isEmpty)
            #expect(try mediaFileNames(in: folder).count == 1, "its attachment is kept")

            let upgraded = try Outbox(folder: folder, configuration: newer)
            let later = ScriptedTransport()
            _ = try await upgraded.drainNow(using: later)
            #expect(await later.sentIDs == ["note-1", "memo-1", "note-2"])
        }
    }

    // MARK: Order per entity

    /// The issue's proof: a 422 parks A's first operation; A's second is not sent and shows
    /// blockedBy; B's operation and one without an entity go; after discarding A's first, A's
    /// second goes.
    @Test func aParkedOperationHoldsBackItsEntityAndNothingElse() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            for (id, entity) in [("a-1", "note:A"), ("a-2", "note:A"), ("b-1", "note:B"), ("c-1", nil)] {
                try await outbox.enqueue(try makeOperation(id: id, entity: entity, type: "note.append"))
            }
            let transport = ScriptedTransport([.http(status: 422, detail: "text too long")])
            let report = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs == ["a-1", "b-1", "c-1"])
            #expect(report.parked == ["a-1"])
            #expect(report.synced == ["b-1", "c-1"])
            #expect(report.halt == nil)

            let waiting = try #require(try await outbox.entry(id: "a-2"))
            #expect(waiting.state == .queued)
            #expect(waiting.blockedBy == "a-1")
            #expect(waiting.status == .blocked(behind: "a-1"))
            #expect(try await outbox.list().entries.map(\.blockedBy) == [nil, "a-1", nil, nil])
            await #expect(throws: OutboxError.entry(.blockedBehind(id: "a-2", blockedBy: "a-1", entity: "note:A"))) {
                try await outbox.sendNow(id: "a-2", using: transport)
            }
            let stillWaiting = ScriptedTransport()
            _ = try await outbox.drainNow(using: stillWaiting)
            #expect(await stillWaiting.sentIDs.isEmpty, "asking does not jump the order either")

            try await outbox.discard(id: "a-1")
            let after = ScriptedTransport()
            #expect(try await outbox.drain(using: after).synced == ["a-2"])
            #expect(await after.sentIDs == ["a-2"])
        }
    }

    @Test func sendingTheParkedOneAgainSendsTheRestOfItsEntityAfterIt() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            for id in ["a-1", "a-2", "a-3"] {
                try await outbox.enqueue(try makeOperation(id: id, entity: "note:A", type: "note.append"))
            }
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 422)]))
            let transport = ScriptedTransport()
            let report = try await outbox.sendNow(id: "a-1", using: transport)
            #expect(await transport.sentIDs == ["a-1", "a-2", "a-3"])
            #expect(report.synced == ["a-1", "a-2", "a-3"])
        }
    }

    @Test func anOperationBackingOffHoldsBackItsEntityWhileOthersGoOn() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Self.outbox(folder, clock: clock)
            for (id, entity) in [("a-1", "note:A"), ("a-2", "note:A"), ("b-1", "note:B"), ("c-1", nil)] {
                try await outbox.enqueue(try makeOperation(id: id, entity: entity, type: "note.append"))
            }
            // The 503 stops the pass: the engine is struggling. Its backoff is 1.5 s here.
            let failing = ScriptedTransport([.http(status: 503)])
            #expect(try await outbox.drain(using: failing).halt == .transientFailure(id: "a-1", reason: "HTTP 503"))
            #expect(await failing.sentIDs == ["a-1"])
            let due = clock.now.addingTimeInterval(1.5)
            #expect(try await outbox.entry(id: "a-2")?.blockedBy == "a-1")
            #expect(try await outbox.entry(id: "a-1")?.status == .retrying(at: due))

            let next = ScriptedTransport()
            let report = try await outbox.drain(using: next)
            #expect(await next.sentIDs == ["b-1", "c-1"])
            #expect(report.halt == .waitingToRetry(id: "a-1", until: due))
            #expect(report.retryAt == due)

            clock.advance(by: 1.5)
            let onTime = ScriptedTransport()
            #expect(try await outbox.drain(using: onTime).synced == ["a-1", "a-2"])
        }
    }

    /// A `Retry-After` is the engine's word for everything, not for one entity: automatic passes
    /// send nothing until it has passed; a pass someone asks for does.
    @Test func aRetryAfterFromTheEngineHoldsBackEveryEntityUntilItPasses() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Self.outbox(folder, clock: clock)
            for (id, entity) in [("a-1", "note:A"), ("b-1", "note:B"), ("c-1", nil)] {
                try await outbox.enqueue(try makeOperation(id: id, entity: entity, type: "note.append"))
            }
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 429, retryAfter: "60")]))
            let early = ScriptedTransport()
            let report = try await outbox.drain(using: early)
            #expect(await early.sentIDs.isEmpty)
            #expect(report.halt == .waitingToRetry(id: "a-1", until: clock.now.addingTimeInterval(60)))
            clock.advance(by: 30)
            let asked = ScriptedTransport()
            // a-1 still backs off, so it goes after the others.
            #expect(try await outbox.drainNow(using: asked).synced == ["b-1", "c-1", "a-1"])
        }
    }

    /// While A's first operation is in flight in one drain, a drain in another process (another
    /// outbox on the folder) does not send A's second, and the listing shows it waiting.
    @Test func anOperationInFlightHoldsBackItsEntityInEveryProcess() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            let sibling = try Self.outbox(folder)
            for (id, entity) in [("a-1", "note:A"), ("a-2", "note:A"), ("b-1", "note:B")] {
                try await outbox.enqueue(try makeOperation(id: id, entity: entity, type: "note.append"))
            }
            let siblingSent = Recorder<[String]>()
            let listed = Recorder<[String?]>()
            let transport = ScriptedTransport(duringSend: { delivery in
                guard delivery.id == "a-1" else { return }
                listed.append(try await sibling.list().entries.map(\.blockedBy))
                let other = ScriptedTransport()
                _ = try await sibling.drain(using: other)
                siblingSent.append(await other.sentIDs)
            })
            let report = try await outbox.drain(using: transport)
            #expect(listed.elements == [[nil, "a-1", nil]])
            #expect(siblingSent.elements == [["b-1"]])
            #expect(report.synced == ["a-1", "a-2"])
        }
    }

    // MARK: Compaction

    /// The issue's proof: three updates never attempted go as one, the last; the replaced
    /// ones' attachments are deleted with them.
    @Test func threeUpdatesNeverAttemptedGoAsOneTheLast() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            let sketch = OperationAttachment(data: Data(repeating: 1, count: 100), contentType: "image/png")
            var results: [EnqueueResult] = []
            for (number, attachments) in [(1, [sketch]), (2, [sketch]), (3, [])] {
                results.append(
                    try await outbox.enqueue(
                        try makeOperation(
                            id: "u-\(number)", entity: "note:1", payload: #"{"text":"draft \#(number)"}"#,
                            attachments: attachments)))
            }
            #expect(results == [.enqueued, .replaced(earlier: "u-1"), .replaced(earlier: "u-2")])
            #expect(try await outbox.list().entries.map(\.id) == ["u-3"])
            #expect(try mediaFileNames(in: folder).isEmpty, "the replaced updates' files are gone")
            let transport = ScriptedTransport()
            #expect(try await outbox.drain(using: transport).synced == ["u-3"])
            #expect(
                await transport.deliveries.map { String(decoding: $0.payload, as: UTF8.self) } == [
                    #"{"text":"draft 3"}"#
                ])
        }
    }

    /// The issue's proof: an update that got a 503 may be at the engine, so a later one is not
    /// compacted into it: the engine receives both, in order.
    @Test func anUpdateThatWasAttemptedIsNotCompactedAndBothGoInOrder() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await outbox.enqueue(try makeOperation(id: "u-1", entity: "note:1", payload: #"{"text":"one"}"#))
            let failing = ScriptedTransport([.http(status: 503)])
            _ = try await outbox.drain(using: failing)
            #expect(try await outbox.enqueue(try makeOperation(id: "u-2", entity: "note:1")) == .enqueued)
            #expect(try await outbox.list().entries.map(\.id) == ["u-1", "u-2"])
            #expect(try await outbox.entry(id: "u-2")?.blockedBy == "u-1")
            let transport = ScriptedTransport()
            #expect(try await outbox.drainNow(using: transport).synced == ["u-1", "u-2"])
            #expect(await failing.sentIDs + transport.sentIDs == ["u-1", "u-1", "u-2"])
        }
    }

    /// A send that was cancelled counts no attempt, but it may have reached the engine: the
    /// update is not compacted either.
    @Test func anUpdateWhoseSendWasCancelledIsNotCompacted() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await outbox.enqueue(try makeOperation(id: "u-1", entity: "note:1"))
            let drain = Task {
                try await outbox.drain(
                    using: ScriptedTransport(duringSend: { _ in
                        withUnsafeCurrentTask { $0?.cancel() }
                        throw CancellationError()
                    }))
            }
            await #expect(throws: CancellationError.self) { try await drain.value }
            #expect(try await outbox.entry(id: "u-1")?.attempts == 0)
            #expect(try await outbox.enqueue(try makeOperation(id: "u-2", entity: "note:1")) == .enqueued)
            #expect(try await outbox.list().entries.map(\.id) == ["u-1", "u-2"])
        }
    }

    /// The issue's proof: with another operation of the entity between them, two updates are
    /// not compacted (the one between must reach the engine after the first and before the
    /// second); nor are updates of other entities or operations of a type that is not
    /// last-write-wins.
    @Test func anUpdateWithAnotherOperationOfItsEntityBetweenIsNotCompacted() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            let queued: [(String, String?, String)] = [
                ("u-1", "note:1", "note.update"), ("a-1", "note:1", "note.append"), ("u-2", "note:1", "note.update"),
                ("u-3", "note:2", "note.update"), ("a-2", "note:3", "note.append"), ("a-3", "note:3", "note.append"),
                ("u-4", nil, "note.update"), ("u-5", nil, "note.update"),
            ]
            for (id, entity, type) in queued {
                #expect(try await outbox.enqueue(try makeOperation(id: id, entity: entity, type: type)) == .enqueued)
            }
            #expect(try await outbox.list().entries.map(\.id) == queued.map(\.0))
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs == queued.map(\.0))
        }
    }

    @Test func aParkedOrDeliveredUpdateIsNeverReplaced() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await outbox.enqueue(try makeOperation(id: "u-1", entity: "note:1"))
            try await outbox.enqueue(try makeOperation(id: "u-9", entity: "note:9"))
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 422), .http(status: 200)]))
            #expect(try await outbox.enqueue(try makeOperation(id: "u-2", entity: "note:1")) == .enqueued)
            #expect(try await outbox.enqueue(try makeOperation(id: "u-10", entity: "note:9")) == .enqueued)
            #expect(try await outbox.list().entries.map(\.id) == ["u-1", "u-9", "u-2", "u-10"])
        }
    }
}

import Foundation
import Testing

@testable import Outbox

/// Each change of an entry's status is told once, by a `stateChanged`: its first status after
/// `added`, the entries of an entity let go when the one in front of them is delivered or
/// discarded, and none twice (a resend of lost uploads, `markSynced` again, a change of network
/// for an entry that waits behind another). `Tests/EngineTests/EventReplayTests.swift` replays a
/// whole day of them against the reference engine.
@Suite("Status events")
struct StatusEventTests {
    /// Photo captures on Wi-Fi only; notes on any network, and note photos on Wi-Fi only.
    static func configuration() -> Outbox.Configuration {
        var configuration = TestClock().configuration()
        configuration.operationTypes = [
            OperationType.captureCreate.sent(on: .unmetered), TestTypes.noteAppend,
            OperationType("note.photo", network: .unmetered),
        ]
        return configuration
    }

    /// An outbox holding three edits of one note, queued in order, and the log of its events
    /// from then on.
    static func threeEdits(in folder: URL) async throws -> (Outbox, EventLog) {
        let outbox = try Outbox(folder: folder, configuration: configuration())
        for number in 1...3 {
            try await outbox.enqueue(makeOperation(id: "edit-\(number)", entity: "note:A", type: "note.append"))
        }
        return (outbox, EventLog(outbox))
    }

    /// Expects the events about entries to be exactly `expected`, and no more a moment after
    /// they came (a status told twice comes right after the first).
    static func expectTold(
        _ expected: [OutboxEvent], in log: EventLog, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(await log.wait { _ in log.aboutEntries.count >= expected.count }, sourceLocation: sourceLocation)
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.aboutEntries == expected, sourceLocation: sourceLocation)
    }

    @Test func eachEntryQueuedIsToldWhereItStandsRightAfterItsAdded() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration())
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            let log = EventLog(outbox)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.write { transaction in
                try transaction.enqueue(makeOperation(id: "edit-1", entity: "note:A", type: "note.append"))
                try transaction.enqueue(makeOperation(id: "edit-2", entity: "note:A", type: "note.append"))
            }
            let expected: [OutboxEvent] = [
                .added(id: "plate-1", replacing: nil),
                .stateChanged(id: "plate-1", status: .waitingForNetwork(.unmetered), reason: nil),
                .added(id: "edit-1", replacing: nil), .stateChanged(id: "edit-1", status: .pending, reason: nil),
                .added(id: "edit-2", replacing: nil),
                .stateChanged(id: "edit-2", status: .blocked(behind: "edit-1"), reason: nil),
            ]
            try await Self.expectTold(expected, in: log)
        }
    }

    @Test func markSyncedTellsOnceAndLetsTheEntityGoOn() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, log) = try await Self.threeEdits(in: folder)
            try await outbox.markSynced(id: "edit-1")
            try await outbox.markSynced(id: "edit-1")
            try await outbox.markSynced(id: "edit-3")  // behind edit-2: the others stay as they are
            let expected: [OutboxEvent] = [
                .stateChanged(id: "edit-1", status: .delivered, reason: nil),
                .stateChanged(id: "edit-2", status: .pending, reason: nil),
                .stateChanged(id: "edit-3", status: .blocked(behind: "edit-2"), reason: nil),
                .stateChanged(id: "edit-3", status: .delivered, reason: nil),
            ]
            try await Self.expectTold(expected, in: log)
        }
    }

    @Test func aDeliveryLetsEveryEntryBehindItGoOnBehindTheNext() async throws {
        try await withTemporaryFolder { folder in
            let (outbox, log) = try await Self.threeEdits(in: folder)
            // The second send fails (503), which stops the pass.
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 200), .http(status: 503)]))
            let entries = try await outbox.list().entries
            // Notes have no bytes to upload: they go from pending to where the send left them,
            // never shown sending (`DeliveryReporter.progress(bytesSent:)`).
            let expected: [OutboxEvent] = [
                .stateChanged(id: "edit-1", status: .delivered, reason: nil),
                .stateChanged(id: "edit-2", status: .pending, reason: nil),
                .stateChanged(id: "edit-3", status: .blocked(behind: "edit-2"), reason: nil),
                .stateChanged(id: "edit-2", status: entries[1].status, reason: "HTTP 503"),
            ]
            try await Self.expectTold(expected, in: log)
        }
    }

    @Test func uploadsSentAgainTellEachStepOnce() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration())
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let log = EventLog(outbox)
            let transport = ScriptedTransport(
                [.uploadsNotHeld(code: "upload_missing", detail: "restored"), .http(status: 200)], landsUploads: true)
            #expect(try await outbox.drain(using: transport).synced == ["plate-1"])
            let expected: [OutboxEvent] = [
                .stateChanged(id: "plate-1", status: .sending, reason: nil),
                .stateChanged(id: "plate-1", status: .pending, reason: nil),
                .stateChanged(id: "plate-1", status: .sending, reason: nil),
                .stateChanged(id: "plate-1", status: .delivered, reason: nil),
            ]
            try await Self.expectTold(expected, in: log)
        }
    }

    @Test func aNetworkChangeTellsNothingOfAnEntryThatWaitsBehindAnother() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration())
            try await outbox.enqueue(makeOperation(id: "text-1", entity: "note:A", type: "note.append"))
            try await outbox.enqueue(makeOperation(id: "photo-1", entity: "note:A", type: "note.photo"))
            try await outbox.enqueue(makeOperation(id: "photo-2", entity: nil, type: "note.photo"))
            let log = EventLog(outbox)
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            await outbox.connectivityChanged(isReachable: true, network: .unmetered)
            let expected: [OutboxEvent] = [
                .stateChanged(id: "photo-2", status: .waitingForNetwork(.unmetered), reason: nil),
                .stateChanged(id: "photo-2", status: .pending, reason: nil),
            ]
            try await Self.expectTold(expected, in: log)  // not photo-1, blocked behind text-1 either way
        }
    }

    @Test func anEntryASendThatDiedLeftIsToldBackInTheQueueBeforeItIsSent() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration())
            try await outbox.enqueue(makeOperation(id: "edit-1", entity: nil, type: "note.append"))
            // Another process claimed it and died.
            try withRawDatabase(in: folder) { try $0.run("UPDATE outbox_entries SET state = 'SYNCING'") }
            let log = EventLog(outbox)
            _ = try await outbox.drain(using: ScriptedTransport())
            let expected: [OutboxEvent] = [
                .stateChanged(id: "edit-1", status: .pending, reason: nil),
                .stateChanged(id: "edit-1", status: .delivered, reason: nil),
            ]
            try await Self.expectTold(expected, in: log)
        }
    }
}

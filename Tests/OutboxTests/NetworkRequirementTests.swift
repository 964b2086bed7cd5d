import Foundation
import Testing

@testable import Outbox

/// Operation types that may use only some networks: photos on Wi-Fi, notes on any. What waits
/// for its network is not sent, uses no retry, keeps its entity's order, and says so in the
/// listing, the snapshot and the events.
@Suite("Network requirements")
struct NetworkRequirementTests {
    /// Photo captures and "note.photo" only on Wi-Fi; "note.saver" anywhere but in Low Data Mode;
    /// note updates and appends on any network.
    static let wifiOnlyPhotos = OperationType.captureCreate.sent(on: .unmetered)
    static let notePhoto = OperationType("note.photo", network: .unmetered)
    static let noteSaver = OperationType(
        "note.saver", network: NetworkRequirement(allowsExpensive: true, allowsConstrained: false))
    static let constrained = NetworkPath(isExpensive: false, isConstrained: true)

    static func configuration(_ clock: TestClock, retryLimit: Int = 8) -> Outbox.Configuration {
        var configuration = clock.configuration(backoff: Backoff(automaticRetryLimit: retryLimit))
        configuration.operationTypes = [
            wifiOnlyPhotos, TestTypes.noteUpdate, TestTypes.noteAppend, notePhoto, noteSaver,
        ]
        return configuration
    }

    @Test func onAMeteredNetworkNotesGoAndPhotosWaitForWiFiUntilItComes() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(clock))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: "note:1", type: "note.append"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            await outbox.connectivityChanged(isReachable: true, network: .metered)

            let transport = ScriptedTransport()
            let report = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs == ["note-1"])
            #expect(report.synced == ["note-1"])
            #expect(report.waitingForNetwork == ["plate-1", "plate-2"])
            #expect(report.halt == nil)

            let waiting = try await outbox.list().entries.filter { $0.state == .queued }
            #expect(waiting.map(\.id) == ["plate-1", "plate-2"])
            #expect(waiting.allSatisfy { $0.status == .waitingForNetwork(.unmetered) && $0.attempts == 0 })
            #expect(waiting.first?.waitsForNetwork?.awaitedNetwork == "Wi-Fi")
            let snapshot = try await outbox.snapshot()
            #expect(snapshot.waitingForNetworkCount == 2 && snapshot.network == .metered)
            #expect(
                snapshot.items.filter { $0.status == .waitingForNetwork(.unmetered) }.map(\.id) == [
                    "plate-1", "plate-2",
                ])

            await outbox.connectivityChanged(isReachable: true, network: .unmetered)
            #expect(try await outbox.entry(id: "plate-1")?.status == .pending)
            let later = try await outbox.drainNow(using: transport)
            #expect(later.synced == ["plate-1", "plate-2"] && later.waitingForNetwork.isEmpty)
            #expect(await transport.sentIDs == ["note-1", "plate-1", "plate-2"])
        }
    }

    @Test func waitingForItsNetworkUsesUpNoRetryHoweverManyPassesGoBy() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(clock, retryLimit: 2))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            let transport = ScriptedTransport()
            for _ in 0..<20 {
                _ = try await outbox.drain(using: transport)
                clock.advance(by: 3600)
            }
            #expect(await transport.deliveries.isEmpty)
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.attempts == 0 && !entry.isWaitingForSendNow && entry.nextAttemptAt == nil)
            #expect(entry.retry.transientFailures == 0)
        }
    }

    @Test func anEntityKeepsItsOrderWhileItsFirstOperationWaitsForWiFi() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeOperation(id: "photo-1", entity: "note:1", type: "note.photo"))
            try await outbox.enqueue(makeOperation(id: "edit-1", entity: "note:1", type: "note.append"))
            try await outbox.enqueue(makeOperation(id: "edit-2", entity: "note:2", type: "note.append"))
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            let transport = ScriptedTransport()
            _ = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs == ["edit-2"])
            let entries = try await outbox.list().entries
            #expect(entries.first { $0.id == "photo-1" }?.status == .waitingForNetwork(.unmetered))
            #expect(entries.first { $0.id == "edit-1" }?.status == .blocked(behind: "photo-1"))

            await outbox.connectivityChanged(isReachable: true)
            _ = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs == ["edit-2", "photo-1", "edit-1"])
        }
    }

    @Test func lowDataModeHoldsWhatMayNotUseItAndNothingElse() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeOperation(id: "saver-1", entity: nil, type: "note.saver"))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: nil, type: "note.append"))
            let transport = ScriptedTransport()
            // Metered without Low Data Mode: the saver goes, the photo waits.
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            _ = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs == ["saver-1", "note-1"])
            try await outbox.enqueue(makeOperation(id: "saver-2", entity: nil, type: "note.saver"))
            // Wi-Fi in Low Data Mode: the saver and the photo wait, each for its own reason.
            await outbox.connectivityChanged(isReachable: true, network: Self.constrained)
            let report = try await outbox.drainNow(using: transport)
            #expect(report.waitingForNetwork == ["plate-1", "saver-2"])
            let saver = try #require(try await outbox.entry(id: "saver-2"))
            #expect(saver.waitsForNetwork?.awaitedNetwork == "a network outside Low Data Mode")
            #expect(try await outbox.entry(id: "plate-1")?.waitsForNetwork?.awaitedNetwork == "Wi-Fi")
        }
    }

    @Test func sendNowOfAnEntryThatWaitsForItsNetworkSaysSoAndSendsNothing() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            let transport = ScriptedTransport()
            let error = await #expect(throws: OutboxError.self) {
                try await outbox.sendNow(id: "plate-1", using: transport)
            }
            #expect(
                error?.localizedDescription
                    == "The entry 'plate-1' waits for Wi-Fi: operations 'capture.create' are not sent on a metered"
                    + " network, and the device is on one. It goes once it is on Wi-Fi.")
            #expect(await transport.deliveries.isEmpty)
        }
    }

    @Test func theEventsTellEachEntryThatANetworkChangeHoldsOrLetsGo() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: nil, type: "note.append"))
            let log = EventLog(outbox)
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            await outbox.connectivityChanged(isReachable: true, network: .unmetered)
            let expected: [OutboxEvent] = [
                .stateChanged(id: "plate-1", status: .waitingForNetwork(.unmetered), reason: nil),
                .stateChanged(id: "plate-1", status: .pending, reason: nil),
            ]
            #expect(await log.wait { $0.count >= 2 })
            #expect(log.aboutEntries == expected, "the note, which may go on any network, is not told")
        }
    }

    @Test func theSchedulerSendsWhatWaitedOnceWiFiComes() async throws {
        try await withTemporaryFolder { folder in
            let clock = ManualClock()
            var configuration = clock.configuration()
            configuration.operationTypes = [Self.wifiOnlyPhotos]
            let outbox = try Outbox(folder: folder, configuration: configuration)
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            let log = EventLog(outbox)
            let transport = ScriptedTransport()
            try await outbox.start(transport: transport, schedule: clock.schedule())
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            #expect(await log.waitForPasses(2))
            #expect(await transport.deliveries.isEmpty)
            await outbox.connectivityChanged(isReachable: true, network: .unmetered)
            #expect(await log.waitForPasses(3))
            #expect(log.passTriggers.last == .connectivity)
            #expect(await transport.sentIDs == ["plate-1"])
            await outbox.stop()
        }
    }

    @Test func theTransportIsToldTheNetworksOfEachEntrysType() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: nil, type: "note.append"))
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            #expect(await transport.deliveries.map(\.network) == [.unmetered, .any])
        }
    }

    /// On Apple's platforms URLSession refuses a request that may not use the network it is on;
    /// the outbox then learns the network, returns the entry unsent and lets the others go.
    @Test func aTransportThatFindsTheNetworkRefusedReturnsTheEntryUnsentAndTheOutboxLearnsIt() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: nil, type: "note.append"))
            let transport = ScriptedTransport([.networkNotAllowed(path: .metered)])
            let report = try await outbox.drain(using: transport)
            #expect(
                await transport.sentIDs == ["plate-1", "note-1"], "plate-2 is not tried on the network just refused")
            #expect(report.waitingForNetwork == ["plate-1", "plate-2"])
            #expect(report.synced == ["note-1"])
            let plate = try #require(try await outbox.entry(id: "plate-1"))
            #expect(plate.attempts == 0 && plate.lastError == nil && plate.status == .waitingForNetwork(.unmetered))
        }
    }

    /// A transport that says the network is refused for an entry that may use any network
    /// would hold it for ever; it is a failure like any other, and counts towards its retries.
    @Test func aNetworkRefusedForAnEntryThatMayUseAnyIsAFailureThatCounts() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: Self.configuration(TestClock()))
            try await outbox.enqueue(makeOperation(id: "note-1", entity: nil, type: "note.append"))
            let transport = ScriptedTransport([.networkNotAllowed(path: .metered)])
            let report = try await outbox.drain(using: transport)
            #expect(report.synced.isEmpty && report.waitingForNetwork.isEmpty)
            let note = try #require(try await outbox.entry(id: "note-1"))
            #expect(note.attempts == 1 && note.retry.transientFailures == 1)
            #expect(note.lastError == "network error: the system would not send it over a metered network")
        }
    }
}

import Foundation
import Testing

@testable import Outbox

/// Sending: passes, outcomes, uploads and progress, coalescing.
@Suite("Drain")
struct DrainTests {
    @Test func aPassSendsInCaptureOrderNotInIDOrder() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                for id in ["c", "a", "b"] { try await outbox.enqueue(makeCapture(id: id)) }
            }
            let transport = ScriptedTransport()
            let report = try await Outbox(folder: folder).drain(using: transport)
            #expect(await transport.sentIDs == ["c", "a", "b"])
            #expect(report.synced == ["c", "a", "b"])
            #expect(report.halt == nil)
            #expect(report.passes == 1)
        }
    }

    @Test func uploadingEmptiesPendingMediaAndRetireThenDeletesTheOwnedFiles() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(
                    makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()]))
                _ = try await outbox.drain(using: ScriptedTransport(landsUploads: true))
            }
            let outbox = try Outbox(folder: folder)
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.state == .synced)
            #expect(entry.pendingMedia.isEmpty)
            #expect(entry.ownedMedia.count == 2)
            let files = entry.ownedMedia.map(outbox.url(of:))
            #expect(
                files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "sending uses up nothing it owns")

            #expect(try await outbox.retireSynced() == ["plate-1"])
            #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
            #expect(try await outbox.entry(id: "plate-1") == nil)
            #expect(try mediaFileNames(in: folder).isEmpty)
        }
    }

    @Test func aLandedUploadIsNotSentAgainAfterATransientFailureAndAReopen() async throws {
        struct LandsFirstUploadThenFails: Transport {
            func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
                try await reporter.uploadLanded(index: delivery.pendingUploads[0].index)
                return .http(status: 503)
            }
        }
        try await withTemporaryFolder { folder in
            let photos = [try Photos.landscape(), try Photos.portrait()]
            let clock = TestClock()
            do {
                let outbox = try Outbox(folder: folder, configuration: clock.configuration)
                try await outbox.enqueue(makeCapture(id: "plate-1", photos: photos))
                _ = try await outbox.drain(using: LandsFirstUploadThenFails())
            }
            clock.advance(by: 60)
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            #expect(try await outbox.entry(id: "plate-1")?.pendingMedia.map(\.index) == [1])
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            let delivery = try #require(await transport.deliveries.first)
            #expect(delivery.attempt == 2)
            #expect(delivery.pendingUploads.map(\.index) == [1])
            #expect(delivery.landedBytes == Int64(photos[0].upload.data.count))
            #expect(delivery.totalBytes == Int64(photos[0].upload.data.count + photos[1].upload.data.count))
        }
    }

    @Test func uploadProgressReachesTheApp() async throws {
        try await withTemporaryFolder { folder in
            let progress = Recorder<UploadProgress>()
            let configuration = Outbox.Configuration(onProgress: { progress.append($0) })
            let outbox = try Outbox(folder: folder, configuration: configuration)
            let photos = [try Photos.landscape(), try Photos.portrait()]
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: photos))
            _ = try await outbox.drain(using: ScriptedTransport(landsUploads: true))
            let first = Int64(photos[0].upload.data.count)
            let total = first + Int64(photos[1].upload.data.count)
            let only = QueuePosition(number: 1, count: 1)
            #expect(
                progress.elements == [
                    UploadProgress(id: "plate-1", bytesSent: first, totalBytes: total, position: only),
                    UploadProgress(id: "plate-1", bytesSent: total, totalBytes: total, position: only),
                ])
            #expect(progress.elements.last?.fractionCompleted == 1)
        }
    }

    @Test func theEntryInFlightIsSyncingAndItsAttemptIsCounted() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            let seen = Recorder<[OutboxEntry.State]>()
            let attempts = Recorder<Int>()
            let transport = ScriptedTransport(duringSend: { delivery in
                seen.append(try await outbox.list().entries.map(\.state))
                attempts.append(try await outbox.entry(id: delivery.id)?.attempts ?? -1)
            })
            _ = try await outbox.drain(using: transport)
            #expect(seen.elements == [[.syncing, .queued], [.synced, .syncing]])
            #expect(attempts.elements == [1, 1])
        }
    }

    @Test func aPermanentFailureParksOnlyThatEntryAndKeepsItsReasonForTheUI() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                try await outbox.enqueue(makeCapture(id: "plate-2"))
                let transport = ScriptedTransport([.http(status: 422, detail: "upload 0 has different bytes")])
                let report = try await outbox.drain(using: transport)
                #expect(report.parked == ["plate-1"])
                #expect(report.synced == ["plate-2"])
            }
            let entry = try #require(try await Outbox(folder: folder).entry(id: "plate-1"))
            #expect(entry.state == .failedNeedsAttention)
            #expect(entry.lastError == "HTTP 422: upload 0 has different bytes")
        }
    }

    @Test(arguments: [
        TransportResponse.networkError(detail: "connection reset"), .timedOut, .http(status: 429),
        .http(status: 502), .http(status: 503), .http(status: 504), .http(status: 409, retryAfter: "5"),
        .notConfirmed(status: 200, detail: "a login page"),
    ])
    func aTransientFailureAboutTheEngineOrTheNetworkPutsTheEntryBackAndStopsThePass(response: TransportResponse)
        async throws
    {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            let transport = ScriptedTransport([response])
            let report = try await outbox.drain(using: transport)
            #expect(report.halt == .transientFailure(id: "plate-1", reason: Outbox.reason(for: response)))
            #expect(await transport.sentIDs == ["plate-1"])
            #expect(try await outbox.list().entries.map(\.state) == [.queued, .queued])
        }
    }

    /// A 409 is about this entry's key, and one 500 alone may be this entry's: the entry backs
    /// off and the pass goes on; a second 500 with nothing confirmed between them stops it.
    @Test(arguments: [TransportResponse.http(status: 409), .http(status: 500)])
    func aTransientFailureAboutTheEntryLetsThePassGoOn(response: TransportResponse) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            for number in 1...3 { try await outbox.enqueue(makeCapture(id: "plate-\(number)")) }
            let transport = ScriptedTransport([response])
            let report = try await outbox.drain(using: transport)
            #expect(report.retrying == ["plate-1"])
            #expect(report.synced == ["plate-2", "plate-3"])
            #expect(try await outbox.entry(id: "plate-1")?.lastError == Outbox.reason(for: response))

            let outage = try Outbox(folder: folder.appendingPathComponent("outage"))
            for number in 1...3 { try await outage.enqueue(makeCapture(id: "plate-\(number)")) }
            let failing = ScriptedTransport([.http(status: 500), .http(status: 500)])
            let stopped = try await outage.drain(using: failing)
            #expect(stopped.halt == .transientFailure(id: "plate-2", reason: "HTTP 500"))
            #expect(await failing.sentIDs == ["plate-1", "plate-2"])
        }
    }

    @Test func aTransportThatThrowsCountsAsANetworkError() async throws {
        struct Unreachable: Error, CustomStringConvertible {
            var description: String { "no route to host" }
        }
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let report = try await outbox.drain(using: ScriptedTransport(duringSend: { _ in throw Unreachable() }))
            #expect(report.halt == .transientFailure(id: "plate-1", reason: "network error: no route to host"))
            #expect(try await outbox.entry(id: "plate-1")?.state == .queued)
        }
    }

    @Test func anAppCanRefineTheTable() async throws {
        try await withTemporaryFolder { folder in
            // This app's engine answers 405 while it restarts: retry rather than bother the user.
            let configuration = Outbox.Configuration(classifier: FailureClassifier(overrides: [405: .transient]))
            let outbox = try Outbox(folder: folder, configuration: configuration)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let report = try await outbox.drain(using: ScriptedTransport([.http(status: 405)]))
            #expect(report.halt == .transientFailure(id: "plate-1", reason: "HTTP 405"))
            #expect(try await outbox.entry(id: "plate-1")?.state == .queued)
        }
    }

    @Test func unreadableRecordsAreNeverSent() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
            }
            try withRawDatabase(in: folder) {
                try $0.run("INSERT INTO outbox_entries (id, intent) VALUES ('plate-0', 'not json')")
            }
            let outbox = try Outbox(folder: folder)
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs == ["plate-1"])
            #expect(try await outbox.list().unreadable.map(\.id) == ["plate-0"])
        }
    }

    @Test func anEntryDiscardedWhileInFlightIsNotReportedOrRevived() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let transport = ScriptedTransport(duringSend: { delivery in try await outbox.discard(id: delivery.id) })
            let report = try await outbox.drain(using: transport)
            #expect(report.synced.isEmpty)
            #expect(try await outbox.list().entries.isEmpty)
            #expect(try mediaFileNames(in: folder).isEmpty)
        }
    }

    @Test func drainsAskedForDuringAPassCauseExactlyOneMorePass() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let waiting = Recorder<Task<DrainReport, any Error>>()
            let followUp = ScriptedTransport()
            let first = ScriptedTransport(duringSend: { delivery in
                guard delivery.id == "plate-1" else { return }
                // The user saves another capture, and the app asks for a drain twice, while plate-1 is in flight.
                try await outbox.enqueue(makeCapture(id: "plate-2"))
                for _ in 0..<2 { waiting.append(Task { try await outbox.drain(using: followUp) }) }
                while await outbox.followUpWaiters.count < 2 { await Task.yield() }
            })
            let report = try await outbox.drain(using: first)
            #expect(report.passes == 2)
            for task in waiting.elements {
                let followUpReport = try await task.value
                #expect(followUpReport.passes == 1)
            }
            let sent = await first.sentIDs + followUp.sentIDs
            #expect(sent.sorted() == ["plate-1", "plate-2"], "each capture is sent once")
            #expect(try await outbox.list().entries.map(\.state) == [.synced, .synced])
            #expect(await outbox.isDraining == false)
        }
    }
}

@Suite("Failure classification")
struct FailureClassificationTests {
    @Test(arguments: [200, 201, 202, 204, 299])
    func twoHundredsAreDelivered(status: Int) {
        #expect(FailureClassifier().outcome(forStatus: status) == .delivered)
    }

    @Test(arguments: [401, 403, 408, 409, 425, 429, 500, 502, 503, 504, 599])
    func theseAreTransient(status: Int) {
        #expect(FailureClassifier().outcome(forStatus: status) == .transient)
    }

    @Test(arguments: [400, 404, 405, 410, 413, 415, 422, 451, 499])
    func otherFourHundredsArePermanent(status: Int) {
        #expect(FailureClassifier().outcome(forStatus: status) == .permanent)
    }

    @Test func networkErrorsAndTimeoutsAreTransient() {
        #expect(FailureClassifier().outcome(for: .networkError(detail: "offline")) == .transient)
        #expect(FailureClassifier().outcome(for: .timedOut) == .transient)
    }

    @Test func overridesWin() {
        let classifier = FailureClassifier(overrides: [405: .transient, 503: .permanent])
        #expect(classifier.outcome(forStatus: 405) == .transient)
        #expect(classifier.outcome(forStatus: 503) == .permanent)
        #expect(classifier.outcome(forStatus: 404) == .permanent)
    }
}

import Foundation
import Testing

@testable import Outbox

/// Progress a person can trust: never back after a cut, told at most once per whole percent,
/// and with the entry's place in the pass.
@Suite("Upload progress")
struct ProgressTests {
    /// Reports every byte of the entry up to `cutAt` of it, then, as a resumed upload does, from
    /// `resumeAt` (less: what the engine held) to the end, checking the snapshot on the way.
    actor CuttingTransport: Transport {
        let cutAt: Double
        let resumeAt: Double
        var snapshotAfterCut: UploadProgress?
        let outbox: @Sendable () async throws -> OutboxSnapshot

        init(cutAt: Double, resumeAt: Double, outbox: @escaping @Sendable () async throws -> OutboxSnapshot) {
            self.cutAt = cutAt
            self.resumeAt = resumeAt
            self.outbox = outbox
        }

        func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
            let total = delivery.totalBytes
            for byte in stride(from: Int64(0), through: Int64(Double(total) * cutAt), by: 1) {
                reporter.progress(bytesSent: byte)
            }
            reporter.progress(bytesSent: Int64(Double(total) * resumeAt))
            snapshotAfterCut = try await outbox().items.first { $0.id == delivery.id }?.progress
            for byte in stride(from: Int64(Double(total) * resumeAt), through: total, by: 1) {
                reporter.progress(bytesSent: byte)
            }
            for upload in delivery.pendingUploads { try await reporter.uploadLanded(index: upload.index) }
            return .http(status: 200)
        }
    }

    @Test func progressNeverStepsBackAfterACutAndIsToldOncePerPercent() async throws {
        try await withTemporaryFolder { folder in
            let told = Recorder<UploadProgress>()
            let outbox = try Outbox(
                folder: folder, configuration: Outbox.Configuration(onProgress: { told.append($0) }))
            let log = EventLog(outbox)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let transport = CuttingTransport(cutAt: 0.9, resumeAt: 0.4) { try await outbox.snapshot() }
            let report = try await outbox.drain(using: transport)
            #expect(report.synced == ["plate-1"])

            let sent = told.elements.map(\.bytesSent)
            let total = try #require(told.elements.first?.totalBytes)
            #expect(total > 10_000, "the photo has enough bytes for every percent to be told")
            #expect(sent == sent.sorted(), "progress never steps back")
            #expect(Set(sent).count == sent.count, "nothing is told twice")
            // Nothing is told before bytes move (a send that fails at once shows nothing).
            #expect(sent.first == 1 && sent.last == total)
            #expect(sent.count == 101, "each whole percent once the bytes move, nothing more: \(sent.count)")
            let ninety = Int64(Double(total) * 0.9)
            #expect(sent.contains { $0 > ninety }, "the resumed upload is told once it passes where it was")
            #expect(await transport.snapshotAfterCut?.bytesSent == ninety, "the snapshot holds where it was too")

            #expect(await log.wait { $0.count { if case .progress = $0 { true } else { false } } >= 101 })
            let events = log.all.compactMap { if case .progress(let progress) = $0 { progress } else { nil } }
            #expect(events.map(\.bytesSent) == Array(sent.prefix(events.count)))
        }
    }

    @Test func eachUploadSaysWhereItIsInThePass() async throws {
        try await withTemporaryFolder { folder in
            let told = Recorder<UploadProgress>()
            let outbox = try Outbox(
                folder: folder, configuration: Outbox.Configuration(onProgress: { told.append($0) }))
            for id in ["plate-1", "plate-2", "plate-3"] { try await outbox.enqueue(makeCapture(id: id)) }
            let seen = Recorder<UploadProgress?>()
            let transport = ScriptedTransport(
                landsUploads: true,
                duringSend: { delivery in
                    seen.append(try await outbox.snapshot().items.first { $0.id == delivery.id }?.progress)
                })
            _ = try await outbox.drain(using: transport)
            let positions = told.elements.map { "\($0.id) \($0.position)" }
            #expect(positions == ["plate-1 1 of 3", "plate-2 2 of 3", "plate-3 3 of 3"])
            #expect(seen.elements.map { $0?.position.description } == ["1 of 3", "2 of 3", "3 of 3"])
            #expect(seen.elements.allSatisfy { $0?.fractionCompleted == 1 })
        }
    }

    /// The count is what the pass may send: not what waits for its backoff in an automatic
    /// pass, for send-now, or for its network; and an entry whose uploads go again keeps its place.
    @Test func theCountLeavesOutWhatThePassWillNotSend() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let told = Recorder<UploadProgress>()
            var configuration = clock.configuration()
            configuration.onProgress = { told.append($0) }
            configuration.operationTypes = [.captureCreate, OperationType("note.photo", network: .unmetered)]
            let outbox = try Outbox(folder: folder, configuration: configuration)
            try await outbox.enqueue(makeCapture(id: "backing-off"))
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))
            try await outbox.enqueue(makeOperation(id: "wifi-only", entity: nil, type: "note.photo"))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            await outbox.connectivityChanged(isReachable: true, network: .metered)
            told.removeAll()
            let transport = ScriptedTransport(
                [.uploadsNotHeld(code: "upload_missing", detail: "restored"), .http(status: 200)], landsUploads: true)
            _ = try await outbox.drain(using: transport)
            #expect(Set(told.elements.map { "\($0.id) \($0.position)" }) == ["plate-1 1 of 2", "plate-2 2 of 2"])
        }
    }
}

import Foundation
import ImagePrep
import Outbox
import PhotoCapture
import PlatformLayer
import Testing

// This file imports the libraries as an app does (no `@testable`): it is an app's model layer
// written against the docs alone, and what it may not reach, it cannot.

/// An app's model layer written from the reference alone, against public API only: a pull to
/// refresh cancelled while it waits behind the scheduler's pass, and a queue view driven by
/// `Outbox.snapshots` alone through the scripted day (`ScriptedDay`).
@Suite("An app written against the docs alone")
struct DocsOnlyAppTests {
    /// A transport that holds each send until the test lets it go, and says when one began; a
    /// held send ends when its task is cancelled, as a network request does.
    final class HeldTransport: Transport {
        private let began: AsyncStream<String>.Continuation
        let sendsBegun: AsyncStream<String>
        private let released = Locked(false)
        private let sent = Locked<[String]>([])

        init() { (sendsBegun, began) = AsyncStream.makeStream(of: String.self) }

        var sentIDs: [String] { sent.withLock { $0 } }
        func release() { released.withLock { $0 = true } }

        func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
            began.yield(delivery.id)
            while !released.withLock({ $0 }) {
                try await Task.sleep(for: .milliseconds(5))
            }
            sent.withLock { $0.append(delivery.id) }
            return .http(status: 201)
        }
    }

    /// A pull to refresh that waits behind the scheduler's own pass, then cancelled: it throws
    /// `CancellationError` while that pass is still held (so it did not wait for it) and no extra
    /// pass runs for it. How long the cancel took is printed, not asserted: 1 ms alone here (the
    /// goal is 50 ms), seconds in a full suite on a busy machine, which is the test process's
    /// own load.
    @Test(.timeLimit(.minutes(2)))
    func aDrainWaitingBehindTheSchedulersPassIsCancelledAtOnce() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await Outbox.open(folder: folder.appendingPathComponent("outbox"))
            let transport = HeldTransport()
            var begun = transport.sendsBegun.makeAsyncIterator()
            _ = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: [try smallPhoto()])
            try await outbox.start(transport: transport)
            let first = await begun.next()
            #expect(first?.hasPrefix("plate-") == true, "the scheduler's pass holds the capture")

            let refresh = Task { try await outbox.drainNow() }
            // Not a timing assert: the outcome is the same whether it waits yet or not.
            try await Task.sleep(for: .milliseconds(200))
            let clock = ContinuousClock()
            let cancelledAt = clock.now
            refresh.cancel()
            await #expect(throws: CancellationError.self) { _ = try await refresh.value }
            let took = clock.now - cancelledAt
            #expect(transport.sentIDs.isEmpty, "the pass it waited behind is still held")
            print("DocsOnlyAppTests: the waiting drain ended \(took) after its cancel")

            transport.release()
            #expect(try await waitUntil { try await outbox.snapshot().items.isEmpty })
            await outbox.stop()
            #expect(transport.sentIDs.count == 1, "no extra pass ran for the cancelled refresh")
        }
    }

    /// A drain that runs the pass is cancelled while another waits behind it: the first throws
    /// `CancellationError` (its report comes in `drainCancelled`), and the second runs the pass
    /// itself and sends what the first put back.
    @Test(.timeLimit(.minutes(2)))
    func aWaitingDrainTakesOverWhenTheOneRunningThePassIsCancelled() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await Outbox.open(folder: folder.appendingPathComponent("outbox"))
            let events = outbox.events
            let id = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: [try smallPhoto()])
            let held = HeldTransport()
            var begun = held.sendsBegun.makeAsyncIterator()
            let running = Task { try await outbox.drainNow(using: held) }
            #expect(await begun.next() == id)
            let waiting = Task { try await outbox.drainNow(using: HeldTransport.releasedOne()) }
            try await Task.sleep(for: .milliseconds(200))
            running.cancel()
            await #expect(throws: CancellationError.self) { _ = try await running.value }
            let report = try await waiting.value
            #expect(report.synced == [id])
            for await event in events {
                guard case .drainCancelled(let cancelled) = event else { continue }
                #expect(cancelled.halt == .cancelled(id: id))
                break
            }
        }
    }

    /// The queue as a SwiftUI model keeps it: the latest value of `snapshots`, nothing else.
    final class SnapshotModel: Sendable {
        private let latest = Locked<OutboxSnapshot?>(nil)
        private let following: Task<Void, Never>

        init(_ outbox: Outbox) {
            let snapshots = outbox.snapshots
            let latest = latest
            following = Task { for await snapshot in snapshots { latest.withLock { $0 = snapshot } } }
        }

        deinit { following.cancel() }

        var snapshot: OutboxSnapshot? { latest.withLock { $0 } }
    }

    /// The scripted day (`ScriptedDay`), with the queue view fed by `snapshots` alone: after
    /// every step its latest snapshot is the outbox's own. The script's passes are counted from
    /// `events` by the test, not by the model.
    @Test(.timeLimit(.minutes(5)))
    func aViewDrivenBySnapshotsAloneFollowsTheScriptedDay() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try await Outbox.open(
                folder: folder.appendingPathComponent("outbox"), configuration: ScriptedDay.configuration(clock: clock))
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let model = SnapshotModel(outbox)
            let passes = Locked(0)
            let events = outbox.events
            let counting = Task { for await case .drained in events { passes.withLock { $0 += 1 } } }
            defer { counting.cancel() }

            /// Waits for the script's passes, then until the model shows what the outbox holds.
            func check(_ step: String, passes expected: Int, sourceLocation: SourceLocation = #_sourceLocation)
                async throws -> [OutboxSnapshot.Item]
            {
                let passed = try await waitUntil(seconds: 120) { passes.withLock { $0 } >= expected }
                #expect(
                    passed, "\(step): \(passes.withLock { $0 }) of \(expected) passes", sourceLocation: sourceLocation)
                var truth = try await outbox.snapshot()
                let agrees = try await waitUntil(seconds: 120) {
                    truth = try await outbox.snapshot()
                    return model.snapshot == truth
                }
                #expect(
                    agrees,
                    "\(step): the model shows \(String(describing: model.snapshot?.items)), the outbox \(truth.items)",
                    sourceLocation: sourceLocation)
                return model.snapshot?.items ?? []
            }

            try await ScriptedDay.play(outbox: outbox, engine: engine, clock: clock) { step, passes in
                try await check(step, passes: passes)
            }
        }
    }
}

extension DocsOnlyAppTests.HeldTransport {
    /// One that sends at once.
    static func releasedOne() -> DocsOnlyAppTests.HeldTransport {
        let transport = DocsOnlyAppTests.HeldTransport()
        transport.release()
        return transport
    }
}

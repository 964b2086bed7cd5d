import Foundation
import ImagePrep
import Outbox
import PhotoCapture
import Testing

// Public API only (no `@testable`), as `DocsOnlyAppTests`, which follows this day too, is written.

/// A scripted day of an app on the outbox, against the reference engine on loopback with
/// `HTTPTransport`, as an app runs it: a photo committed on a metered network, then Wi-Fi, a
/// chain of one note's edits through failures, out of retries, send-now, parked, discard, and the
/// rest delivered. `EventReplayTests` and `DocsOnlyAppTests` each follow it with a model of the
/// queue of their own, which their `check` holds to the outbox after every step.
enum ScriptedDay {
    /// The day's outbox: photo captures on Wi-Fi only, notes on any network, one automatic retry
    /// before an entry waits for send-now, and a clock the test moves.
    static func configuration(clock: TestClock) -> Outbox.Configuration {
        Outbox.Configuration(
            operationTypes: [.captureCreate.sent(on: .unmetered), OperationType("note.append")], now: { clock.now },
            timeZone: TimeZone(identifier: "Europe/Berlin")!, backoff: Backoff(automaticRetryLimit: 1),
            randomUnit: { 0.5 })
    }

    /// A schedule whose timer never fires: passes come from the script's triggers only.
    static let triggersOnly = Outbox.Schedule(interval: 3600) { _ in try await Task.sleep(for: .seconds(86_400)) }

    /// Plays the day on `outbox` (opened with `configuration(clock:)`).
    ///
    /// - Parameter check: After each step, waits until the test's model has seen `passes`
    ///   scheduler passes in all, holds the model to the outbox, and returns the queue as the
    ///   outbox shows it then, which the script holds to what the step should have done.
    static func play(
        outbox: Outbox, engine: ReferenceEngine, clock: TestClock,
        check: (_ step: String, _ passes: Int) async throws -> [OutboxSnapshot.Item]
    ) async throws {
        // A phone on its hotspot: the scheduler starts, with nothing to send.
        await outbox.connectivityChanged(isReachable: true, network: .metered)
        try await outbox.start(transport: HTTPTransport(engineURL: engine.url), schedule: triggersOnly)
        #expect(try await check("started", 1).isEmpty)

        // A photo committed on the metered network waits for Wi-Fi from its first event on.
        let plate = try await outbox.commit(
            idPrefix: "plate-", kind: "plate", note: "gate left open", photos: [try smallPhoto()])
        let metered = try await check("a photo committed on a metered network", 2)
        #expect(metered.map(\.id) == [plate] && metered.first?.status == .waitingForNetwork(.unmetered))

        // Three edits of one note in one transaction; the engine fails the first (503), which
        // stops the pass, and the others wait behind it.
        try await failNextOperation(on: engine, status: 503)
        try await outbox.write { transaction in
            for number in 1...3 {
                try transaction.enqueue(
                    OutboxOperation(
                        id: "edit-\(number)", entity: "note:A", type: "note.append", payload: ["line": number]))
            }
        }
        let failed = try await check("a note's first edit failed", 3)
        #expect(failed.map(\.id) == [plate, "edit-1", "edit-2", "edit-3"])
        guard failed.count == 4, case .retrying = failed[1].status else {
            Issue.record("edit-1 should be retrying: \(failed)")
            return
        }
        #expect(failed[1].lastErrorSummary == "The server has a problem")
        #expect(failed[2].status == .blocked(behind: "edit-1") && failed[3].status == .blocked(behind: "edit-1"))

        // Wi-Fi: the photo goes, and is retired; edit-1 still backs off.
        await outbox.connectivityChanged(isReachable: true, network: .unmetered)
        #expect(try await check("on Wi-Fi", 4).map(\.id) == ["edit-1", "edit-2", "edit-3"])

        // Its backoff over, edit-1 fails again: out of automatic retries.
        clock.advance(by: 3600)
        try await failNextOperation(on: engine, status: 503)
        await outbox.appDidBecomeActive()
        #expect(try await check("out of retries", 5).first?.status == .waitingForSendNow)

        // The user's "Send now", refused for good (422): parked.
        try await failNextOperation(on: engine, status: 422)
        try await outbox.sendNow(id: "edit-1")
        let parked = try await check("sent now, and parked", 5)
        guard case .parked = parked.first?.status else {
            Issue.record("edit-1 should be parked: \(parked)")
            return
        }

        // Discarded: edit-2 leads its entity now, and edit-3 waits behind it instead.
        try await outbox.discard(id: "edit-1")
        let discarded = try await check("the parked edit discarded", 5)
        #expect(discarded.map(\.id) == ["edit-2", "edit-3"])
        #expect(discarded.map(\.status) == [.pending, .blocked(behind: "edit-2")])

        // The next pass delivers both, in order, and retires them.
        await outbox.appDidBecomeActive()
        #expect(try await check("the rest delivered", 6).isEmpty)
        await outbox.stop()
        #expect(try await engine.state().operations.map(\.requestId) == ["edit-2", "edit-3"])
        #expect(try await engine.state().records.map(\.requestId) == [plate])
    }

    /// Has the engine answer the next POST of an operation with `status`.
    private static func failNextOperation(on engine: ReferenceEngine, status: Int) async throws {
        try await engine.inject([
            "mode": "status", "status": status, "method": "POST", "path_prefix": "/v1/operations", "count": 1,
        ])
    }
}

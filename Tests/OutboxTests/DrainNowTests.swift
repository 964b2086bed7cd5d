import Foundation
import Testing

@testable import Outbox

/// A drain someone asks for: every queued entry now, whatever its backoff or retry count.
@Suite("Drain now")
struct DrainNowTests {
    /// An outbox on `clock` whose backoff starts at `initialDelay`, holding captures with these ids.
    static func outbox(in folder: URL, clock: TestClock, initialDelay: TimeInterval, holding ids: [String])
        async throws -> Outbox
    {
        let outbox = try Outbox(
            folder: folder, configuration: clock.configuration(backoff: Backoff(initialDelay: initialDelay)))
        for id in ids { try await outbox.enqueue(makeCapture(id: id)) }
        return outbox
    }

    /// What backs off is tried after the rest; what waits for send-now is left to send-now.
    @Test func aRequestedDrainSendsWhatBacksOffLastAndLeavesWhatWaitsForSendNow() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let configuration = clock.configuration(backoff: Backoff(initialDelay: 60, automaticRetryLimit: 0))
            let outbox = try Outbox(folder: folder, configuration: configuration)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            // plate-1 fails once: with a limit of 0 automatic retries it now waits for the user.
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))
            #expect(try await outbox.entry(id: "plate-1")?.isWaitingForSendNow == true)
            let requested = ScriptedTransport()
            #expect(try await outbox.drainNow(using: requested).synced == ["plate-2"])
            #expect(await requested.sentIDs == ["plate-2"], "only send-now sends plate-1")
            #expect(try await outbox.sendNow(id: "plate-1", using: requested).synced == ["plate-1"])

            let backingOff = try Outbox(
                folder: folder.appendingPathComponent("backing-off"),
                configuration: clock.configuration(backoff: Backoff(initialDelay: 60)))
            for id in ["plate-1", "plate-2", "plate-3"] { try await backingOff.enqueue(makeCapture(id: id)) }
            _ = try await backingOff.drain(using: ScriptedTransport([.http(status: 503)]))
            let again = ScriptedTransport()
            _ = try await backingOff.drainNow(using: again)
            #expect(await again.sentIDs == ["plate-2", "plate-3", "plate-1"])
        }
    }

    @Test func aRequestedDrainStillStopsAtATransientFailureAndCountsIt() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try await Self.outbox(
                in: folder, clock: clock, initialDelay: 10, holding: ["plate-1", "plate-2"])
            let transport = ScriptedTransport([.http(status: 503, retryAfter: "120")])
            let report = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs == ["plate-1"])
            #expect(report.retryAt == clock.now.addingTimeInterval(120))
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == clock.now.addingTimeInterval(120))

            // Asked again at once, it does not wait for the Retry-After; an automatic pass does.
            #expect(try await outbox.drain(using: ScriptedTransport()).synced.isEmpty)
            #expect(try await outbox.drainNow(using: ScriptedTransport()).synced == ["plate-2", "plate-1"])
        }
    }

    @Test func parkedEntriesStayParked() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            _ = try await outbox.drainNow(using: ScriptedTransport([.http(status: 422)]))
            let transport = ScriptedTransport()
            _ = try await outbox.drainNow(using: transport)
            #expect(await transport.sentIDs.isEmpty)
            #expect(try await outbox.entry(id: "plate-1")?.state == .failedNeedsAttention)
        }
    }

    @Test func aRequestedDrainWaitingBehindAnAutomaticPassMakesTheNextPassARequestedOne() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try await Self.outbox(
                in: folder, clock: TestClock(), initialDelay: 60, holding: ["plate-1", "plate-2"])
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))  // plate-1 backs off
            // While a pass that keeps to the backoff sends plate-2, the user pulls to refresh.
            let requested = Recorder<Task<DrainReport, any Error>>()
            let followUp = ScriptedTransport()
            let automatic = ScriptedTransport(duringSend: { _ in
                requested.append(Task { try await outbox.drainNow(using: followUp) })
                while await outbox.followUpWaiters.isEmpty { await Task.yield() }
            })
            let report = try await outbox.sendNow(id: "plate-2", using: automatic)
            #expect(await automatic.sentIDs == ["plate-2"], "the automatic pass kept to plate-1's backoff")
            #expect(report.passes == 2)
            let requestedReport = try await #require(requested.elements.first).value
            #expect(await followUp.sentIDs == ["plate-1"], "the requested pass went past the backoff")
            #expect(requestedReport.synced == ["plate-1"])
        }
    }
}

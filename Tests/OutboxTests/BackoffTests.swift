import Foundation
import Testing

@testable import Outbox

/// Automatic retries: exponential, jittered, honouring Retry-After, limited; and "send now".
/// The clock and the random source are injected, so every time below is exact and nothing sleeps.
@Suite("Backoff and send now")
struct BackoffTests {
    @Test func delaysGrowExponentiallyWithinTheUpperHalfUpToTheCap() {
        let backoff = Backoff(initialDelay: 2, multiplier: 2, maximumDelay: 60)
        let lowest = (1...7).map { backoff.delay(afterFailures: $0, retryAfter: nil, randomUnit: 0) }
        let highest = (1...7).map { backoff.delay(afterFailures: $0, retryAfter: nil, randomUnit: 1) }
        #expect(lowest == [1, 2, 4, 8, 16, 30, 30])
        #expect(highest == [2, 4, 8, 16, 32, 60, 60])
        #expect(backoff.delay(afterFailures: 3, retryAfter: nil, randomUnit: 0.5) == 6)
    }

    @Test func retryAfterIsAFloorNeverACeiling() {
        let backoff = Backoff(initialDelay: 2)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 120, randomUnit: 0.5) == 120)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 0, randomUnit: 0.5) == 1.5)
    }

    /// A server must not be able to park the queue for years: Retry-After counts up to the
    /// ceiling (an hour by default), and a negative, fractional or malformed one not at all.
    @Test func retryAfterIsCutToTheCeilingAndIgnoredWhenItIsNotOne() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)
        let backoff = Backoff(initialDelay: 2)
        func wait(_ header: String) -> TimeInterval {
            backoff.delay(afterFailures: 1, retryAfter: Backoff.retryAfterSeconds(header, now: now), randomUnit: 0.5)
        }
        #expect(wait("9223372036854775807") == 3600)
        #expect(wait("99999999999999999999999999999999") == 3600)
        #expect(wait("Fri, 31 Dec 9999 23:59:59 GMT") == 3600)
        #expect(wait("3599") == 3599)
        for malformed in ["-1", "1.5", "0x10", "", "12 s", String(repeating: "9", count: 100)] {
            #expect(wait(malformed) == 1.5, "'\(malformed)' is no Retry-After")
        }
        #expect(Backoff(retryAfterCeiling: 60).delay(afterFailures: 1, retryAfter: 1e300, randomUnit: 0.5) == 60)
        #expect(Backoff(retryAfterCeiling: 60).delay(afterFailures: 1, retryAfter: .infinity, randomUnit: 0.5) == 1.5)
        #expect(Backoff().longestWait == 3600)
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_445_412_400)  // Wed, 21 Oct 2015 07:26:40 GMT
        #expect(Backoff.retryAfterSeconds("120", now: now) == 120)
        #expect(Backoff.retryAfterSeconds(" 7 ", now: now) == 7)
        #expect(Backoff.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT", now: now) == 80)
        #expect(Backoff.retryAfterSeconds("Wed, 21 Oct 2015 07:00:00 GMT", now: now) == 0)
        #expect(Backoff.retryAfterSeconds("soon", now: now) == nil)
        #expect(Backoff.retryAfterSeconds("-5", now: now) == nil)
    }

    /// The entry that failed waits out its backoff; a capture after it (no entity: it waits for
    /// nothing) goes on in the next pass, and the pass says who waits until when.
    @Test func aTransientFailureBacksOffThatEntryUntilItIsDueAndTheOthersGoOn() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let configuration = clock.configuration(backoff: Backoff(initialDelay: 10), randomUnit: 0.5)
            do {
                let outbox = try Outbox(folder: folder, configuration: configuration)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                try await outbox.enqueue(makeCapture(id: "plate-2"))
                let report = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))
                #expect(report.retryAt == clock.now.addingTimeInterval(7.5))
            }
            // The schedule is on disk: a restarted app waits too.
            let outbox = try Outbox(folder: folder, configuration: configuration)
            let due = clock.now.addingTimeInterval(7.5)
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == due)
            let early = ScriptedTransport()
            let report = try await outbox.drain(using: early)
            #expect(report.halt == .waitingToRetry(id: "plate-1", until: due))
            #expect(report.retryAt == due)
            #expect(await early.sentIDs == ["plate-2"], "plate-2 waits for nothing")

            clock.advance(by: 7.5)
            let onTime = ScriptedTransport()
            #expect(try await outbox.drain(using: onTime).synced == ["plate-1"])
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == nil)
        }
    }

    @Test func retryAfterFromTheEngineIsHonoured() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(randomUnit: 0.5))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 429, retryAfter: "120")]))
            #expect(try await outbox.entry(id: "plate-1")?.nextAttemptAt == clock.now.addingTimeInterval(120))
        }
    }

    @Test func afterTheRetryLimitAnEntryWaitsForSendNowAndTheQueueGoesOn() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let configuration = clock.configuration(
                backoff: Backoff(initialDelay: 1, automaticRetryLimit: 2), randomUnit: 1)
            do {
                let outbox = try Outbox(folder: folder, configuration: configuration)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                // The first send and its two automatic retries all fail.
                for _ in 0..<3 {
                    let transport = ScriptedTransport([.http(status: 503)])
                    _ = try await outbox.drain(using: transport)
                    #expect(await transport.sentIDs == ["plate-1"])
                    clock.advance(by: 60)
                }
                try await outbox.enqueue(makeCapture(id: "plate-2"))
            }
            let outbox = try Outbox(folder: folder, configuration: configuration)
            let waiting = try #require(try await outbox.entry(id: "plate-1"))
            #expect(waiting.isWaitingForSendNow)
            #expect(waiting.state == .queued)
            #expect(waiting.nextAttemptAt == nil)
            #expect(waiting.attempts == 3)
            #expect(waiting.lastError == "HTTP 503")

            let automatic = ScriptedTransport()
            _ = try await outbox.drain(using: automatic)
            #expect(await automatic.sentIDs == ["plate-2"], "no more automatic retries, and the queue is not blocked")

            let manual = ScriptedTransport()
            let report = try await outbox.sendNow(id: "plate-1", using: manual)
            #expect(report.synced == ["plate-1"])
            let sent = try #require(try await outbox.entry(id: "plate-1"))
            #expect(sent.state == .synced)
            #expect(!sent.isWaitingForSendNow)
        }
    }

    @Test func sendNowRetriesAParkedEntryWhoseReasonStaysReadable() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                _ = try await outbox.drain(using: ScriptedTransport([.http(status: 422, detail: "kind unknown")]))
            }
            let outbox = try Outbox(folder: folder)
            #expect(try await outbox.entry(id: "plate-1")?.lastError == "HTTP 422: kind unknown")
            // A drain leaves a parked entry alone...
            let automatic = ScriptedTransport()
            _ = try await outbox.drain(using: automatic)
            #expect(await automatic.sentIDs.isEmpty)
            // ...the user's "send now" does not; while it is in flight the old reason is still shown.
            let reasons = Recorder<String?>()
            let manual = ScriptedTransport(
                [.http(status: 422, detail: "kind still unknown")],
                duringSend: { delivery in reasons.append(try await outbox.entry(id: delivery.id)?.lastError) })
            let report = try await outbox.sendNow(id: "plate-1", using: manual)
            #expect(reasons.elements == ["HTTP 422: kind unknown"])
            #expect(report.parked == ["plate-1"])
            #expect(try await outbox.entry(id: "plate-1")?.lastError == "HTTP 422: kind still unknown")
        }
    }

    @Test func sendNowGoesAheadOfAnEntryThatIsBackingOff() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(randomUnit: 0.5))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))
            let transport = ScriptedTransport()
            let report = try await outbox.sendNow(id: "plate-2", using: transport)
            #expect(await transport.sentIDs == ["plate-2"])
            #expect(report.synced == ["plate-2"])
            guard case .waitingToRetry(let id, _)? = report.halt else {
                Issue.record(
                    "expected the pass to stop at the entry backing off, got \(String(describing: report.halt))")
                return
            }
            #expect(id == "plate-1")
        }
    }

    @Test func sendNowForAnIDTheStoreDoesNotHoldThrows() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            await #expect(throws: OutboxError.entry(.notFound(id: "plate-1"))) {
                try await outbox.sendNow(id: "plate-1", using: ScriptedTransport())
            }
        }
    }
}

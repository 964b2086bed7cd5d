import Foundation
import Testing

@testable import Outbox

/// The outbox running itself: `start(transport:)`, its triggers, backoff on automatic passes,
/// the automatic retire, and what `events` and `snapshot()` say along the way. Every test runs
/// on a `ManualClock`, so that nothing waits for real time and each timer fires when the test says.
@Suite("Scheduler")
struct SchedulerTests {
    @Test("a trigger prints as its case's name, as an app's log shows it")
    func triggersPrintAsTheirNames() {
        #expect("\(Outbox.DrainTrigger.started)" == "started")
        #expect(String(describing: Outbox.DrainTrigger.becameActive) == "becameActive")
        let event = OutboxEvent.drained(DrainReport(), trigger: .timer)
        #expect(!"\(event)".contains("Outbox.Outbox."), "\(event)")
    }

    @Test func aCommitTriggersADrain() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            let transport = ScriptedTransport()
            try await outbox.start(transport: transport, schedule: clock.schedule(interval: 3600))
            #expect(await log.waitForPasses(1), "the pass at start")

            try await outbox.enqueue(makeCapture(id: "plate-1"))
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(await transport.sentIDs == ["plate-1"])
            #expect(log.passTriggers == [.started, .enqueued])
            #expect(clock.now == ManualClock().now, "no timer was needed")
            await outbox.stop()
        }
    }

    @Test func connectivityComingBackTriggersADrainAndNothingIsSentWhileItIsGone() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            let transport = ScriptedTransport()
            await outbox.connectivityChanged(isReachable: false)
            try await outbox.start(transport: transport, schedule: clock.schedule(interval: 60))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            await outbox.appDidBecomeActive()
            clock.advance(by: 61)
            // Nothing can show that a pass did not happen but time: give one a chance to.
            try await Task.sleep(for: .milliseconds(300))
            #expect(await transport.sentIDs.isEmpty, "no automatic pass while the network is gone")
            #expect(log.passTriggers.isEmpty)
            #expect(try await outbox.snapshot().isReachable == false)
            #expect(try await outbox.snapshot().pendingCount == 1)

            await outbox.connectivityChanged(isReachable: true)
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(await transport.sentIDs == ["plate-1"])
            #expect(log.passTriggers == [.connectivity])
            await outbox.stop()
        }
    }

    @Test func aPeriodicPassRespectsBackoff() async throws {
        try await withOutbox(backoff: Backoff(initialDelay: 100)) { outbox, clock, folder in
            // The first failure waits 75 s (100 s nominal, jitter 0.5), longer than the 10 s interval.
            let log = EventLog(outbox)
            let transport = ScriptedTransport([.http(status: 503)])
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.start(transport: transport, schedule: clock.schedule(interval: 10))
            #expect(await log.waitForPasses(1))
            #expect(await transport.sentIDs == ["plate-1"])
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.status == .retrying(at: ManualClock().now.addingTimeInterval(75)))

            // Two periodic passes inside the backoff: each runs, and neither sends.
            for passes in 2...3 {
                try await waitForTimer(clock)
                clock.advance(by: 10)
                #expect(await log.waitForPasses(passes))
            }
            #expect(log.passTriggers == [.started, .timer, .timer])
            #expect(await transport.sentIDs == ["plate-1"], "a periodic pass keeps to the backoff")
            #expect(log.passReports.last?.halt == .waitingToRetry(id: "plate-1", until: entry.nextAttemptAt!))

            // Once the backoff is over, the next periodic pass sends it.
            try await waitForTimer(clock)
            clock.advance(by: 60)
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(await transport.sentIDs == ["plate-1", "plate-1"])
            await outbox.stop()
        }
    }

    @Test func theTimerWakesWhenABackoffEndsBeforeTheInterval() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            let transport = ScriptedTransport([.http(status: 503)])
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.start(transport: transport, schedule: clock.schedule(interval: 3600))
            #expect(await log.waitForPasses(1))
            // The default backoff's first wait is 1.5 s here; the interval is an hour.
            #expect(try await outbox.snapshot().nextAutomaticPassAt == ManualClock().now.addingTimeInterval(1.5))
            try await waitForTimer(clock)
            clock.advance(by: 2)
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(log.passTriggers == [.started, .timer])
            await outbox.stop()
        }
    }

    @Test func retireHappensByItselfAndDeletesTheOwnedFiles() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            try await outbox.start(
                transport: ScriptedTransport(landsUploads: true), schedule: clock.schedule(interval: 3600))
            try await outbox.enqueue(
                makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()]))
            #expect(try mediaFileNames(in: folder).count == 2)

            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(try await outbox.entry(id: "plate-1") == nil)
            #expect(try mediaFileNames(in: folder).isEmpty, "the photos went with the entry")
            #expect(log.passReports.last?.retired == ["plate-1"])
            #expect(log.passReports.last?.synced == ["plate-1"])
            await outbox.stop()
        }
    }

    @Test func withoutTheAutomaticRetireADeliveredEntryStays() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            try await outbox.start(
                transport: ScriptedTransport(), schedule: clock.schedule(interval: 3600, retiresSynced: false))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            #expect(await log.waitForPasses(2))
            #expect(try await outbox.entry(id: "plate-1")?.status == .delivered)
            #expect(try await outbox.snapshot().deliveredCount == 1)
            await outbox.stop()
        }
    }

    @Test func eventsTellACaptureThatFailsTwiceAndThenLands() async throws {
        try await withOutbox { outbox, clock, folder in
            let start = clock.now
            // Waits of 1.5 s and then 3 s (2 s and 4 s nominal, jitter 0.5).
            let log = EventLog(outbox)
            let transport = ScriptedTransport(
                [.http(status: 503, detail: "busy"), .networkError(detail: "the connection was lost")],
                landsUploads: true)
            try await outbox.start(transport: transport, schedule: clock.schedule(interval: 3600))
            #expect(await log.waitForPasses(1))
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            #expect(await log.waitForPasses(2))
            try await waitForTimer(clock)
            clock.advance(by: 2)
            #expect(await log.waitForPasses(3))
            try await waitForTimer(clock)
            clock.advance(by: 4)
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })

            let firstRetry = start.addingTimeInterval(1.5)
            let secondRetry = start.addingTimeInterval(2 + 3)
            #expect(
                log.aboutEntries == [
                    .added(id: "plate-1", replacing: nil),
                    .stateChanged(id: "plate-1", status: .pending, reason: nil),
                    // Its photo's bytes moved on the first try; the two after it had only the
                    // record to send, so they never showed it sending.
                    .stateChanged(id: "plate-1", status: .sending, reason: nil),
                    .stateChanged(id: "plate-1", status: .retrying(at: firstRetry), reason: "HTTP 503: busy"),
                    .stateChanged(
                        id: "plate-1", status: .retrying(at: secondRetry),
                        reason: "network error: the connection was lost"),
                    .stateChanged(id: "plate-1", status: .delivered, reason: nil),
                    .retired(id: "plate-1"),
                ])
            #expect(log.passTriggers == [.started, .enqueued, .timer, .timer])
            // Each send reported its upload's progress, the last one to the end.
            let progress = log.all.compactMap { if case .progress(let progress) = $0 { progress } else { nil } }
            #expect(!progress.isEmpty)
            #expect(progress.last?.fractionCompleted == 1)
            await outbox.stop()
        }
    }

    @Test func theSnapshotSaysWhereEachEntryStandsInWords() async throws {
        try await withOutbox(backoff: Backoff(automaticRetryLimit: 0)) { outbox, clock, folder in
            let transport = ScriptedTransport([.http(status: 422, detail: "no such plate"), .http(status: 503)])
            try await outbox.enqueue(makeOperation(id: "edit-1", entity: "note:A"))
            try await outbox.enqueue(makeOperation(id: "edit-2", entity: "note:A", type: "note.append"))
            try await outbox.enqueue(makeOperation(id: "edit-3", entity: "note:B"))
            try await outbox.enqueue(makeOperation(id: "edit-4", entity: "note:C"))
            _ = try await outbox.drain(using: transport)
            // edit-1 parked (422), edit-2 behind it, edit-3 out of automatic retries (503, limit 0),
            // and edit-4 never tried: the pass stopped at the transient failure.
            let snapshot = try await outbox.snapshot()
            #expect(
                snapshot.items.map(\.status) == [
                    .parked(reason: "HTTP 422: no such plate"), .blocked(behind: "edit-1"), .waitingForSendNow,
                    .pending,
                ])
            #expect(snapshot.parkedCount == 1)
            #expect(snapshot.blockedCount == 1)
            #expect(snapshot.waitingForSendNowCount == 1)
            #expect(snapshot.pendingCount == 1)
            #expect(snapshot.isScheduled == false)
            #expect(snapshot.nextAutomaticPassAt == nil)
            #expect(snapshot.unreadable.isEmpty)
        }
    }

    @Test func drainNowAndSendNowUseTheSchedulersTransportAndNeedItStarted() async throws {
        try await withOutbox { outbox, clock, folder in
            await #expect(throws: OutboxError.notStarted) { try await outbox.drainNow() }
            await #expect(throws: OutboxError.notStarted) { try await outbox.sendNow(id: "plate-1") }
            await #expect(
                throws: OutboxError.invalidSetting(
                    setting: "Schedule.interval", value: "0.0", allowed: "a positive number of seconds")
            ) {
                try await outbox.start(transport: ScriptedTransport(), schedule: Outbox.Schedule(interval: 0))
            }

            let log = EventLog(outbox)
            let transport = ScriptedTransport()
            try await outbox.start(transport: transport, schedule: clock.schedule())
            #expect(await log.waitForPasses(1))
            _ = try await outbox.write { try $0.enqueue(makeCapture(id: "plate-1")) }
            let report = try await outbox.drainNow()
            #expect(await log.wait { $0.contains(.retired(id: "plate-1")) })
            #expect(report.synced.contains("plate-1") || log.passReports.contains { $0.synced == ["plate-1"] })
            #expect(await transport.sentIDs == ["plate-1"], "sent once, however the passes coalesced")
            await outbox.stop()
            #expect(try await outbox.snapshot().isScheduled == false)
        }
    }

    @Test func stopCancelsThePassInFlightAndTheEntryGoesBackUnsent() async throws {
        try await withOutbox { outbox, clock, folder in
            let log = EventLog(outbox)
            // Its photo's bytes go out (so it shows as sending), and then the answer never comes.
            let transport = ScriptedTransport(
                landsUploads: true, duringSend: { _ in try await Task.sleep(for: .seconds(600)) })
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            try await outbox.start(transport: transport, schedule: clock.schedule())
            #expect(await log.wait { $0.contains(.stateChanged(id: "plate-1", status: .sending, reason: nil)) })
            await outbox.stop()
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.status == .pending)
            #expect(entry.attempts == 0, "a cancelled send is no attempt")
            // Queuing still works after a stop, and starts nothing.
            try await outbox.enqueue(makeCapture(id: "plate-2"))
            try await Task.sleep(for: .milliseconds(200))
            #expect(await transport.sentIDs == ["plate-1"])
        }
    }

    @Test func anUnreadableRecordIsToldOnce() async throws {
        try await withUnreadableRecord { outbox, clock, log in
            try await outbox.start(transport: ScriptedTransport(), schedule: clock.schedule())
            #expect(await log.waitForPasses(1))
            _ = try await outbox.snapshot()
            await outbox.appDidBecomeActive()
            #expect(await log.waitForPasses(2))
            let told = log.all.compactMap { if case .unreadableFound(let record) = $0 { record } else { nil } }
            #expect(told.map(\.id) == ["plate-1"])
            #expect(try await outbox.snapshot().unreadable.map(\.id) == ["plate-1"])
            await outbox.stop()
        }
    }

    /// A model that follows the documented "snapshot, then events" counts each unreadable record
    /// once: one the snapshot showed is not told again.
    @Test func anUnreadableRecordShownInASnapshotIsNotToldAgain() async throws {
        try await withUnreadableRecord { outbox, clock, log in
            #expect(try await outbox.snapshot().unreadable.map(\.id) == ["plate-1"])
            try await outbox.start(transport: ScriptedTransport(), schedule: clock.schedule())
            #expect(await log.waitForPasses(1))
            await outbox.appDidBecomeActive()
            #expect(await log.waitForPasses(2))
            let told = log.all.compactMap { if case .unreadableFound(let record) = $0 { record } else { nil } }
            #expect(told.isEmpty, "the snapshot already showed it")
            await outbox.stop()
        }
    }

    /// Runs `body` with an outbox in a new folder, on a new `ManualClock` (jitter 0.5).
    private func withOutbox(
        backoff: Backoff = Backoff(),
        _ body: (_ outbox: Outbox, _ clock: ManualClock, _ folder: URL) async throws -> Void
    ) async throws {
        try await withTemporaryFolder { folder in
            let clock = ManualClock()
            try await body(Outbox(folder: folder, configuration: clock.configuration(backoff: backoff)), clock, folder)
        }
    }

    /// Runs `body` with an outbox (and its event log) opened again over a folder whose one entry,
    /// plate-1, has a record it cannot read.
    private func withUnreadableRecord(
        _ body: (_ outbox: Outbox, _ clock: ManualClock, _ log: EventLog) async throws -> Void
    ) async throws {
        try await withTemporaryFolder { folder in
            let clock = ManualClock()
            do {
                let outbox = try Outbox(folder: folder, configuration: clock.configuration())
                try await outbox.enqueue(makeCapture(id: "plate-1"))
            }
            try withRawDatabase(in: folder) { try $0.run("UPDATE outbox_entries SET intent = 'not json'") }
            let outbox = try Outbox(folder: folder, configuration: clock.configuration())
            try await body(outbox, clock, EventLog(outbox))
        }
    }

    /// Waits until the scheduler's timer sleeps on the clock, so that advancing it wakes the timer.
    private func waitForTimer(_ clock: ManualClock) async throws {
        try #require(await eventually { clock.sleeperCount > 0 })
    }
}

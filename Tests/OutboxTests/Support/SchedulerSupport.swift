import Foundation
import Testing

@testable import Outbox

/// A clock for the scheduler that moves only when a test moves it: `now` for the outbox's
/// configuration, and sleepers that wake when `advance` reaches their moment.
final class ManualClock: Sendable {
    private struct Sleeper {
        let moment: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextKey = 0
        var sleepers: [Int: Sleeper] = [:]
    }

    private let state: Locked<State>

    init(_ start: Date = Date(timeIntervalSince1970: 1_714_478_525)) { state = Locked(State(now: start)) }

    var now: Date { state.withLock { $0.now } }

    /// How many tasks sleep on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the clock on and wakes every sleeper whose moment has come.
    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += seconds
            let keys = state.sleepers.filter { $0.value.moment <= state.now }.map(\.key)
            return keys.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    /// Sleeps until `moment` of this clock; throws `CancellationError` when the task is cancelled.
    func sleep(until moment: Date) async throws {
        let key = state.withLock { state in
            defer { state.nextKey += 1 }
            return state.nextKey
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard moment > state.now, !Task.isCancelled else { return true }
                    state.sleepers[key] = Sleeper(moment: moment, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: key) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// A configuration that reads this clock, knowing the tests' operation types.
    func configuration(backoff: Backoff = Backoff(), randomUnit: Double = 0.5) -> Outbox.Configuration {
        Outbox.Configuration(
            operationTypes: TestTypes.all, now: { self.now }, timeZone: TimeZone(identifier: "Europe/Berlin")!,
            backoff: backoff, randomUnit: { randomUnit })
    }

    /// A schedule that waits on this clock.
    func schedule(interval: TimeInterval = 3600, retiresSynced: Bool = true) -> Outbox.Schedule {
        Outbox.Schedule(interval: interval, retiresSynced: retiresSynced) { try await self.sleep(until: $0) }
    }
}

/// Every event of one `events` stream, gathered as they come, for a test to wait on.
final class EventLog: Sendable {
    private let events = Recorder<OutboxEvent>()
    private let gathering: Task<Void, Never>

    init(_ outbox: Outbox) {
        let stream = outbox.events
        let events = self.events
        gathering = Task {
            for await event in stream { events.append(event) }
        }
    }

    deinit { gathering.cancel() }

    var all: [OutboxEvent] { events.elements }

    /// The events about entries (added, state changed, retired, discarded), in order; without
    /// progress, pass reports and the rest.
    var aboutEntries: [OutboxEvent] {
        all.filter {
            switch $0 {
            case .added, .stateChanged, .retired, .discarded: true
            default: false
            }
        }
    }

    /// The triggers of the scheduler's passes so far, in order.
    var passTriggers: [Outbox.DrainTrigger] {
        all.compactMap { if case .drained(_, let trigger) = $0 { trigger } else { nil } }
    }

    /// The reports of the scheduler's passes so far, in order.
    var passReports: [DrainReport] {
        all.compactMap { if case .drained(let report, _) = $0 { report } else { nil } }
    }

    /// Waits, polling, until `condition` holds for the events so far: generously, because the machine
    /// is shared and a parallel test run keeps the cooperative pool busy with blocking fsyncs. In
    /// the whole suite a scheduler's pass waits its turn behind every other test: a test with two
    /// waits took 187 s in a passing run, and a run 30 % slower ran out of 120 s on its first
    /// wait. Only a broken scheduler waits the whole time (`livenessWait`).
    ///
    /// - Returns: Whether it held before the time ran out.
    @discardableResult
    func wait(seconds: Double = livenessWait, until condition: ([OutboxEvent]) -> Bool) async -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(all)
    }

    /// Waits until the scheduler has finished `count` passes.
    @discardableResult
    func waitForPasses(_ count: Int) async -> Bool {
        await wait { events in events.count { if case .drained = $0 { true } else { false } } >= count }
    }
}

/// How long the scheduler's tests wait for what must happen before they call it lost: the whole
/// suite's span on a slow machine, since a pass may wait that long for a thread.
let livenessWait: Double = 600

/// Waits, polling, until `condition` holds (generously: the machine is shared).
@discardableResult
func eventually(seconds: Double = livenessWait, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let end = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < end {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

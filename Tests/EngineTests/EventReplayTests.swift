import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

/// A UI driven by `Outbox.events` alone shows what `snapshot()` shows: the events of a scripted
/// day (a photo on a metered network, then on Wi-Fi, a chain of one note's edits through
/// failures, out of retries, send-now, parked, discard, and the rest delivered), replayed into a
/// model of the queue, agree with a snapshot after every step. The outbox runs its scheduler
/// against the reference engine on loopback, with `HTTPTransport`, as an app runs it.
@Suite("Events replayed into a model of the queue")
struct EventReplayTests {
    /// The queue as a list driven by events alone keeps it: `added` appends a row, `stateChanged`
    /// sets its status, `retired` and `discarded` remove it. It also notes what no right stream
    /// does: a status told twice in a row, an event about an entry it does not hold, and an
    /// entry sent while the model still shows it waiting behind another (the events then missed
    /// the moment it was let go).
    final class ReplayedQueue: Sendable {
        struct Row: Equatable, CustomStringConvertible {
            let id: String
            var status: EntryStatus?
            var reason: String?
            var description: String { "\(id) \(status.map { "\($0)" } ?? "(no status told)")" }
        }

        private struct State {
            var rows: [Row] = []
            var problems: [String] = []
            var passes = 0
            var markers = 0
        }

        private let state: Locked<State>
        private let following: Task<Void, Never>

        /// The marker a step sends through the outbox's own hub once its calls have returned: every
        /// event of the step is before it in the stream.
        static let marker = OutboxEvent.drainFailed(.notStarted)

        init(_ outbox: Outbox) {
            let events = outbox.events
            let state = Locked(State())
            self.state = state
            following = Task {
                for await event in events { state.withLock { Self.apply(event, to: &$0) } }
            }
        }

        deinit { following.cancel() }

        var rows: [Row] { state.withLock { $0.rows } }
        var problems: [String] { state.withLock { $0.problems } }
        var passes: Int { state.withLock { $0.passes } }
        var markers: Int { state.withLock { $0.markers } }

        private static func apply(_ event: OutboxEvent, to state: inout State) {
            func index(of id: String) -> Int? {
                let found = state.rows.firstIndex { $0.id == id }
                if found == nil { state.problems.append("\(event): no such entry in the model") }
                return found
            }
            switch event {
            case .added(let id, let replacing):
                if let replacing, let earlier = index(of: replacing) { state.rows.remove(at: earlier) }
                if state.rows.contains(where: { $0.id == id }) { state.problems.append("\(event): added twice") }
                state.rows.append(Row(id: id))
            case .stateChanged(let id, let status, let reason):
                guard let row = index(of: id) else { return }
                let before = state.rows[row].status
                if before == status { state.problems.append("\(event): told twice in a row") }
                if status == .sending, case .blocked = before {
                    state.problems.append("\(event): sent while the model shows it \(before!)")
                }
                state.rows[row].status = status
                state.rows[row].reason = reason
            case .retired(let id), .discarded(let id):
                if let row = index(of: id) { state.rows.remove(at: row) }
            case .drained:
                state.passes += 1
            case marker:
                state.markers += 1
            case .progress, .unreadableFound, .drainFailed, .drainCancelled:
                break
            }
        }
    }

    @Test("After each step of a scripted day, the events replayed agree with snapshot()", .timeLimit(.minutes(5)))
    func replayedEventsAgreeWithTheSnapshot() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let outbox = try await Outbox.open(
                folder: folder.appendingPathComponent("outbox"), configuration: ScriptedDay.configuration(clock: clock))
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let model = ReplayedQueue(outbox)
            var steps = 0

            /// Waits until the model has seen `passes` scheduler passes in all and the step's
            /// marker, then holds it to a snapshot taken now, while nothing else moves.
            func check(_ step: String, passes: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws
                -> [OutboxSnapshot.Item]
            {
                steps += 1
                let passed = try await waitUntil(seconds: 120) { model.passes >= passes }
                #expect(passed, "\(step): \(model.passes) of \(passes) passes", sourceLocation: sourceLocation)
                outbox.eventHub.send(ReplayedQueue.marker)
                let marked = try await waitUntil(seconds: 120) { model.markers >= steps }
                #expect(marked, "\(step): the marker never came", sourceLocation: sourceLocation)
                let snapshot = try await outbox.snapshot()
                let shown = snapshot.items.map { ReplayedQueue.Row(id: $0.id, status: $0.status) }
                #expect(
                    model.rows.map(\.description) == shown.map(\.description),
                    "\(step): the events say \(model.rows), the snapshot \(shown)", sourceLocation: sourceLocation)
                for (row, item) in zip(model.rows, snapshot.items) {
                    switch item.status {
                    case .retrying, .waitingForSendNow, .parked:
                        #expect(
                            row.reason == item.lastError, "\(step): \(row.id)'s reason", sourceLocation: sourceLocation)
                    default:
                        #expect(row.reason == nil, "\(step): \(row.id)'s reason", sourceLocation: sourceLocation)
                    }
                }
                #expect(model.problems.isEmpty, "\(step): \(model.problems)", sourceLocation: sourceLocation)
                return snapshot.items
            }

            try await ScriptedDay.play(outbox: outbox, engine: engine, clock: clock) { step, passes in
                try await check(step, passes: passes)
            }
        }
    }
}

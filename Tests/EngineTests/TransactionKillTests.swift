import Foundation
import Testing

@testable import Outbox

/// An app that writes its own rows and queues an operation in one transaction (`notes-example`),
/// killed with SIGKILL at random moments, over and over: after every restart its rows and the
/// outbox's operations correspond one to one, and no file is left that no operation owns.
@Suite("Killing an app in the middle of its transaction")
struct TransactionKillTests {
    static let minimumKills = 30
    static let entities = ["note:1", "note:2", "note:3", "note:4"]
    static let revisionsPerRound = 10

    @Test func killedAtRandomMomentsTheAppsRowsAndItsOperationsCorrespondOneToOne() async throws {
        try await withTemporaryFolder { folder in
            let started = ContinuousClock.now
            var random = SplitMix64.fromEnvironment()
            let seed = random.seed
            let store = folder.appendingPathComponent("notes")
            // The edits still to make: after a kill the same ones again (those that committed are
            // recognised by their ids and recorded nothing twice), after a clean run new ones.
            var firstRevision = 1
            var (kills, rounds, cleanRuns, checked) = (0, 0, 0, 0)
            while kills < Self.minimumKills {
                rounds += 1
                try #require(rounds <= 150, "the rounds did not finish: \(kills) kills")
                let edits = (firstRevision..<firstRevision + Self.revisionsPerRound).flatMap { revision in
                    Self.entities.map { "\($0)#\(revision)" }
                }
                let app = try OutboxProcess([store.path] + edits, executable: OutboxProcess.notesExample)
                // Most runs take 100-300 ms here; a kill in the first 150 ms lands in the middle.
                app.scheduleKill(delay: .microseconds(random.next() % 150_000))
                let result = app.wait()
                if result.wasKilled {
                    kills += 1
                } else {
                    #expect(result.status == 0, "notes-example failed: \(result.standardError)")
                    cleanRuns += 1
                    firstRevision += Self.revisionsPerRound
                }
                checked += try await Self.expectRowsAndOperationsCorrespond(in: store, printed: result.lines)
            }
            let seconds = Double((ContinuousClock.now - started).components.seconds)
            print(
                """
                Transaction kill test (KILL_TEST_SEED=\(seed)): \(kills) kills, \(cleanRuns) clean runs in \(rounds) \
                rounds; \(checked) operations checked against the app's rows in all; \(Int(seconds)) s.
                """)
            #expect(kills >= Self.minimumKills)
        }
    }

    /// Opens the store as the app does after a restart (putting back, sweeping), and checks it.
    ///
    /// - Returns: How many operations it holds.
    static func expectRowsAndOperationsCorrespond(in store: URL, printed: [String]) async throws -> Int {
        let outbox = try Outbox(
            folder: store, configuration: Outbox.Configuration(operationTypes: [OperationType("note.edit")]))
        let listing = try await outbox.list()
        #expect(listing.unreadable.isEmpty)
        let operations = Dictionary(uniqueKeysWithValues: listing.entries.map { ($0.id, $0) })
        let (edits, notes) = try await outbox.read { transaction in
            // A run killed before it made its tables left none, and queued nothing either.
            guard try !transaction.query("SELECT 1 FROM sqlite_schema WHERE name = 'note_edits'").isEmpty else {
                return ([DatabaseRow](), [DatabaseRow]())
            }
            return (
                try transaction.query("SELECT operation_id, entity, revision FROM note_edits"),
                try transaction.query("SELECT entity, revision FROM notes")
            )
        }
        let recorded = edits.compactMap { $0["operation_id"]?.text }
        #expect(Set(recorded) == Set(operations.keys), "each row has its operation and each operation its row")
        #expect(recorded.count == operations.count)
        #expect(Set(printed).isSubset(of: Set(recorded)), "what the app said was saved is saved")
        for edit in edits {
            let id = edit["operation_id"]?.text ?? "?"
            let operation = try #require(operations[id])
            let payload = try #require(try JSONSerialization.jsonObject(with: operation.payload) as? [String: Any])
            #expect(operation.entity == edit["entity"]?.text)
            #expect((payload["revision"] as? Int).map(Int64.init) == edit["revision"]?.integer)
        }
        for note in notes {
            let latest = edits.filter { $0["entity"] == note["entity"] }.compactMap { $0["revision"]?.integer }.max()
            #expect(note["revision"]?.integer == latest, "the note shows its last recorded edit")
        }
        let owned = Set(listing.entries.flatMap(\.ownedMedia).map(\.name))
        #expect(Set(try mediaFileNames(in: store)) == owned, "no file that no operation owns, none missing")
        return operations.count
    }
}

import Foundation
import Testing

@testable import Outbox

#if canImport(Glibc)
import Glibc
#endif

/// `outbox drain` and `outbox add` killed with SIGKILL at random moments, again and again,
/// against the reference engine, and then the books balanced.
///
/// What "nothing the user added is missing" means for a killed `add`, which queues its photos
/// one at a time in order and prints each id only once the capture is durable: every photo whose
/// id was printed is queued; the photo it was working on is queued whole or not at all; the
/// photos after it are untouched. A queued capture whose id was not printed is not lost: running
/// `add` again on the photos not yet printed queues nothing twice (the id comes from the photo's
/// bytes, the kind and the note) and prints that same id. So at the end every photo passed has
/// exactly one id printed, and the engine holds exactly those captures, once each, with the bytes
/// the pipeline makes of each photo.
///
/// Beside them `notes-example` edits three notes into the same store, each edit an operation on
/// the note's entity, killed as `add` is; it too prints each edit's id once it is durable, and
/// running it again on the edits not printed yet records nothing twice. At the end the engine
/// holds every edit exactly once, and the edits of each note in the order they were made.
@Suite("Killing outbox")
struct KillTests {
    static let photoCount = 50
    /// Where the proxy cuts each connection: about half of a photo's upload copy at 512 pixels.
    static let cutAfter = 12_000
    static let minimumDrainKills = 30
    static let minimumAddKills = 5
    static let notes = ["note:1", "note:2", "note:3"]
    static let revisions = 1...6
    static let noteEdits = revisions.flatMap { revision in notes.map { "\($0)#\(revision)" } }

    /// In a plaintext store, and in one encrypted with a key file (given to every process through
    /// OUTBOX_KEY_FILE), which must keep every promise as well; and with every connection to the
    /// engine cut after `cutAfter` bytes from the client (`cutting_proxy.py`), so that uploads are
    /// resumed, given up and given back between the kills. One after the other: each is as much
    /// load as the machine's other tests can stand beside it. At the end it prints the upload
    /// resources the engine still holds unfinished: those the kills left behind before the client
    /// could keep them, which the engine expires.
    @Test(.serialized, arguments: [(false, false), (true, false), (false, true)])
    func killedAtRandomMomentsEveryPhotoReachesTheEngineExactlyOnce(isEncrypted: Bool, cutsConnections: Bool)
        async throws
    {
        try await withTemporaryFolder { folder in
            let keyEnvironment =
                isEncrypted
                ? ["OUTBOX_KEY_FILE": try KeyFile.create(at: folder.appendingPathComponent("key")).url.path] : [:]
            let started = ContinuousClock.now
            var random = SplitMix64.fromEnvironment()
            let seed = random.seed
            let photos = try Fixtures.distinctPhotos(
                count: Self.photoCount, in: folder.appendingPathComponent("photos"))
            let store = folder.appendingPathComponent("outbox").path
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            // Every request takes a while (a capture about 0.15 s in all), so that most kills land
            // in the middle of a send and the queue outlasts the kills.
            try await engine.inject(["mode": "delay", "seconds": 0.05, "count": 1_000_000])
            let proxy =
                cutsConnections
                ? try ReferenceEngine.cuttingProxy(
                    to: engine, cutAfter: Self.cutAfter, dataFolder: folder.appendingPathComponent("proxy")) : nil
            let add = ["--store", store, "add", "--max-edge", "512"]
            let drain = ["--store", store, "drain", "--engine", (proxy ?? engine).url.absoluteString]

            var remaining = photos
            var printed: [URL: String] = [:]
            var queuedBeforePrinted: Set<String> = []
            var editsLeft = Self.noteEdits
            var editIDs: [String: String] = [:]
            var (drainKills, addKills, editKills, round) = (0, 0, 0, 0)
            // While photos remain, an add of all those not printed yet runs beside the drain. The
            // first few adds, and half of the later ones, are killed while they work on a photo
            // picked at random: once the ids before it are printed, a random 0-10 ms later (a
            // photo takes 3-30 ms). The drain is killed at a random moment of its first 150 ms:
            // with the engine's delay that is mostly in the middle of a send.
            while drainKills < Self.minimumDrainKills || !remaining.isEmpty || !editsLeft.isEmpty {
                round += 1
                let progress =
                    "\(drainKills) drain kills, \(addKills) add kills, \(remaining.count) photos and \(editsLeft.count) edits left"
                try #require(round <= 200, "the kill rounds did not finish: \(progress)")
                let batch = remaining
                let draining = try OutboxProcess(drain, environment: keyEnvironment)
                draining.scheduleKill(delay: .milliseconds(random.next() % 150))
                let adding =
                    batch.isEmpty ? nil : try OutboxProcess(add + batch.map(\.path), environment: keyEnvironment)
                if let adding, addKills < Self.minimumAddKills || random.next() % 2 == 0 {
                    // The first few kills fall in the first half of the batch, so that photos are left for more.
                    let span = addKills < Self.minimumAddKills ? max(1, batch.count / 2) : batch.count
                    adding.scheduleKill(
                        afterLines: Int(random.next() % UInt64(span)), delay: .microseconds(random.next() % 10_000))
                }
                let editBatch = editsLeft
                let editing =
                    editBatch.isEmpty
                    ? nil
                    : try OutboxProcess(
                        [store] + editBatch, executable: OutboxProcess.notesExample, environment: keyEnvironment)
                if let editing, random.next() % 2 == 0 {
                    editing.scheduleKill(
                        afterLines: Int(random.next() % UInt64(editBatch.count)),
                        delay: .microseconds(random.next() % 10_000))
                }
                let drained = await draining.finished()
                if drained.wasKilled { drainKills += 1 }
                #expect(drained.wasKilled || [0, 1].contains(drained.status), "drain failed: \(drained.standardError)")
                if drained.status == 0, !drained.wasKilled, remaining.isEmpty {
                    try #require(
                        drainKills >= Self.minimumDrainKills, "the queue emptied after \(drainKills) drain kills")
                }
                if let editing {
                    let edited = await editing.finished()
                    if edited.wasKilled { editKills += 1 }
                    #expect(edited.wasKilled || edited.status == 0, "notes-example failed: \(edited.standardError)")
                    for (edit, id) in zip(editBatch, edited.lines) { editIDs[edit] = id }
                    editsLeft.removeFirst(edited.lines.count)
                }
                guard let adding else { continue }
                let added = await adding.finished()
                if added.wasKilled { addKills += 1 }
                #expect(added.wasKilled || added.status == 0, "add failed: \(added.standardError)")
                for (photo, id) in zip(batch, added.lines) { printed[photo] = id }
                remaining.removeFirst(added.lines.count)
                if added.wasKilled {
                    // What a killed add queued without printing: in the store, or already at the engine.
                    let known = try await Set(engine.state().records.map(\.requestId))
                        .union(try Self.storeIDs(store, type: "capture.create", environment: keyEnvironment))
                    queuedBeforePrinted.formUnion(known.subtracting(printed.values))
                }
            }
            // Then drains that nobody kills, until one says nothing is left.
            var finalDrains = 0
            while try OutboxProcess.run(drain, environment: keyEnvironment).status != 0 {
                finalDrains += 1
                try #require(finalDrains < 5, "the queue does not empty")
            }

            let state = try await engine.state()
            let engineIDs = Set(state.records.map(\.requestId))
            let printedIDs = Set(printed.values)
            let duplicateRecords = state.records.count - engineIDs.count
            let photosUnderTwoIDs = Dictionary(grouping: state.records, by: { $0.media.first?.sha256 ?? "" })
                .values.filter { $0.count > 1 }.count
            var byteMismatches = 0
            for photo in photos {
                let expected = Cryptography.sha256Hex(of: try Fixtures.prepared(photo).upload.data)
                let id = printed[photo] ?? "?"
                let onDisk = state.uploads.first { $0.requestId == id && $0.index == 0 }?.sha256OnDisk
                if state.record(id)?.media.map(\.sha256) != [expected] || onDisk != expected { byteMismatches += 1 }
            }
            // Every edit once, and each note's edits in the order they were made.
            let editRecords = state.operations.filter { $0.type == "note.edit" }
            let editsTwice = editRecords.count - Set(editRecords.map(\.requestId)).count
            var notesOutOfOrder = 0
            for note in Self.notes {
                let arrived = editRecords.filter { $0.entity == note }.map { $0.payload["revision"] }
                if arrived != Self.revisions.map({ JSONValue.number(Double($0)) }) { notesOutOfOrder += 1 }
            }
            let editsCreatedOnce = editIDs.values.allSatisfy { id in
                state.requests(about: id).filter {
                    $0.method == "POST" && !$0.path.hasPrefix("/v1/uploads/") && $0.outcome == .status(201)
                }.count == 1
            }
            let left = try Self.storeIDs(store, environment: keyEnvironment).count
            let orphans = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("outbox/media").path
            ).count
            let seconds = Double((ContinuousClock.now - started).components.seconds)
            let unfinished = state.resumableUploads.filter { !$0.complete }.count
            let cuts = state.requests.filter {
                if case .other(let outcome) = $0.outcome { return outcome.hasPrefix("connection cut") }
                return false
            }.count
            if isEncrypted {
                #expect(try StoreScan.plaintextFound(under: URL(fileURLWithPath: store), of: photos).isEmpty)
            }
            print(
                """
                Kill test (\(isEncrypted ? "encrypted" : "plaintext") store\(cutsConnections ? ", every connection cut after \(Self.cutAfter) bytes" : ""), KILL_TEST_SEED=\(seed)): \(photos.count) photos added, \(printedIDs.count) ids printed, \
                \(state.records.count) captures at the engine (\(duplicateRecords) duplicate records, \
                \(photosUnderTwoIDs) photos under two ids, \(printedIDs.subtracting(engineIDs).count) printed ids \
                missing, \(engineIDs.subtracting(printedIDs).count) captures nobody printed), \(byteMismatches) byte \
                mismatches, \(editRecords.count) of \(Self.noteEdits.count) note edits at the engine (\(editsTwice) twice, \
                \(notesOutOfOrder) notes out of order), \(left) entries left in the store, \(orphans) orphan files; \
                drain killed \(drainKills) times, add killed \(addKills) times, notes-example killed \(editKills) times, \
                \(queuedBeforePrinted.count) captures queued by a killed add before their id was printed (printed by \
                the next add); \(round) rounds, \(state.requests.count) engine requests (\(cuts) cut), \(unfinished) \
                unfinished upload resources left at the engine, \(Int(seconds)) s.
                """)
            #expect(printedIDs.count == photos.count, "every photo has its id printed")
            #expect(engineIDs == printedIDs, "the engine holds exactly the printed captures")
            #expect(duplicateRecords == 0)
            #expect(photosUnderTwoIDs == 0)
            #expect(byteMismatches == 0)
            #expect(queuedBeforePrinted.isSubset(of: printedIDs))
            #expect(editIDs.count == Self.noteEdits.count, "every edit has its id printed")
            #expect(Set(editRecords.map(\.requestId)) == Set(editIDs.values), "the engine holds exactly the edits")
            #expect(editsTwice == 0 && editsCreatedOnce)
            #expect(notesOutOfOrder == 0, "each note's edits reached the engine in order")
            #expect(left == 0)
            #expect(orphans == 0)
            #expect(drainKills >= Self.minimumDrainKills && addKills >= Self.minimumAddKills)
        }
    }

    /// The ids the store holds, in any state, as `outbox list --json` shows them; of one type only, if given.
    static func storeIDs(_ store: String, type: String? = nil, environment: [String: String] = [:]) throws -> Set<
        String
    > {
        Set(
            try OutboxProcess.run(["--store", store, "list", "--json"], environment: environment).jsonLines
                .filter { type == nil || $0["type"] as? String == type }.compactMap { $0["id"] as? String })
    }
}

/// The kill tests draw their moments from a seed they print, so that a run can be drawn again.
extension SplitMix64 {
    /// A generator seeded from `KILL_TEST_SEED`, or from a random seed when it is not set.
    static func fromEnvironment() -> SplitMix64 {
        SplitMix64(
            seed: ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64.max))
    }
}

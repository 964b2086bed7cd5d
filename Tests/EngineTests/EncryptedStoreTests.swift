import Foundation
import Testing

@testable import Outbox

/// The `outbox` command on a store encrypted with a key file: no byte of what was captured on
/// disk, after an add and after one killed part-way; nothing opened without the key; the engine
/// still gets the exact prepared bytes; a conversion killed at any moment loses nothing.
@Suite("Encrypted store")
struct EncryptedStoreTests {
    static let note = "meet at the north gate, the code is 4711"
    static let photos = [
        Fixtures.corpus.appendingPathComponent("gps-north-west-iphone5-orientation3.jpg"),
        Fixtures.corpus.appendingPathComponent("gps-south-east-australia.jpg"),
        Fixtures.crafted.appendingPathComponent("gps-south-west.jpg"),
    ]

    /// What the reference engine holds after `outbox drain` of the store with its key, which must leave nothing queued.
    static func drained(_ store: URL, key: URL, engineData: URL) async throws -> EngineState {
        let engine = try ReferenceEngine(dataFolder: engineData)
        let drained = try OutboxProcess.run(
            ["--store", store.path, "--key-file", key.path, "drain", "--engine", engine.url.absoluteString])
        #expect(drained.status == 0, "\(drained.standardError)")
        return try await engine.state()
    }

    func add(_ store: URL, keyFile: URL?, photos: [URL] = photos) -> [String] {
        (keyFile.map { ["--key-file", $0.path] } ?? []) + ["--store", store.path, "add", "--max-edge", "512"]
            + ["--note", Self.note] + photos.map(\.path)
    }

    /// The scan finds every kind of secret in a plaintext store, so that finding none in an
    /// encrypted one means something.
    @Test func theScanFindsEverySecretInAPlaintextStore() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            #expect(try OutboxProcess.run(add(store, keyFile: nil)).status == 0)
            let found = try StoreScan.plaintextFound(under: store, of: Self.photos, notes: [Self.note])
            for secret in [
                "the note", "a coordinate as text", "raw EXIF GPS rationals", "Exif\\0\\0", "a JPEG start marker",
                "the upload copy's first bytes",
            ] {
                #expect(found.contains { $0.hasSuffix("holds \(secret)") }, "the scan misses \(secret): \(found)")
            }
        }
    }

    @Test func afterAnAddWithAKeyNoFileOfTheStoreHoldsAnythingCaptured() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let store = folder.appendingPathComponent("outbox")
            let added = try OutboxProcess.run(add(store, keyFile: key))
            #expect(added.status == 0, "\(added.standardError)")
            #expect(added.lines.count == Self.photos.count)
            #expect(try StoreScan.plaintextFound(under: store, of: Self.photos, notes: [Self.note]) == [])
        }
    }

    /// Killed at random moments of an add, the store's files (the log and shared memory left as
    /// the kill left them, a media file half written) hold nothing captured either.
    @Test func afterAKillInTheMiddleOfAnAddNoFileOfTheStoreHoldsAnythingCaptured() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let store = folder.appendingPathComponent("outbox")
            var random = SystemRandomNumberGenerator()
            var (kills, sawLog) = (0, false)
            for round in 0..<12 {
                let photos = try Fixtures.distinctPhotos(count: 6, in: folder.appendingPathComponent("photos-\(round)"))
                let adding = try OutboxProcess(add(store, keyFile: key, photos: photos))
                adding.scheduleKill(
                    afterLines: Int.random(in: 0..<3, using: &random),
                    delay: .microseconds(Int.random(in: 0..<20_000, using: &random)))
                if adding.wait().wasKilled { kills += 1 }
                sawLog =
                    sawLog
                    || FileManager.default.fileExists(atPath: store.appendingPathComponent("outbox.sqlite-wal").path)
                let found = try StoreScan.plaintextFound(under: store, of: photos, notes: [Self.note])
                #expect(found == [], "round \(round)")
            }
            #expect(kills >= 3, "the adds were killed \(kills) times")
            #expect(sawLog, "a kill left the write-ahead log behind, and it was scanned")
        }
    }

    @Test func drainingWithTheKeyDeliversTheExactPreparedBytesAndWithoutItNothing() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let store = folder.appendingPathComponent("outbox")
            let ids = try OutboxProcess.run(add(store, keyFile: key)).lines
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let drain = ["--store", store.path, "drain", "--engine", engine.url.absoluteString]

            let keyless = try OutboxProcess.run(drain)
            #expect(keyless.status == 1)
            #expect(keyless.standardError.contains("is encrypted: give its key with --key-file"))
            let otherKey = try KeyFile.create(at: folder.appendingPathComponent("other.key")).url
            let wrong = try OutboxProcess.run(["--key-file", otherKey.path] + drain)
            #expect(wrong.status == 1)
            #expect(wrong.standardError.contains("does not open the outbox"))
            #expect(try await engine.state().requests.isEmpty, "nothing was sent")

            let drained = try OutboxProcess.run(drain, environment: ["OUTBOX_KEY_FILE": key.path])
            #expect(drained.status == 0, "\(drained.standardError)")
            let state = try await engine.state()
            for (photo, id) in zip(Self.photos, ids) {
                let expected = Cryptography.sha256Hex(of: try Fixtures.prepared(photo).upload.data)
                #expect(state.record(id)?.media.map(\.sha256) == [expected])
                #expect(state.uploads.first { $0.requestId == id }?.sha256OnDisk == expected)
                #expect(state.record(id)?.note == Self.note)
                try await expectDeliveredOnce(id, to: engine)
            }
        }
    }

    @Test func aKeyFileInsideTheStoreIsRefusedAndTheStoreIsLeftAsItWas() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            #expect(try OutboxProcess.run(add(store, keyFile: key)).status == 0)
            let inside = store.appendingPathComponent("outbox.key")
            try FileManager.default.copyItem(at: key, to: inside)
            let listed = try OutboxProcess.run(["--store", store.path, "--key-file", inside.path, "list"])
            #expect(listed.status == 1)
            #expect(listed.standardError.contains("inside the outbox folder"))
            #expect(try KillTests.storeIDs(store.path, environment: ["OUTBOX_KEY_FILE": key.path]).count == 3)
        }
    }

    /// `outbox encrypt` killed at a random moment, ten times over, each time on a fresh copy of a
    /// plaintext store: after the kill the store opens, as plaintext without the key or encrypted
    /// with it, and holds every entry; an encrypt run again finishes the job, after which no file
    /// holds plaintext; and the engine gets every capture's exact bytes.
    @Test func encryptKilledAtRandomMomentsLosesNothingAndFinishedLeavesNoPlaintext() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let pristine = folder.appendingPathComponent("pristine")
            let photos = try Fixtures.distinctPhotos(count: 9, in: folder.appendingPathComponent("photos"))
            let ids = try OutboxProcess.run(add(pristine, keyFile: nil, photos: photos)).lines
            #expect(ids.count == photos.count)
            let keyed = ["OUTBOX_KEY_FILE": key.path]
            // How long a whole conversion takes here, on a copy: the kills fall anywhere in it, and a little after.
            let store = folder.appendingPathComponent("outbox")
            try FileManager.default.copyItem(at: pristine, to: store)
            let started = ContinuousClock.now
            #expect(try OutboxProcess.run(["--store", store.path, "encrypt"], environment: keyed).status == 0)
            var span = (ContinuousClock.now - started) * 1.2
            func microseconds(_ duration: Duration) -> Int {
                Int(duration.components.seconds) * 1_000_000 + Int(duration.components.attoseconds / 1_000_000_000_000)
            }
            var random = SystemRandomNumberGenerator()
            var (kills, encryptedByTheKill) = (0, 0)
            for round in 0..<10 {
                try FileManager.default.removeItem(at: store)
                try FileManager.default.copyItem(at: pristine, to: store)
                let roundStarted = ContinuousClock.now
                let encrypting = try OutboxProcess(["--store", store.path, "encrypt"], environment: keyed)
                encrypting.scheduleKill(
                    delay: .microseconds(Int.random(in: 0..<max(1, microseconds(span)), using: &random)))
                let result = encrypting.wait()
                if result.wasKilled {
                    kills += 1
                } else {
                    #expect(result.status == 0, "\(result.standardError)")
                    // The first conversion can be slower than the others (a cold cache, a busy
                    // machine): the kills keep to how long one takes now.
                    span = min(span, (ContinuousClock.now - roundStarted) * 1.2)
                }
                let plaintext = try OutboxProcess.run(["--store", store.path, "list", "--json"])
                if plaintext.status == 0 {
                    #expect(Set(plaintext.jsonLines.compactMap { $0["id"] as? String }) == Set(ids), "round \(round)")
                } else {
                    #expect(plaintext.standardError.contains("is encrypted"), "round \(round)")
                    encryptedByTheKill += 1
                    #expect(try KillTests.storeIDs(store.path, environment: keyed) == Set(ids), "round \(round)")
                }
                let finished = try OutboxProcess.run(["--store", store.path, "encrypt"], environment: keyed)
                #expect(finished.status == 0, "\(finished.standardError)")
                #expect(try KillTests.storeIDs(store.path, environment: keyed) == Set(ids), "round \(round)")
                #expect(try StoreScan.plaintextFound(under: store, of: photos) == [], "round \(round)")
            }
            print(
                "encrypt killed \(kills) times of 10 (within \(span) of starting), encrypted by then in \(encryptedByTheKill)"
            )
            #expect(kills >= 3)

            let state = try await Self.drained(store, key: key, engineData: folder.appendingPathComponent("engine"))
            for (photo, id) in zip(photos, ids) {
                let expected = Cryptography.sha256Hex(of: try Fixtures.prepared(photo).upload.data)
                #expect(state.uploads.first { $0.requestId == id }?.sha256OnDisk == expected)
            }
            #expect(state.records.count == ids.count)
        }
    }

    /// `outbox encrypt` of a store of 200 captures with photos, SIGKILLed at random moments of
    /// the run, each time on a fresh copy, until at least 20 kills landed mid-run (the store had
    /// begun to change: sealed files written, or the conversion committed): after each the store
    /// opens with all 200 entries, plaintext or encrypted; encrypt run again finishes; and the
    /// engine finally gets every capture's exact bytes.
    @Test func encryptOf200CapturesKilledAtRandomPointsLosesNothing() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let keyed = ["OUTBOX_KEY_FILE": key.path]
            let pristine = folder.appendingPathComponent("pristine")
            let photos = try (0..<3).map(smallPhoto)
            var ids: Set<String> = []
            do {
                let outbox = try Outbox(folder: pristine)
                for number in 0..<200 {
                    let id = String(format: "plate-%03d", number)
                    try await outbox.enqueue(makeCapture(id: id, photos: [photos[number % photos.count]]))
                    ids.insert(id)
                }
            }
            let store = folder.appendingPathComponent("outbox")
            try FileManager.default.copyItem(at: pristine, to: store)
            let started = ContinuousClock.now
            #expect(try OutboxProcess.run(["--store", store.path, "encrypt"], environment: keyed).status == 0)
            let span = ContinuousClock.now - started
            let spanMicroseconds =
                Int(span.components.seconds) * 1_000_000
                + Int(span.components.attoseconds / 1_000_000_000_000)
            var random = SplitMix64.fromEnvironment()
            var (rounds, kills, midRun) = (0, 0, 0)
            func hasBegun() throws -> Bool {
                let media = try FileManager.default.contentsOfDirectory(
                    atPath: store.appendingPathComponent("media").path)
                return media.contains { $0.hasSuffix(".sealed") }
            }
            while midRun < 20, rounds < 80 {
                rounds += 1
                try FileManager.default.removeItem(at: store)
                try FileManager.default.copyItem(at: pristine, to: store)
                let encrypting = try OutboxProcess(["--store", store.path, "encrypt"], environment: keyed)
                encrypting.scheduleKill(
                    delay: .microseconds(Int.random(in: 0..<max(1, spanMicroseconds), using: &random)))
                let result = encrypting.wait()
                guard result.wasKilled else {
                    #expect(result.status == 0, "\(result.standardError)")
                    continue
                }
                kills += 1
                if try hasBegun() { midRun += 1 }
                let plaintext = try OutboxProcess.run(["--store", store.path, "list", "--json"])
                if plaintext.status == 0 {
                    #expect(Set(plaintext.jsonLines.compactMap { $0["id"] as? String }) == ids, "round \(rounds)")
                } else {
                    #expect(plaintext.standardError.contains("is encrypted"), "round \(rounds)")
                    #expect(try KillTests.storeIDs(store.path, environment: keyed) == ids, "round \(rounds)")
                }
                let finished = try OutboxProcess.run(["--store", store.path, "encrypt"], environment: keyed)
                #expect(finished.status == 0, "\(finished.standardError)")
                let listed = try OutboxProcess.run(["--store", store.path, "list", "--json"], environment: keyed)
                #expect(Set(listed.jsonLines.compactMap { $0["id"] as? String }) == ids, "round \(rounds)")
                #expect(listed.jsonLines.last?["unreadable"] as? Int == 0, "round \(rounds)")
            }
            print(
                "encrypt of 200 captures (\(span) a run): \(kills) kills in \(rounds) rounds, \(midRun) mid-run"
                    + " (seed \(random.seed))")
            #expect(midRun >= 20)

            let state = try await Self.drained(store, key: key, engineData: folder.appendingPathComponent("engine"))
            #expect(Set(state.records.map(\.requestId)) == ids)
            for record in state.records {
                let number = Int(record.requestId.dropFirst("plate-".count)) ?? 0
                let expected = Cryptography.sha256Hex(of: photos[number % photos.count].upload.data)
                #expect(state.uploads.first { $0.requestId == record.requestId }?.sha256OnDisk == expected)
            }
        }
    }
}

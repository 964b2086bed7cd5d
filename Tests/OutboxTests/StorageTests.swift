import Foundation
import Testing

@testable import Outbox

/// The storage rules, each against a real database file in a temporary folder, reopening the
/// store between steps the way an app that is killed and restarted would.
@Suite("Storage")
struct StorageTests {
    @Test func enqueuedCaptureIsOnDiskWithOwnerOnlyFilesAfterReopening() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let photos = [try Photos.landscape(), try Photos.portrait()]
            let capture = try makeCapture(id: "plate-1", photos: photos)
            do {
                let outbox = try Outbox(folder: folder, configuration: clock.configuration)
                #expect(try await outbox.enqueue(capture) == .enqueued)
            }
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.state == .queued)
            #expect(entry.createdAt == clock.now)
            #expect(entry.attempts == 0)
            #expect(entry.lastError == nil)
            #expect(entry.type == "capture.create" && entry.version == 1)
            #expect(entry.payload == capture.payload)
            #expect(entry.media == capture.media)
            #expect(entry.pendingMedia == entry.ownedMedia)
            #expect(entry.ownedMedia.map(\.index) == [0, 1])
            for (file, photo) in zip(entry.ownedMedia, photos) {
                let url = outbox.url(of: file)
                #expect(try Data(contentsOf: url) == photo.upload.data)
                let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
                #expect(permissions == 0o600)
            }
        }
    }

    @Test func theSameIDOfferedTwiceStaysOneEntry() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                #expect(try await outbox.enqueue(makeCapture(id: "plate-1")) == .enqueued)
                #expect(try await outbox.enqueue(makeCapture(id: "plate-1")) == .alreadyQueued)
            }
            let outbox = try Outbox(folder: folder)
            // A different photo under the same id, after a restart: still the first capture.
            let other = try makeCapture(id: "plate-1", photos: [try Photos.portrait()])
            #expect(try await outbox.enqueue(other) == .alreadyQueued)
            let entries = try await outbox.list().entries
            #expect(entries.map(\.id) == ["plate-1"])
            #expect(entries.first?.media.first?.width == 1800)
            #expect(try mediaFileNames(in: folder).count == 1)
        }
    }

    @Test func concurrentOffersOfOneIDStayOneEntry() async throws {
        try await withTemporaryFolder { folder in
            // Two outboxes on one folder stand in for two processes; each gets several tasks.
            let first = try Outbox(folder: folder)
            let second = try Outbox(folder: folder)
            let capture = try makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()])
            let results = try await withThrowingTaskGroup(of: EnqueueResult.self) { group in
                for offer in 0..<8 {
                    let outbox = offer.isMultiple(of: 2) ? first : second
                    group.addTask { try await outbox.enqueue(capture) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { $0 == .enqueued }.count == 1)
            #expect(results.filter { $0 == .alreadyQueued }.count == 7)
            #expect(try await first.list().entries.map(\.id) == ["plate-1"])
            #expect(try mediaFileNames(in: folder).count == 2)
        }
    }

    @Test func sequenceNumbersOnlyGrowAndAreNeverReused() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "a"))
            try await outbox.enqueue(makeCapture(id: "b"))
            let b = try #require(try await outbox.entry(id: "b"))
            try await outbox.discard(id: "b")
            try await outbox.enqueue(makeCapture(id: "c"))
            let a = try #require(try await outbox.entry(id: "a"))
            let c = try #require(try await outbox.entry(id: "c"))
            #expect(a.sequence < b.sequence)
            #expect(b.sequence < c.sequence)
        }
    }

    @Test func aRecordThatFailsRemovesTheFilesWrittenForIt() async throws {
        try await withTemporaryFolder { folder in
            _ = try Outbox(folder: folder)
            try withRawDatabase(in: folder) { database in
                try database.run(
                    "CREATE TRIGGER refuse BEFORE INSERT ON outbox_entries BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
                )
            }
            let outbox = try Outbox(folder: folder)
            let capture = try makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()])
            let error = await #expect(throws: OutboxError.self) { try await outbox.enqueue(capture) }
            guard case .store(.database(_, _, let message))? = error else {
                Issue.record("expected a database error, got \(String(describing: error))")
                return
            }
            #expect(message.contains("refused by test"))
            #expect(try mediaFileNames(in: folder).isEmpty)
            #expect(try await outbox.list().entries.isEmpty)
        }
    }

    @Test func aHalfFinishedMultiPhotoWriteRemovesWhatItWrote() async throws {
        try await withTemporaryFolder { folder in
            var configuration = Outbox.Configuration()
            configuration.makeFileToken = { "fixed" }
            let outbox = try Outbox(folder: folder, configuration: configuration)
            // Something already sits where the second photo's file goes, so that write fails
            // after the first photo's file is on disk.
            let obstacle = folder.appendingPathComponent("media/plate-1.1.fixed.jpg")
            try FileManager.default.createDirectory(at: obstacle, withIntermediateDirectories: false)
            let capture = try makeCapture(
                id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait(), try Photos.australia()])
            let exists = OutboxError.SystemError(operation: "open", path: obstacle.path, code: EEXIST)
            await #expect(throws: OutboxError.media(.write(path: obstacle.path, cause: .system(exists)))) {
                try await outbox.enqueue(capture)
            }
            #expect(try mediaFileNames(in: folder).isEmpty)
            #expect(try await outbox.entry(id: "plate-1") == nil)
        }
    }

    @Test func openingPutsAnInterruptedSendBackInTheQueue() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                try await outbox.enqueue(makeCapture(id: "plate-2"))
            }
            // What a process killed in the middle of a send leaves behind.
            try withRawDatabase(in: folder) {
                try $0.run("UPDATE outbox_entries SET state = 'SYNCING' WHERE id = 'plate-1'")
            }
            try await waitUntilNoOpener(of: folder)
            let outbox = try Outbox(folder: folder)
            #expect(outbox.recoveredAtOpen == 1)
            #expect(try await outbox.list().entries.map(\.state) == [.queued, .queued])
        }
    }

    @Test func anOpenerThatIsNotAloneLeavesAnotherOpenersSendAlone() async throws {
        try await withTemporaryFolder { folder in
            let running = try Outbox(folder: folder)
            try await running.enqueue(makeCapture(id: "plate-1"))
            try withRawDatabase(in: folder) {
                try $0.run("UPDATE outbox_entries SET state = 'SYNCING' WHERE id = 'plate-1'")
            }
            do {
                let another = try Outbox(folder: folder)
                #expect(another.recoveredAtOpen == 0)
                #expect(try await another.entry(id: "plate-1")?.state == .syncing)
            }
            #expect(try await running.entry(id: "plate-1")?.state == .syncing)
        }
    }

    @Test func aSurvivingOpenerRecoversASendLeftByASiblingThatDied() async throws {
        try await withTemporaryFolder { folder in
            let survivor = try Outbox(folder: folder)
            try await survivor.enqueue(makeCapture(id: "plate-1"))
            do {
                let sibling = try Outbox(folder: folder)
                // The sibling was sending plate-1.
                try withRawDatabase(in: folder) {
                    try $0.run("UPDATE outbox_entries SET state = 'SYNCING' WHERE id = 'plate-1'")
                }
                let whileItLives = ScriptedTransport()
                _ = try await survivor.drain(using: whileItLives)
                #expect(await whileItLives.sentIDs.isEmpty, "a live sibling's send is not taken over")
                #expect(try await sibling.entry(id: "plate-1")?.state == .syncing)
            }
            // The sibling is gone (killed: its lock went with it); the survivor's next pass resends.
            let afterItDied = ScriptedTransport()
            let report = try await survivor.drain(using: afterItDied)
            #expect(await afterItDied.sentIDs == ["plate-1"])
            #expect(report.synced == ["plate-1"])
            // And the survivor went back to sharing: a new opener is not locked out.
            #expect(try Outbox(folder: folder).recoveredAtOpen == 0)
        }
    }

    @Test func openingSweepsMediaFilesThatNoRecordNames() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
            }
            let named = try mediaFileNames(in: folder)
            // What an enqueue killed between its file writes and its record leaves behind.
            try Data([0xFF, 0xD8]).write(to: folder.appendingPathComponent("media/plate-2.0.orphan.jpg"))
            try await waitUntilNoOpener(of: folder)
            let outbox = try Outbox(folder: folder)
            #expect(outbox.sweptAtOpen == ["plate-2.0.orphan.jpg"])
            #expect(try mediaFileNames(in: folder) == named)
        }
    }

    @Test func theSweepKeepsEveryFileAnUnreadableRecordMightName() async throws {
        try await withTemporaryFolder { folder in
            _ = try Outbox(folder: folder)
            try withRawDatabase(in: folder) { database in
                // Its media lists are damaged: any file carrying its id may be one of its own.
                try database.run(
                    "INSERT INTO outbox_entries (id, state, pending_media, owned_media, intent) VALUES ('lost-1', 'QUEUED', '[{', '[{', '{}')"
                )
                // Its intent comes from a newer version, which might name more files than its lists do.
                try database.run(
                    """
                    INSERT INTO outbox_entries (id, state, pending_media, owned_media, intent)
                    VALUES ('future-1', 'QUEUED', '[]', '[]', '{"version":9,"operation":"capture.create"}')
                    """)
            }
            for name in ["lost-1.0.a.jpg", "lost-1.7.b.jpg", "future-1.0.c.jpg", "stray.0.d.jpg"] {
                try Data([0xFF, 0xD8]).write(to: folder.appendingPathComponent("media/\(name)"))
            }
            let outbox = try Outbox(folder: folder)
            #expect(outbox.sweptAtOpen == ["stray.0.d.jpg"])
            #expect(try mediaFileNames(in: folder) == ["future-1.0.c.jpg", "lost-1.0.a.jpg", "lost-1.7.b.jpg"])
            #expect(try await outbox.list().unreadable.map(\.id) == ["lost-1", "future-1"])
        }
    }

    @Test func aRecordWhoseIDCannotBeReadStopsTheSweep() async throws {
        try await withTemporaryFolder { folder in
            _ = try Outbox(folder: folder)
            try withRawDatabase(in: folder) { try $0.run("INSERT INTO outbox_entries (id) VALUES (x'00ff')") }
            try Data([0xFF, 0xD8]).write(to: folder.appendingPathComponent("media/stray.0.d.jpg"))
            let outbox = try Outbox(folder: folder)
            #expect(outbox.sweptAtOpen.isEmpty)
            #expect(try mediaFileNames(in: folder) == ["stray.0.d.jpg"])
            let unreadable = try await outbox.list().unreadable
            #expect(unreadable.count == 1)
            #expect(unreadable.first?.id == nil)
        }
    }

    @Test func anOlderVersionsDatabaseMigratesAndItsRecordsReadWithDefaultsThatLoseNothing() async throws {
        try await withTemporaryFolder { folder in
            // Written by hand as an older version of the app left it: schema 1 (no retry
            // schedule), and a record with no state, no creation time, no attempts, no media
            // lists, and an intent with only some of today's fields plus one this version does not know.
            try withRawDatabase(in: folder) { database in
                try database.execute(
                    script: """
                        CREATE TABLE entries (
                            sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                            id TEXT NOT NULL UNIQUE,
                            state TEXT,
                            created_at REAL,
                            attempts INTEGER,
                            last_error TEXT,
                            pending_media TEXT,
                            owned_media TEXT,
                            intent TEXT
                        );
                        INSERT INTO entries (id, intent)
                        VALUES ('plate-old', '{"version":1,"arguments":{"kind":"plate","note":"rescued","shape":"round"}}');
                        PRAGMA user_version = 1;
                        """)
            }
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            #expect(try await outbox.pragma("user_version") == "\(OutboxStore.schemaVersion)")
            try await outbox.enqueue(makeCapture(id: "plate-new"))
            let listing = try await outbox.list()
            #expect(listing.unreadable.isEmpty)
            let old = try #require(listing.entries.first { $0.id == "plate-old" })
            #expect(old.state == .queued)
            #expect(old.createdAt == Date(timeIntervalSince1970: 0))
            #expect(old.attempts == 0)
            #expect(old.lastError == nil)
            #expect(old.nextAttemptAt == nil)
            #expect(!old.isWaitingForSendNow)
            #expect(old.pendingMedia.isEmpty && old.ownedMedia.isEmpty)
            #expect(old.type == "capture.create" && old.version == 1 && old.entity == nil)
            #expect(old.media.isEmpty)
            // Its arguments became the payload, the field this version does not know included.
            let payload = try #require(try JSONSerialization.jsonObject(with: old.payload) as? [String: String])
            #expect(payload == ["kind": "plate", "note": "rescued", "shape": "round"])
            // The rescued capture drains first.
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs == ["plate-old", "plate-new"])
        }
    }

    @Test func aCorruptRecordIsListedBesideTheReadableOnesAndNeverDeleted() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                try await outbox.enqueue(makeCapture(id: "plate-2"))
            }
            try withRawDatabase(in: folder) { database in
                try database.run(
                    """
                    INSERT INTO outbox_entries (id, state, created_at, attempts, pending_media, owned_media, intent)
                    VALUES ('plate-3', 'QUEUED', 0, 0, '[{"index":0,"name":"plate-3.0.x.jpg"}]',
                            '[{"index":0,"name":"plate-3.0.x.jpg"}]', '{"version":1,"arguments":{"kind":')
                    """)
            }
            try Data([0xFF, 0xD8]).write(to: folder.appendingPathComponent("media/plate-3.0.x.jpg"))
            for _ in 0..<2 {
                let outbox = try Outbox(folder: folder)
                let listing = try await outbox.list()
                #expect(listing.entries.map(\.id) == ["plate-1", "plate-2"])
                #expect(listing.unreadable.map(\.id) == ["plate-3"])
                #expect(listing.unreadable.first?.reason == "its intent is not valid JSON")
                await #expect(
                    throws: OutboxError.entry(.unreadable(id: "plate-3", reason: "its intent is not valid JSON"))
                ) {
                    try await outbox.entry(id: "plate-3")
                }
            }
            #expect(try mediaFileNames(in: folder).contains("plate-3.0.x.jpg"))
            // Only the user's explicit discard removes it, with its file.
            let outbox = try Outbox(folder: folder)
            try await outbox.discard(id: "plate-3")
            #expect(try await outbox.list().unreadable.isEmpty)
            #expect(try !mediaFileNames(in: folder).contains("plate-3.0.x.jpg"))
        }
    }

    @Test func anUnknownStateMakesARecordUnreadableRatherThanGuessed() async throws {
        try await withTemporaryFolder { folder in
            _ = try Outbox(folder: folder)
            try withRawDatabase(in: folder) {
                try $0.run("INSERT INTO outbox_entries (id, state) VALUES ('plate-1', 'ARCHIVED')")
            }
            let listing = try await Outbox(folder: folder).list()
            #expect(listing.entries.isEmpty)
            #expect(listing.unreadable.first?.reason == "its state 'ARCHIVED' is not one this version knows")
        }
    }

    /// Values no version writes: each is read so that nothing traps, runs away or reaches
    /// outside the store, and a record that cannot be trusted is listed and kept, never acted on.
    @Test func storedValuesAreReadAsUntrustedInput() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
            }
            try withRawDatabase(in: folder) { database in
                try database.run(
                    """
                    UPDATE outbox_entries SET attempts = 9223372036854775807, transient_failures = -3,
                        created_at = 1e300, next_attempt_at = -1e300,
                        last_error = 'HTTP 500: ' || char(27) || '[2J' || char(10) || 'cleared' || printf('%.3000c', 'x')
                    """)
                let copy = "SELECT created_at, attempts, intent FROM outbox_entries WHERE id = 'plate-1'"
                for (id, pending, owned) in [
                    ("slash-1", #"[{"index":0,"name":"a/b.jpg"}]"#, #"[{"index":0,"name":"a/b.jpg"}]"#),
                    ("one-list-1", #"[]"#, "NULL"),
                    ("stray-1", #"[{"index":0,"name":"stray-1.0.t.jpg"}]"#, #"[]"#),
                    ("twice-1", #"[]"#, #"[{"index":0,"name":"x.jpg"},{"index":0,"name":"y.jpg"}]"#),
                ] {
                    let ownedValue = owned == "NULL" ? "NULL" : "'\(owned)'"
                    try database.run(
                        """
                        INSERT INTO outbox_entries (id, state, created_at, attempts, pending_media, owned_media, intent)
                        SELECT '\(id)', 'QUEUED', created_at, attempts, '\(pending)', \(ownedValue), intent
                        FROM (\(copy))
                        """)
                }
                try database.run(
                    "INSERT INTO outbox_entries (id, pending_media, owned_media) VALUES ('../x', '[]', '[]')")
            }
            let outbox = try Outbox(folder: folder)
            let listing = try await outbox.list()
            let entry = try #require(listing.entries.first)
            #expect(listing.entries.map(\.id) == ["plate-1"])
            #expect(entry.attempts == Int.max)
            #expect(entry.retry.transientFailures == 0)
            #expect(entry.createdAt == Date(timeIntervalSince1970: StoredValue.latestMoment))
            #expect(entry.nextAttemptAt == Date(timeIntervalSince1970: 0))
            let shown = try #require(entry.lastError)
            #expect(shown.hasPrefix("HTTP 500: clearedxxx") && shown.count == StoredValue.longestShownError)
            #expect(!shown.contains("\u{1B}") && !shown.contains("\n"))
            #expect(
                listing.unreadable.map(\.reason) == [
                    "its pending media names a file outside the media folder",
                    "its owned media list is missing",
                    "its pending media names a file it does not own",
                    "its owned media repeats an upload or numbers one out of range",
                    "its id is not a valid outbox id",
                ])
            #expect(listing.unreadable.map(\.id) == ["slash-1", "one-list-1", "stray-1", "twice-1", nil])
            // Sending one more attempt saturates instead of trapping.
            _ = try await outbox.drain(using: ScriptedTransport([.http(status: 503)]))
            #expect(try await outbox.entry(id: "plate-1")?.attempts == Int.max)
        }
    }

    @Test func markSyncedThrowsForAnIDTheStoreDoesNotHold() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            await #expect(throws: OutboxError.entry(.notFound(id: "plate-9"))) {
                try await outbox.markSynced(id: "plate-9")
            }
            #expect(try await outbox.entry(id: "plate-1")?.state == .queued)
        }
    }

    @Test func retireRefusesAnEntryTheEngineDoesNotHaveYet() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            await #expect(throws: OutboxError.entry(.notSynced(id: "plate-1", state: .queued))) {
                try await outbox.retire(id: "plate-1")
            }
            #expect(try mediaFileNames(in: folder).count == 1)
        }
    }

    @Test func retireDeletesTheOwnedMediaBeforeTheRecord() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            try await outbox.enqueue(
                makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()]))
            try await outbox.markSynced(id: "plate-1")
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            // Make the second file impossible to delete: a non-empty folder now stands in its place.
            let blocked = outbox.url(of: entry.ownedMedia[1])
            try FileManager.default.removeItem(at: blocked)
            try FileManager.default.createDirectory(
                at: blocked.appendingPathComponent("inside"), withIntermediateDirectories: true)
            await #expect(throws: OutboxError.self) { try await outbox.retire(id: "plate-1") }
            #expect(try await outbox.entry(id: "plate-1")?.state == .synced, "the record must outlive its files")
            try FileManager.default.removeItem(at: blocked)
            try await outbox.retire(id: "plate-1")
            #expect(try await outbox.entry(id: "plate-1") == nil)
        }
    }

    @Test func discardRemovesTheRecordBeforeTheBytes() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(
                    makeCapture(id: "plate-1", photos: [try Photos.landscape(), try Photos.portrait()]))
                let entry = try #require(try await outbox.entry(id: "plate-1"))
                let blocked = outbox.url(of: entry.ownedMedia[0])
                try FileManager.default.removeItem(at: blocked)
                try FileManager.default.createDirectory(
                    at: blocked.appendingPathComponent("inside"), withIntermediateDirectories: true)
                await #expect(throws: OutboxError.self) { try await outbox.discard(id: "plate-1") }
                #expect(try await outbox.entry(id: "plate-1") == nil, "the record must go before its files")
                try FileManager.default.removeItem(at: blocked)
            }
            // The files the failed discard left behind are swept at the next open.
            try await waitUntilNoOpener(of: folder)
            _ = try Outbox(folder: folder)
            #expect(try mediaFileNames(in: folder).isEmpty)
        }
    }

    @Test func discardingAnUnknownIDThrows() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            await #expect(throws: OutboxError.entry(.notFound(id: "plate-1"))) {
                try await outbox.discard(id: "plate-1")
            }
        }
    }

    @Test func aDatabaseFromANewerVersionIsRefusedAndLeftAlone() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Outbox(folder: folder)
                try await outbox.enqueue(makeCapture(id: "plate-1"))
            }
            try withRawDatabase(in: folder) { try $0.run("PRAGMA user_version = 99") }
            let path = folder.appendingPathComponent(OutboxStore.databaseName).path
            #expect(
                throws: OutboxError.store(.newerSchema(path: path, version: 99, supported: OutboxStore.schemaVersion))
            ) {
                try Outbox(folder: folder)
            }
            #expect(try mediaFileNames(in: folder).count == 1)
        }
    }

    @Test func theDatabaseIsInWALModeWithFullSynchronousCommits() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            #expect(try await outbox.pragma("journal_mode") == "wal")
            // 2 is FULL: the write-ahead log is synced at every commit, not only at checkpoints.
            #expect(try await outbox.pragma("synchronous") == "2")
            #expect(try await outbox.pragma("busy_timeout") == "5000")
        }
    }

    @Test(arguments: ["", "plate 1", "plate/1", "../etc", "plate.1", String(repeating: "x", count: 129)])
    func anIDThatCannotNameFilesAndURLsIsRefused(id: String) throws {
        #expect(throws: OutboxError.request(.invalidID(id))) { try makeCapture(id: id) }
    }
}

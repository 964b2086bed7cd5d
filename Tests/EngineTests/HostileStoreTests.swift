import Foundation
import ImagePrep
import PhotoCapture
import Testing

@testable import Outbox

#if canImport(Glibc)
import Glibc
#endif

/// What a store holds is untrusted input: records planted or damaged by hand, counters at the
/// top of their range, photo files that vanished, times in the far future. None of it may harm
/// the device or hold up the captures that are fine, and each good capture still reaches the
/// engine exactly once.
@Suite("A store that is not what it should be")
struct HostileStoreTests {
    /// `outbox list --json`'s capture lines for the store at `store`.
    static func listed(_ store: String) throws -> [[String: Any]] {
        try OutboxProcess.run(["--store", store, "list", "--json"]).jsonLines.filter { $0["id"] != nil }
    }

    /// A record whose media name climbs out of the media folder: it is listed as unreadable, and
    /// neither drain, send-now nor discard reads or deletes the file it names.
    @Test func aRecordNamingAFileOutsideTheMediaFolderIsNeverActedOn() async throws {
        try await withTemporaryFolder { folder in
            let storeFolder = folder.appendingPathComponent("outbox")
            let photo = try smallPhoto()
            try await Outbox(folder: storeFolder).enqueue(makeCapture(id: "plate-1", photos: [photo]))
            // A file of the user's own beside the store, which the planted record names.
            let victim = folder.appendingPathComponent("victim.jpg")
            try photo.upload.data.write(to: victim)
            try withRawDatabase(in: storeFolder) { database in
                try database.run(
                    """
                    INSERT INTO outbox_entries (id, state, created_at, attempts, pending_media, owned_media, intent)
                    SELECT 'planted-1', 'QUEUED', created_at, 0, '[{"index":0,"name":"../../victim.jpg"}]',
                        '[{"index":0,"name":"../../victim.jpg"}]', intent FROM outbox_entries WHERE id = 'plate-1'
                    """)
            }

            let outbox = try Outbox(folder: storeFolder)
            let listing = try await outbox.list()
            #expect(listing.entries.map(\.id) == ["plate-1"])
            #expect(listing.unreadable.map(\.id) == ["planted-1"])
            #expect(listing.unreadable.first?.reason == "its pending media names a file outside the media folder")
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            await #expect(throws: OutboxError.self) { try await outbox.sendNow(id: "planted-1", using: transport) }
            #expect(try await engine.state().requests(about: "planted-1").isEmpty, "the file was never uploaded")
            #expect(try await outbox.list().unreadable.count == 1, "kept until the user discards it")

            try await outbox.discard(id: "planted-1")
            #expect(FileManager.default.fileExists(atPath: victim.path), "discard deletes nothing outside the store")
            #expect(try Data(contentsOf: victim) == photo.upload.data)
            try await expectDeliveredOnce("plate-1", to: engine)
        }
    }

    /// Counts at Int64.max: adding the next attempt traps today's arithmetic; they saturate, and
    /// the capture is still delivered, once. Through `outbox`, so that a trap fails the test
    /// instead of ending the test process.
    @Test func countersAtTheLargestIntegerSaturateInsteadOfTrapping() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos")).map(\.path)
            let ids = try OutboxProcess.run(["--store", store, "add"] + photos).lines
            try withRawDatabase(in: URL(fileURLWithPath: store)) {
                try $0.run(
                    "UPDATE outbox_entries SET attempts = 9223372036854775807, transient_failures = 9223372036854775807"
                )
            }
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            try await engine.inject(["mode": "status", "status": 503])
            let drain = ["--store", store, "drain", "--engine", engine.url.absoluteString]

            let refused = try OutboxProcess.run(drain)
            #expect(refused.status == 1, "\(refused.standardError)")
            #expect(refused.standardError.contains("HTTP 503"))
            let entry = try #require(try Self.listed(store).first)
            #expect(entry["attempts"] as? Int == Int.max)
            #expect(entry["waitsForSendNow"] as? Bool == true, "the retries ran out long ago")

            // Only send-now sends what waits for it.
            let sendNow = ["--store", store, "send-now", ids[0], "--engine", engine.url.absoluteString]
            let delivered = try OutboxProcess.run(sendNow)
            #expect(delivered.status == 0, "\(delivered.standardError)")
            #expect(delivered.lines == ids)
            try await expectDeliveredOnce(ids[0], to: engine)
        }
    }

    /// A photo file deleted, or replaced by a folder: its capture is parked with a reason that
    /// says so, without being sent, and the capture behind it goes. With the file back, send-now
    /// delivers it once.
    @Test(arguments: [
        ("deleted", "its photo file is missing from the outbox"),
        ("replaced by a folder", "its photo file is a folder, not a file"),
    ])
    func aCaptureWhosePhotoFileIsGoneIsParkedAndTheNextOneGoes(what: String, reason: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            let broken = try makeCapture(id: "plate-1", photos: [try smallPhoto(0)])
            try await outbox.enqueue(broken)
            try await outbox.enqueue(makeCapture(id: "plate-2", photos: [try smallPhoto(1)]))
            let file = outbox.url(of: try #require(try await outbox.entry(id: "plate-1")?.ownedMedia.first))
            try FileManager.default.removeItem(at: file)
            if what == "replaced by a folder" {
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            }
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)

            let report = try await outbox.drainNow(using: transport)
            #expect(report.parked == ["plate-1"])
            #expect(report.synced == ["plate-2"])
            #expect(report.halt == nil)
            let parked = try #require(try await outbox.entry(id: "plate-1"))
            #expect(parked.state == .failedNeedsAttention)
            #expect(parked.lastError == reason)
            #expect(parked.attempts == 0, "nothing was sent")
            #expect(try await engine.state().requests(about: "plate-1").isEmpty)
            try await expectDeliveredOnce("plate-2", to: engine)

            // The user puts the photo back (from a backup, say) and sends it.
            try? FileManager.default.removeItem(at: file)
            try broken.operation.attachments[0].data.write(to: file)
            #expect(try await outbox.sendNow(id: "plate-1", using: transport).synced == ["plate-1"])
            try await expectDeliveredOnce("plate-1", to: engine)
        }
    }

    /// A retry time stored for the year 506713 (an older version's Retry-After, or a planted
    /// value) is brought forward to the longest wait, so automatic passes do not wait for ever.
    @Test func aRetryTimeFarInTheFutureIsBroughtForward() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let storeFolder = folder.appendingPathComponent("outbox")
            let outbox = try Outbox(folder: storeFolder, configuration: clock.configuration)
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            try withRawDatabase(in: storeFolder) {
                try $0.run("UPDATE outbox_entries SET next_attempt_at = 15928963200000, transient_failures = 1")
            }
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let transport = HTTPTransport(engineURL: engine.url)
            let hour = clock.now.addingTimeInterval(3600)
            #expect(try await outbox.drain(using: transport).halt == .waitingToRetry(id: "plate-1", until: hour))
            clock.advance(by: 1800)
            #expect(
                try await outbox.drain(using: transport).halt == .waitingToRetry(id: "plate-1", until: hour),
                "brought forward once, not moved on with every pass")
            clock.advance(by: 1800)
            #expect(try await outbox.drain(using: transport).synced == ["plate-1"])
            try await expectDeliveredOnce("plate-1", to: engine)
        }
    }

    /// Cancelling the drain's task mid-send (an app being suspended) is no failed attempt.
    @Test func aCancelledDrainPutsTheCaptureBackAsItWas() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            // Held until the test releases it: the cancellation, not a time, ends the send.
            try await engine.inject(["mode": "hold", "method": "PATCH"])
            let transport = HTTPTransport(engineURL: engine.url)

            let events = outbox.events
            let draining = Task { try await outbox.drainNow(using: transport) }
            #expect(try await waitUntil(seconds: 120) { try await engine.state().held == 1 })
            #expect(try await outbox.entry(id: "plate-1")?.state == .syncing)
            draining.cancel()
            await #expect(throws: CancellationError.self) { try await draining.value }
            // What it did before it stopped, told in the events.
            var told: DrainReport?
            for await event in events {
                if case .drainCancelled(let report) = event {
                    told = report
                    break
                }
            }
            #expect(told?.halt == .cancelled(id: "plate-1"))
            #expect(told?.synced.isEmpty == true && told?.parked.isEmpty == true)
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.state == .queued)
            #expect(entry.attempts == 0)
            #expect(entry.lastError == nil)
            #expect(entry.nextAttemptAt == nil)

            // The held PATCH stays held (its client left): the next one is not.
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-1"])
            try await expectDeliveredOnce("plate-1", to: engine)
        }
    }

    /// SIGTERM (or Ctrl-C) during `outbox drain` cancels the send in flight the same way.
    @Test func sigtermDuringADrainPutsTheCaptureBackAsItWas() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos")).map(\.path)
            let id = try #require(try OutboxProcess.run(["--store", store, "add"] + photos).lines.first)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            // The upload's PATCH is held (never released: its client leaves), so that however loaded the
            // machine (each `outbox list` a process of its own) it still sees the capture in
            // SYNCING before the signal: a delay of 25 s once did not, at a load average of 8.
            try await engine.inject(["mode": "hold", "method": "PATCH"])
            let drain = ["--store", store, "drain", "--engine", engine.url.absoluteString]

            let draining = try OutboxProcess(drain + ["--timeout", "600"])
            #expect(try await waitUntil(seconds: 120) { try await engine.state().held == 1 })
            #expect(try Self.listed(store).first?["state"] as? String == "SYNCING")
            draining.send(SIGTERM)
            let stopped = draining.wait()
            #expect(!stopped.wasKilled)
            #expect(stopped.status == 1)
            #expect(
                stopped.standardError
                    == "outbox: interrupted. '\(id)' went back to the queue unsent, its attempt not counted.\n"
                    + "outbox: 1 capture left in the queue, 0 parked.\n")
            let entry = try #require(try Self.listed(store).first)
            #expect(entry["state"] as? String == "QUEUED")
            #expect(entry["attempts"] as? Int == 0)
            #expect(entry["lastError"] is NSNull)

            // The held PATCH stays held (its client left): the next one is not.
            let delivered = try OutboxProcess.run(drain)
            #expect(delivered.status == 0)
            #expect(delivered.lines == [id])
            try await expectDeliveredOnce(id, to: engine)
        }
    }
}

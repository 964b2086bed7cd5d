import Foundation
import PhotoCapture
import Testing

@testable import Outbox

/// Stores written by earlier releases, kept in `Tests/Fixtures/stores/release-COMMIT` with the
/// script that made them (`stores/make.sh`): each opens as that release left it, is mended where
/// it needs mending, and each capture in it reaches the engine exactly once.
@Suite("Stores from earlier releases")
struct StoreMigrationTests {
    /// One release's stores: the captures each holds (that release's `outbox add` derived the ids).
    struct Release: Sendable, CustomTestStringConvertible {
        let commit: String
        /// The schema that release wrote.
        let schemaVersion: Int
        let queued: String
        let partlyUploaded: String
        let parked: String
        let synced: String

        var testDescription: String { "release \(commit), schema \(schemaVersion)" }
    }

    /// The release before issue 11: schema 2.
    static let beforeIssue11 = Release(
        commit: "d7eef39", schemaVersion: 2, queued: "plate-6aec2c731a55dae383128d86340f1bdb",
        partlyUploaded: "plate-c87a4823c547c716e058e3789833946d", parked: "plate-3fc6ddc74aef8d26d06014341e59cc2f",
        synced: "plate-75a7e7028134b71bc2817f861df87c67")
    /// The release before issue 14 (operations): schema 3, photo captures only.
    static let beforeIssue14 = Release(
        commit: "9cc7ba8", schemaVersion: 3, queued: "plate-8f60671c4846a2636e8d543b2eb5f152",
        partlyUploaded: "plate-be27fc5015f7f2bf5babe665ab6a92bc", parked: "plate-a8b72b350f6b07c6b22bc9e31d07cf92",
        synced: "plate-215b68ac5496bc667af0154dc865545f")
    static let releases = [beforeIssue11, beforeIssue14]
    /// The release's upload copy of `crafted/offset-plus0545-subsec.jpg`, in every store.
    static let photoSHA256 = "1c11b76f2a0172e3b5b780faa6c20049d3e625c7feeb86402f88dc3cad837f0f"

    /// The methods and outcomes of the engine's requests about `id`, for example "PUT status(201)".
    static func requests(about id: String, to engine: ReferenceEngine) async throws -> [String] {
        try await engine.state().requests(about: id).map { "\($0.method) \($0.outcome)" }
    }

    /// What the release's own rows say, read with SQL from a copy before anything opens it, and
    /// what this version lists after migrating it to operations: the same entries, each a
    /// photo capture with the note the release stored.
    @Test(arguments: releases, ["queued", "partly-uploaded", "parked", "synced-not-retired"])
    func eachStoreListsTheEntriesTheReleaseWrote(release: Release, name: String) async throws {
        try await withTemporaryFolder { folder in
            let copy = try Fixtures.copyReleaseStore(name, of: release.commit, to: folder.appendingPathComponent(name))
            struct Row: Equatable {
                let id: String
                let state: String
                let attempts: Int
                let lastError: String?
                let note: String?
            }
            let stored = try withRawDatabase(in: copy) { database in
                try database.query(
                    """
                    SELECT id, state, attempts, last_error, json_extract(intent, '$.arguments.note')
                    FROM entries ORDER BY sequence
                    """
                ) { row in
                    Row(
                        id: row.text(at: 0) ?? "", state: row.text(at: 1) ?? "",
                        attempts: Int(row.integer(at: 2) ?? -1),
                        lastError: row.text(at: 3), note: row.text(at: 4))
                }
            }
            try #require(stored.count == 1)
            let written = try withRawDatabase(in: copy) { try $0.query("PRAGMA user_version") { $0.integer(at: 0) } }
            #expect(written == [Int64(release.schemaVersion)])
            let outbox = try Outbox(folder: copy)
            let listing = try await outbox.list()
            #expect(listing.unreadable.isEmpty)
            #expect(
                listing.entries.map {
                    Row(
                        id: $0.id, state: $0.state.rawValue, attempts: $0.attempts, lastError: $0.lastError,
                        note: $0.captureIntent?.note)
                } == stored)
            #expect(
                listing.entries.allSatisfy { $0.type == "capture.create" && $0.entity == nil && $0.blockedBy == nil })
        }
    }

    @Test(arguments: releases)
    func eachStoreOpensAsTheReleaseLeftItAndReachesTheEngineOnce(release: Release) async throws {
        try await withTemporaryFolder { folder in
            // The engine's data too: it holds the upload that landed before the 503.
            let engine = try ReferenceEngine(
                dataFolder: try Fixtures.copyReleaseStore(
                    "engine-data", of: release.commit, to: folder.appendingPathComponent("engine")))
            let transport = HTTPTransport(engineURL: engine.url)
            func open(_ name: String) throws -> Outbox {
                try Outbox(
                    folder: try Fixtures.copyReleaseStore(
                        name, of: release.commit, to: folder.appendingPathComponent(name)))
            }

            let queued = try open("queued")
            #expect(try await queued.pragma("user_version") == "\(OutboxStore.schemaVersion)")
            let waiting = try #require(try await queued.entry(id: release.queued))
            #expect(waiting.state == .queued && waiting.attempts == 0 && waiting.lastError == nil)
            #expect(waiting.pendingMedia == waiting.ownedMedia && waiting.ownedMedia.count == 1)
            #expect(waiting.captureIntent?.note == "queued by the release")
            #expect(try await queued.drainNow(using: transport).synced == [release.queued])
            #expect(try await queued.retireSynced() == [release.queued])
            #expect(try mediaFileNames(in: folder.appendingPathComponent("queued")).isEmpty)
            #expect(
                try await Self.requests(about: release.queued, to: engine) == [
                    "POST status(201)", "PATCH status(201)", "POST status(201)",
                ])

            let partly = try open("partly-uploaded")
            let resumed = try #require(try await partly.entry(id: release.partlyUploaded))
            #expect(resumed.state == .queued && resumed.attempts == 1)
            #expect(resumed.lastError?.hasPrefix("HTTP 503: POST ") == true)
            #expect(resumed.pendingMedia.isEmpty && resumed.ownedMedia.count == 1)
            #expect(try await partly.drainNow(using: transport).synced == [release.partlyUploaded])
            #expect(try await partly.retireSynced() == [release.partlyUploaded])
            #expect(try mediaFileNames(in: folder.appendingPathComponent("partly-uploaded")).isEmpty)
            #expect(
                try await Self.requests(about: release.partlyUploaded, to: engine) == ["POST status(201)"],
                "the upload that landed under the release is not sent again")

            let parked = try open("parked")
            let refused = try #require(try await parked.entry(id: release.parked))
            #expect(refused.state == .failedNeedsAttention)
            #expect(refused.lastError?.hasSuffix(": an injected failure (HTTP 422)") == true)
            #expect(try await parked.drainNow(using: transport).synced.isEmpty, "parked stays parked")
            #expect(try await parked.sendNow(id: release.parked, using: transport).synced == [release.parked])

            let synced = try open("synced-not-retired")
            #expect(try await synced.entry(id: release.synced)?.state == .synced)
            #expect(try await synced.retireSynced() == [release.synced])
            #expect(try mediaFileNames(in: folder.appendingPathComponent("synced-not-retired")).isEmpty)
            #expect(try await Self.requests(about: release.synced, to: engine).isEmpty)

            for id in [release.queued, release.partlyUploaded, release.parked] {
                try await expectDeliveredOnce(id, to: engine)
            }
        }
    }

    /// A schema-1 table made without UNIQUE (crafted from the rows of the release before issue
    /// 11) holds one capture twice (both queued) and another twice (once queued, once settled):
    /// each becomes one entry, the settled copy wins, the id is unique from then on, each capture
    /// is sent once and retiring them all goes through.
    @Test func aSchema1StoreWithAnIDTwiceKeepsOneEntryEachAndSendsEachOnce() async throws {
        try await withTemporaryFolder { folder in
            let legacy = Self.beforeIssue11
            let storeFolder = try Fixtures.copyReleaseStore(
                "schema-1-legacy", to: folder.appendingPathComponent("outbox"))
            let outbox = try Outbox(folder: storeFolder)
            let entries = try await outbox.list().entries
            #expect(entries.map(\.id) == [legacy.partlyUploaded, legacy.queued, legacy.synced, legacy.parked])
            #expect(entries.first { $0.id == legacy.synced }?.state == .synced, "the settled copy won")
            #expect(throws: OutboxError.self, "the id is unique now") {
                try withRawDatabase(in: storeFolder) {
                    try $0.run("INSERT INTO outbox_entries (id) VALUES ('\(legacy.queued)')")
                }
            }

            let engine = try ReferenceEngine(
                dataFolder: try Fixtures.copyReleaseStore("engine-data", to: folder.appendingPathComponent("engine")))
            let report = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            #expect(report.synced == [legacy.partlyUploaded, legacy.queued, legacy.parked])
            #expect(
                try await outbox.retireSynced() == [legacy.partlyUploaded, legacy.queued, legacy.synced, legacy.parked])
            #expect(try await outbox.list().entries.isEmpty)
            #expect(try mediaFileNames(in: storeFolder).isEmpty)
            for id in [legacy.partlyUploaded, legacy.queued, legacy.parked] {
                try await expectDeliveredOnce(id, to: engine)
            }
            #expect(
                try await Self.requests(about: legacy.queued, to: engine) == [
                    "POST status(201)", "PATCH status(201)", "POST status(201)",
                ])
            #expect(try await Self.requests(about: legacy.synced, to: engine).isEmpty)
        }
    }

    /// The one-list record (owned_media NULL, pending_media already empty because its upload
    /// landed) gets its owned list written once, from its files on disk, so that retiring it
    /// deletes its photo; the record without a checksum gets it from its file.
    @Test func aOneListRecordOwnsItsPhotoAgainAndMissingChecksumsAreRecomputed() async throws {
        try await withTemporaryFolder { folder in
            let legacy = Self.beforeIssue11
            let storeFolder = try Fixtures.copyReleaseStore(
                "schema-1-legacy", to: folder.appendingPathComponent("outbox"))
            let photoName = "plate-c87a4823c547c716e058e3789833946d.0.509b525ea59f.jpg"
            let outbox = try Outbox(folder: storeFolder)
            let oneList = try #require(try await outbox.entry(id: legacy.partlyUploaded))
            #expect(oneList.pendingMedia.isEmpty)
            #expect(oneList.ownedMedia == [MediaFile(index: 0, name: photoName)])
            let stored = try withRawDatabase(in: storeFolder) { database in
                try database.query(
                    "SELECT owned_media FROM outbox_entries WHERE id = ?", [.text(legacy.partlyUploaded)]
                ) {
                    $0.text(at: 0)
                }
            }
            #expect(stored == [#"[{"index":0,"name":"\#(photoName)"}]"#], "written once, at the migration")

            let mended = try #require(try await outbox.entry(id: legacy.parked)?.captureIntent?.media.first)
            #expect(mended.sha256 == Self.photoSHA256)
            #expect(mended.byteCount == 1729)
            #expect(mended.width == 64 && mended.height == 48, "what the record knew stays")

            let engine = try ReferenceEngine(
                dataFolder: try Fixtures.copyReleaseStore("engine-data", to: folder.appendingPathComponent("engine")))
            _ = try await outbox.drainNow(using: HTTPTransport(engineURL: engine.url))
            try await outbox.retire(id: legacy.partlyUploaded)
            #expect(
                !FileManager.default.fileExists(atPath: storeFolder.appendingPathComponent("media/\(photoName)").path),
                "retiring deleted the photo the one-list record had stopped naming")
            try await expectDeliveredOnce(legacy.partlyUploaded, to: engine)
            try await expectDeliveredOnce(legacy.parked, to: engine)
            #expect(
                try await engine.state().record(legacy.parked)?.media.map(\.sha256) == [Self.photoSHA256],
                "the recomputed checksum is the one the engine checked the upload against")
        }
    }
}

/// The regular files in an outbox's media folder, sorted.
func mediaFileNames(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("media").path).sorted()
}

import Foundation
import Testing

@testable import Outbox

#if canImport(Glibc)
import Glibc
#endif

/// Stores that `outbox` may read but not change, and stores it cannot open at all: a listing
/// needs no writing, and a failure names its real cause.
@Suite("Reading a store")
struct StoreAccessTests {
    /// Makes everything below `folder` readable (and its folders searchable) by every user, and
    /// returns each file's bytes, to check afterwards that nothing changed.
    static func openToEveryone(_ folder: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
        for case let path as String in FileManager.default.enumerator(atPath: folder.path)?.allObjects ?? [] {
            let url = folder.appendingPathComponent(path)
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            try FileManager.default.setAttributes(
                [.posixPermissions: isFolder.boolValue ? 0o755 : 0o644], ofItemAtPath: url.path)
            if !isFolder.boolValue { contents[path] = try Data(contentsOf: url) }
        }
        return contents
    }

    /// Every file below `folder` and its bytes.
    static func contents(of folder: URL) throws -> [String: Data] {
        var contents: [String: Data] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder.path)?.allObjects ?? [] {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder)
            if !isFolder.boolValue { contents[path] = try Data(contentsOf: folder.appendingPathComponent(path)) }
        }
        return contents
    }

    /// Another user's store (or one on a read-only file system): `list` reads it without writing
    /// anything and says so, for a store of this version whose last writer was killed (its
    /// write-ahead log not checkpointed, its shared memory file left behind) and for one the
    /// previous release wrote and closed (no log: read as immutable, through a migration in
    /// memory). The owner then drains it, and the engine gets each capture once.
    @Test(arguments: ["this version", "the previous release"])
    func aStoreThisUserCannotChangeIsStillListed(madeBy: String) async throws {
        try #require(OutboxProcess.canDropPrivileges, "running as root without \(OutboxProcess.setpriv)")
        try await withTemporaryFolder { folder in
            let storeFolder = folder.appendingPathComponent("outbox")
            let store = storeFolder.path
            let id: String
            var attempts = 0
            if madeBy == "this version" {
                let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos"))
                id = try #require(try OutboxProcess.run(["--store", store, "add", photos[0].path]).lines.first)
                // A watch that fails once against no engine, killed while it waits: its attempt
                // is only in the log.
                // Its next try is an hour away, so that a slow machine never sees a second attempt.
                let watch = try OutboxProcess([
                    "--store", store, "drain", "--engine", "http://127.0.0.1:\(try unusedPort())", "--watch", "3600",
                    "--retry-delay", "3600",
                ])
                #expect(
                    try await waitUntil(seconds: 90) {
                        try HostileStoreTests.listed(store).first?["attempts"] as? Int == 1
                    })
                watch.send(SIGKILL)
                _ = watch.wait()
                #expect(FileManager.default.fileExists(atPath: store + "/outbox.sqlite-wal"))
                attempts = 1
            } else {
                _ = try Fixtures.copyReleaseStore("queued", to: storeFolder)
                id = "plate-6aec2c731a55dae383128d86340f1bdb"
            }
            let before = try Self.openToEveryone(storeFolder)

            for arguments in [["list", "--json"], ["list"]] {
                let listing = try OutboxProcess.run(["--store", store] + arguments, asNobody: true)
                #expect(listing.status == 0)
                #expect(
                    listing.standardError
                        == "outbox: note: '\(store)' cannot be changed by this user (Permission denied), so it was"
                        + " read as it is on disk, without recovering or changing anything.\n")
                if arguments == ["list", "--json"] {
                    let entries = listing.jsonLines
                    #expect(entries.count == 2)
                    #expect(entries.first?["id"] as? String == id)
                    #expect(entries.first?["state"] as? String == "QUEUED")
                    #expect(entries.first?["attempts"] as? Int == attempts)
                    #expect(listing.lines.last == "{\"unreadable\":0}")
                } else {
                    // Never sent: pending; sent once and refused for now: retrying.
                    #expect(listing.standardOutput.contains("\(id)  \(attempts == 0 ? "pending" : "retrying")  "))
                }
            }
            #expect(try Self.contents(of: storeFolder) == before, "nothing in the store changed")
            // Sending needs writing, and says why it cannot.
            let drain = try OutboxProcess.run(
                ["--store", store, "drain", "--engine", "http://127.0.0.1:9"], asNobody: true)
            #expect(drain.status == 1)
            #expect(
                drain.standardError
                    == "outbox: error: The outbox '\(store)' cannot be changed by this user: Permission denied.\n")

            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let drained = try OutboxProcess.run(["--store", store, "drain", "--engine", engine.url.absoluteString])
            #expect(drained.status == 0, "\(drained.standardError)")
            #expect(drained.lines == [id])
            try await expectDeliveredOnce(id, to: engine)
        }
    }

    @Test func aStoreThatCannotBeOpenedAtAllSaysWhy() async throws {
        try await withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("notes.txt")
            try Data("not a store".utf8).write(to: file)
            let onAFile = try OutboxProcess.run(["--store", file.path, "list"])
            #expect(onAFile.status == 1)
            #expect(
                onAFile.standardError
                    == "outbox: error: The outbox folder '\(file.path)' could not be opened: it is a file, not a folder.\n"
            )

            let garbage = folder.appendingPathComponent("garbage")
            try FileManager.default.createDirectory(at: garbage, withIntermediateDirectories: false)
            try Data(repeating: 0x42, count: 4096).write(to: garbage.appendingPathComponent("outbox.sqlite"))
            let notADatabase = try OutboxProcess.run(["--store", garbage.path, "list"])
            #expect(notADatabase.status == 1)
            #expect(
                notADatabase.standardError.hasPrefix(
                    "outbox: error: The outbox database '\(garbage.path)/outbox.sqlite'"))
            #expect(notADatabase.standardError.contains("file is not a database"))

            guard OutboxProcess.canDropPrivileges else { return }
            let closed = folder.appendingPathComponent("closed")
            _ = try OutboxProcess.run(["--store", closed.path, "list"])  // made owner-only, as every store is
            let forbidden = try OutboxProcess.run(["--store", closed.path, "list"], asNobody: true)
            #expect(forbidden.status == 1)
            #expect(
                forbidden.standardError
                    == "outbox: error: The outbox '\(closed.path)' cannot be read: Permission denied.\n")
        }
    }
}

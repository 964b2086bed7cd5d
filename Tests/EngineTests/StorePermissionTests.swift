import Foundation
import Testing

@testable import Outbox

/// A store is its owner's only: its folder, `media/`, the database with its `-wal` and `-shm`,
/// the lock and every media file, whatever the umask, whether the folder was there before, and
/// for a store an older version left readable by everyone.
@Suite("Store permissions")
struct StorePermissionTests {
    /// Every file and folder below `folder` (and `folder` itself) whose mode is not the owner's
    /// only, with its mode in octal: empty when all are.
    static func widerThanOwner(under folder: URL) throws -> [String] {
        var paths = [""]
        paths += FileManager.default.enumerator(atPath: folder.path)?.allObjects.compactMap { $0 as? String } ?? []
        return try paths.compactMap { path in
            let url = path.isEmpty ? folder : folder.appendingPathComponent(path)
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
            let expected = attributes[.type] as? FileAttributeType == .typeDirectory ? 0o700 : 0o600
            return mode == expected ? nil : "\(path.isEmpty ? "the store folder" : path) is \(String(mode, radix: 8))"
        }
    }

    /// `outbox add` under umask 000 makes nothing that another user could read.
    @Test func aNewStoreIsTheOwnersOnlyWhateverTheUmask() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let photos = try Fixtures.distinctPhotos(count: 2, in: folder.appendingPathComponent("photos"))
            let added = try runToEnd(
                "/bin/sh",
                ["-c", "umask 000; exec \"$0\" \"$@\"", OutboxProcess.executable.path, "--store", store.path, "add"]
                    + photos.map(\.path))
            #expect(added.0 == 0, "\(added.1)")
            #expect(try Self.widerThanOwner(under: store) == [])
        }
    }

    /// The log and the shared memory, which SQLite makes while the store is open, are the owner's only too.
    @Test func theWriteAheadLogAndSharedMemoryAreTheOwnersOnly() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let outbox = try Outbox(folder: store)
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            for name in ["outbox.sqlite-wal", "outbox.sqlite-shm"] {
                #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent(name).path), "\(name)")
            }
            #expect(try Self.widerThanOwner(under: store) == [])
        }
    }

    /// A folder that was there, made 0755 by hand, is tightened when the store opens in it.
    @Test func anExistingFolderIsTightened() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            try FileManager.default.createDirectory(
                at: store.appendingPathComponent("media"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o755])
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store.path)
            try await Outbox(folder: store).enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            #expect(try Self.widerThanOwner(under: store) == [])
        }
    }

    /// A store the previous release wrote, every file of it readable by everyone: opened by
    /// `outbox list`, its folders, database and photos are the owner's only.
    @Test func anOlderStoreIsTightenedAtOpen() async throws {
        try await withTemporaryFolder { folder in
            let store = try Fixtures.copyReleaseStore("queued", to: folder.appendingPathComponent("outbox"))
            _ = try StoreAccessTests.openToEveryone(store)
            #expect(try Self.widerThanOwner(under: store) != [])
            let listed = try OutboxProcess.run(["--store", store.path, "list"])
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect(try Self.widerThanOwner(under: store) == [])
        }
    }
}

import Foundation
import Testing

@testable import Outbox

#if canImport(Glibc)
import Glibc
#endif

/// A key in memory, as an app's own provider would give it.
struct TestKey: KeyProvider {
    let key: OutboxKey
    init(_ key: OutboxKey = .generate()) { self.key = key }
    func key(forStoreIn folder: URL) throws(OutboxError) -> OutboxKey { key }
}

extension TestClock {
    /// The tests' configuration, encrypted with `key`.
    func configuration(key: TestKey) -> Outbox.Configuration {
        var configuration = configuration
        configuration.keyProvider = key
        return configuration
    }
}

/// Every byte of every file in `folder` and below: database, log, shared memory, media, all.
func everyByte(under folder: URL) throws -> [(name: String, bytes: Data)] {
    let enumerator = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
    return try enumerator.compactMap { item in
        let url = try #require(item as? URL)
        guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { return nil }
        return (url.lastPathComponent, try Data(contentsOf: url))
    }
}

/// Encryption at rest: what an encrypted store writes, and what it refuses.
@Suite("Encryption at rest")
struct EncryptionTests {
    let clock = TestClock()
    static let note = "the spare key is under the third flowerpot"

    func capture(id: String) throws -> OutboxOperation {
        try OutboxOperation(
            id: id, type: OperationType.captureCreate.name,
            payloadJSON: Data(
                #"{"kind":"plate","note":"\#(Self.note)","place":{"latitude":-33.8568,"longitude":151.2153}}"#.utf8),
            attachments: [try Photos.australia().upload])
    }

    @Test func anEncryptedStoreHoldsNoPlaintextAndReadsBackWhatWasQueued() async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            let queued = try capture(id: "plate-1")
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            #expect(await outbox.isEncrypted)
            try await outbox.enqueue(queued)
            let photo = queued.attachments[0].data
            // While the outbox is open, the log holds the record.
            for (name, bytes) in try everyByte(under: folder) {
                for secret in [
                    Data(Self.note.utf8), Data("33.8568".utf8), Data("151.2153".utf8), photo.prefix(64),
                    photo.suffix(64),
                ] {
                    #expect(bytes.range(of: secret) == nil, "'\(name)' holds plaintext")
                }
            }
            let intent = try withRawDatabase(in: folder) { database in
                try database.query("SELECT intent FROM outbox_entries") { $0.bytes(at: 0) }.first ?? nil
            }
            #expect(intent.map(StoreCipher.isSealed) == true)
            #expect(try mediaFileNames(in: folder).allSatisfy { $0.hasSuffix(".sealed") })
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.payload == queued.payload)
            #expect(entry.media == queued.media)

            let transport = ScriptedTransport(landsUploads: true)
            let report = try await outbox.drain(using: transport)
            #expect(report.synced == ["plate-1"])
            #expect(await transport.uploadedBytes == [photo], "the transport gets the plaintext, byte for byte")
            #expect(await transport.deliveries.first?.pendingUploads.first?.byteCount == Int64(photo.count))
        }
    }

    @Test func withoutItsKeyOrWithAnotherAnEncryptedStoreOpensNotAndLosesNothing() async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            try await Outbox(folder: folder, configuration: clock.configuration(key: key)).enqueue(
                capture(id: "plate-1"))
            let files = try mediaFileNames(in: folder)
            #expect(throws: OutboxError.encryption(.keyRequired(path: folder.path))) {
                try Outbox(folder: folder, configuration: clock.configuration)
            }
            #expect(throws: OutboxError.encryption(.wrongKey(path: folder.path))) {
                try Outbox(folder: folder, configuration: clock.configuration(key: TestKey()))
            }
            #expect(throws: OutboxError.encryption(.keyRequired(path: folder.path))) {
                try Outbox.readOnlyListing(folder: folder, configuration: clock.configuration)
            }
            #expect(throws: OutboxError.encryption(.wrongKey(path: folder.path))) {
                try Outbox.readOnlyListing(folder: folder, configuration: clock.configuration(key: TestKey()))
            }
            #expect(try mediaFileNames(in: folder) == files)
            let listing = try await Outbox(folder: folder, configuration: clock.configuration(key: key)).list()
            #expect(listing.entries.map(\.id) == ["plate-1"])
            #expect(
                try Outbox.readOnlyListing(folder: folder, configuration: clock.configuration(key: key)).entries.count
                    == 1)
        }
    }

    @Test func aKeyForAPlaintextStoreWithEntriesIsRefused() async throws {
        try await withTemporaryFolder { folder in
            try await Outbox(folder: folder, configuration: clock.configuration).enqueue(capture(id: "plate-1"))
            #expect(throws: OutboxError.encryption(.notEncrypted(path: folder.path))) {
                try Outbox(folder: folder, configuration: clock.configuration(key: TestKey()))
            }
            #expect(try await Outbox(folder: folder, configuration: clock.configuration).list().entries.count == 1)
        }
    }

    /// A flipped byte in a payload makes its entry unreadable: listed and counted, kept with its
    /// files through reopening (and the sweep), never sent; the other entries go on.
    @Test func aTamperedPayloadMakesItsEntryUnreadableKeptAndUnsent() async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            do {
                let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: key))
                try await outbox.enqueue(capture(id: "plate-1"))
                try await outbox.enqueue(capture(id: "plate-2"))
            }
            try flipByte(at: 40, column: "intent", id: "plate-1", in: folder)
            let files = try mediaFileNames(in: folder)
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            #expect(try mediaFileNames(in: folder) == files, "the sweep keeps the unreadable entry's file")
            let listing = try await outbox.list()
            #expect(listing.entries.map(\.id) == ["plate-2"])
            #expect(listing.unreadable.map(\.id) == ["plate-1"])
            #expect(listing.unreadable.first?.reason.contains("fails authentication") == true)
            let transport = ScriptedTransport(landsUploads: true)
            _ = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs == ["plate-2"])
        }
    }

    /// A flipped byte in a media file, or two records' files swapped: each entry is parked with
    /// its reason before anything of it is sent, and its file stays (also through the sweep).
    @Test(arguments: ["flipped byte", "swapped files"])
    func aTamperedMediaFileParksItsEntryUnsentAndKept(tampering: String) async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            try await outbox.enqueue(capture(id: "plate-1"))
            try await outbox.enqueue(capture(id: "plate-2"))
            let first = try #require(try await outbox.entry(id: "plate-1")?.ownedMedia.first).name
            let second = try #require(try await outbox.entry(id: "plate-2")?.ownedMedia.first).name
            let media = folder.appendingPathComponent("media")
            if tampering == "flipped byte" {
                var bytes = try Data(contentsOf: media.appendingPathComponent(first))
                bytes[bytes.count / 2] ^= 0x01
                try bytes.write(to: media.appendingPathComponent(first))
            } else {
                try FileManager.default.moveItem(
                    at: media.appendingPathComponent(first), to: media.appendingPathComponent("swap"))
                try FileManager.default.moveItem(
                    at: media.appendingPathComponent(second), to: media.appendingPathComponent(first))
                try FileManager.default.moveItem(
                    at: media.appendingPathComponent("swap"), to: media.appendingPathComponent(second))
            }
            let transport = ScriptedTransport(landsUploads: true)
            let report = try await outbox.drainNow(using: transport)
            let tampered = tampering == "flipped byte" ? ["plate-1"] : ["plate-1", "plate-2"]
            #expect(report.parked == tampered)
            #expect(await transport.sentIDs == (tampering == "flipped byte" ? ["plate-2"] : []))
            for id in tampered {
                let entry = try #require(try await outbox.entry(id: id))
                #expect(entry.state == .failedNeedsAttention)
                #expect(entry.lastError?.contains("fails authentication") == true)
                // Send now tries again, and finds it as it was.
                _ = try await outbox.sendNow(id: id, using: transport)
            }
            #expect(await transport.uploadedBytes.count == (tampering == "flipped byte" ? 1 : 0))
            _ = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            #expect(
                try mediaFileNames(in: folder).contains(first)
                    && (try mediaFileNames(in: folder).contains(second) || tampering == "flipped byte"))
        }
    }

    @Test func aPlantedPlaintextRecordInAnEncryptedStoreIsNeverSent() async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            _ = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            try withRawDatabase(in: folder) { database in
                try database.run(
                    """
                    INSERT INTO outbox_entries (id, state, created_at, attempts, pending_media, owned_media, intent)
                    VALUES ('planted', 'QUEUED', 0, 0, '[]', '[]', '{"media":[],"operation":"capture.create","payload":"{}","version":1}')
                    """)
            }
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: key))
            #expect(try await outbox.list().unreadable.first?.reason.contains("not encrypted") == true)
            let transport = ScriptedTransport()
            _ = try await outbox.drain(using: transport)
            #expect(await transport.sentIDs.isEmpty)
        }
    }

    /// Encrypting a plaintext store with entries in place: afterwards every entry reads as before
    /// with the key, no file or page of the folder holds the plaintext, and it opens only with the key.
    @Test func encryptingAPlaintextStoreSealsEverythingAndLeavesNoPlaintext() async throws {
        try await withTemporaryFolder { folder in
            let before: [OutboxEntry]
            do {
                let outbox = try Outbox(folder: folder, configuration: clock.configuration)
                for id in ["plate-1", "plate-2", "plate-3"] { try await outbox.enqueue(capture(id: id)) }
                try await outbox.discard(id: "plate-2")
                before = try await outbox.list().entries
            }
            let key = TestKey()
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            #expect(try await outbox.encrypt(with: key) == .encrypted(entries: 2, files: 2))
            #expect(try await outbox.encrypt(with: key) == .alreadyEncrypted)
            await #expect(throws: OutboxError.encryption(.wrongKey(path: folder.path))) {
                try await outbox.encrypt(with: TestKey())
            }
            let photo = try Photos.australia().upload.data
            for (name, bytes) in try everyByte(under: folder) {
                for secret in [Data(Self.note.utf8), Data("151.2153".utf8), photo.prefix(64), photo.suffix(64)] {
                    #expect(bytes.range(of: secret) == nil, "'\(name)' holds plaintext")
                }
            }
            #expect(try mediaFileNames(in: folder).count == 2)
            #expect(try mediaFileNames(in: folder).allSatisfy { $0.hasSuffix(".sealed") })
            let after = try await Outbox(folder: folder, configuration: clock.configuration(key: key)).list().entries
            #expect(after.map(\.id) == before.map(\.id))
            #expect(after.map(\.payload) == before.map(\.payload))
            #expect(throws: OutboxError.encryption(.keyRequired(path: folder.path))) {
                try Outbox(folder: folder, configuration: clock.configuration)
            }
            let transport = ScriptedTransport(landsUploads: true)
            _ = try await Outbox(folder: folder, configuration: clock.configuration(key: key)).drain(using: transport)
            #expect(await transport.uploadedBytes == [photo, photo])
        }
    }

    @Test func encryptingWaitsForOtherOpenersToClose() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            try await outbox.enqueue(capture(id: "plate-1"))
            let other = try Outbox(folder: folder, configuration: clock.configuration)
            await #expect {
                try await outbox.encrypt(with: TestKey())
            } throws: { error in
                guard case .encryption(.refused(_, let reason)) = error as? OutboxError else { return false }
                return reason.contains("another process")
            }
            _ = other
            #expect(try await outbox.list().entries.count == 1)
            #expect(!(await outbox.isEncrypted))
        }
    }
}

/// Flips one byte of a blob column of the record with this id, as someone editing the file would.
func flipByte(at position: Int, column: String, id: String, in folder: URL) throws {
    try withRawDatabase(in: folder) { database in
        let stored = try database.query("SELECT \(column) FROM outbox_entries WHERE id = ?", [.text(id)]) {
            $0.bytes(at: 0)
        }
        var bytes = try #require(stored.first ?? nil)
        bytes[position] ^= 0x01
        try database.run("UPDATE outbox_entries SET \(column) = ? WHERE id = ?", .blob(bytes), .text(id))
    }
}

/// Key files: owner-only, never overwritten, never inside the store, never anything but a key.
@Suite("Key files")
struct KeyFileTests {
    @Test func aNewKeyFileIsOwnerOnlyOpensItsStoreAndIsNeverOverwritten() async throws {
        try await withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("outbox.key")
            let keyFile = try KeyFile.create(at: url)
            var info = stat()
            #expect(stat(url.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.utf8.count == 65 && text.hasSuffix("\n"))
            let store = folder.appendingPathComponent("store")
            try await Outbox(folder: store, configuration: Outbox.Configuration(keyProvider: keyFile)).enqueue(
                makeCapture(id: "plate-1"))
            #expect(
                try await Outbox(folder: store, configuration: Outbox.Configuration(keyProvider: KeyFile(url: url)))
                    .list().entries.count == 1)
            #expect(throws: OutboxError.self) { try KeyFile.create(at: url) }
            #expect(try String(contentsOf: url, encoding: .utf8) == text, "the key is still the one it was")
        }
    }

    @Test func aKeyFileInsideTheStoreIsRefusedAndNothingIsCreated() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("store")
            try FileManager.default.createDirectory(
                at: store.appendingPathComponent("keys"), withIntermediateDirectories: true)
            let url = store.appendingPathComponent("keys/outbox.key")
            try KeyFile.create(at: url)
            #expect {
                try Outbox(folder: store, configuration: Outbox.Configuration(keyProvider: KeyFile(url: url)))
            } throws: { error in
                guard case .encryption(.keyFile(_, let cause)) = error as? OutboxError else { return false }
                return cause.description.contains("inside the outbox folder")
            }
            // Through a link, too.
            let link = folder.appendingPathComponent("link.key")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: url)
            #expect(throws: OutboxError.self) {
                try Outbox(folder: store, configuration: Outbox.Configuration(keyProvider: KeyFile(url: link)))
            }
        }
    }

    @Test(arguments: ["readable by others", "not a key", "missing", "a folder"])
    func aKeyFileThatIsNotOwnerOnlyOrNotAKeyIsRefused(problem: String) async throws {
        try await withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("outbox.key")
            switch problem {
            case "readable by others":
                try KeyFile.create(at: url)
                chmod(url.path, 0o644)
            case "not a key":
                try Data("not a key\n".utf8).write(to: url)
                chmod(url.path, 0o600)
            case "a folder":
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            default:
                break
            }
            let expected = [
                "readable by others": "chmod 600", "not a key": "64 hexadecimal digits", "missing": "does not exist",
                "a folder": "not a file",
            ][problem]!
            #expect {
                try KeyFile(url: url).key(forStoreIn: folder.appendingPathComponent("store"))
            } throws: { error in
                guard case .encryption(.keyFile(_, let cause)) = error as? OutboxError else { return false }
                return cause.description.contains(expected)
            }
        }
    }
}

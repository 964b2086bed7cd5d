import Foundation
import Testing

@testable import Outbox

/// A store keeps what an engine answered from anyone who copies it, lets no row reach another
/// entry's files, never seals a value twice, names every record it cannot read, and notices
/// being replaced under a running opener.
@Suite("Store integrity")
struct StoreIntegrityTests {
    let clock = TestClock()
    static let note = "the spare key is under the third flowerpot"

    /// A capture whose payload holds the note and a place, encrypted or not.
    func capture(id: String, photo: TestPhoto) throws -> OutboxOperation {
        try OutboxOperation(
            id: id, type: OperationType.captureCreate.name,
            payloadJSON: Data(
                #"{"kind":"plate","note":"\#(Self.note)","place":{"latitude":-33.8568,"longitude":151.2153}}"#.utf8),
            attachments: [photo.upload])
    }

    /// The one file the entry owns.
    func ownedFile(_ id: String, in outbox: Outbox) async throws -> String {
        try #require(try await outbox.entry(id: id)?.ownedMedia.first?.name)
    }

    /// An engine's 400 that quotes the request (the note, the place) ends up in `last_error`:
    /// sealed for its record in an encrypted store, so no byte of it is on disk, and shown in
    /// full to whoever has the key.
    @Test func anEngineAnswerQuotingTheRequestIsSealedInAnEncryptedStore() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: TestKey()))
            try await outbox.enqueue(capture(id: "plate-1", photo: try Photos.australia()))
            let quote = "POST http://engine/v1/captures: no place like '\(Self.note)' at -33.8568, 151.2153"
            let report = try await outbox.drain(
                using: ScriptedTransport([.http(status: 400, detail: quote)], landsUploads: true))
            #expect(report.parked == ["plate-1"])
            #expect(try await outbox.entry(id: "plate-1")?.lastError == "HTTP 400: \(quote)")
            for (name, bytes) in try everyByte(under: folder) {
                for secret in [Self.note, "33.8568", "151.2153"] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "'\(name)' holds '\(secret)'")
                }
            }
            let stored = try withRawDatabase(in: folder) { database in
                try database.query("SELECT last_error FROM outbox_entries") { $0.bytes(at: 0) }.first ?? nil
            }
            #expect(stored.map(StoreCipher.isSealed) == true)
        }
    }

    /// A's lists changed by hand to name B's photo too: A cannot be read, and neither retiring
    /// nor discarding it deletes B's photo, which B then delivers.
    @Test func aRowNamingAnotherEntrysFileIsUnreadableAndDeletesNothingOfIt() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            try await outbox.enqueue(makeCapture(id: "plate-a", photos: [try Photos.australia()]))
            try await outbox.enqueue(makeCapture(id: "plate-b", photos: [try Photos.landscape()]))
            let (fileA, fileB) = (
                try await ownedFile("plate-a", in: outbox), try await ownedFile("plate-b", in: outbox)
            )
            let list = #"[{"index":0,"name":"\#(fileA)"},{"index":1,"name":"\#(fileB)"}]"#
            try withRawDatabase(in: folder) {
                try $0.run(
                    "UPDATE outbox_entries SET state = 'SYNCED', owned_media = ?, pending_media = ? WHERE id = 'plate-a'",
                    .text(list), .text(list))
            }
            let listing = try await outbox.list()
            #expect(listing.unreadable.map(\.id) == ["plate-a"])
            #expect(listing.unreadable.first?.reason == "its pending media names a file that is not one of its own")
            #expect(try await outbox.retireSynced() == [])
            try await outbox.discard(id: "plate-a")
            #expect(try mediaFileNames(in: folder) == [fileB])
            let report = try await outbox.drain(using: ScriptedTransport(landsUploads: true))
            #expect(report.synced == ["plate-b"])
            #expect(report.parked == [])
        }
    }

    /// In an encrypted store the list of files is bound to the intent: a list changed to
    /// another of the entry's own names, or emptied, makes the row unreadable.
    @Test(arguments: ["emptied", "renamed"])
    func anEncryptedRowsChangedListMakesItUnreadable(change: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: clock.configuration(key: TestKey()))
            try await outbox.enqueue(capture(id: "plate-1", photo: try Photos.australia()))
            let list = change == "emptied" ? "[]" : #"[{"index":0,"name":"plate-1.0.planted.sealed"}]"#
            try withRawDatabase(in: folder) {
                try $0.run("UPDATE outbox_entries SET owned_media = ?, pending_media = ?", .text(list), .text(list))
            }
            let listing = try await outbox.list()
            #expect(listing.entries.isEmpty)
            #expect(listing.unreadable.first?.reason.hasPrefix("its intent fails authentication") == true)
        }
    }

    /// A sealed store whose encryption record was deleted: opening it with the key says so,
    /// so does `encrypt`, which changes nothing (sealing again would lose every entry), and
    /// without the key each entry is listed as unreadable for that reason.
    @Test func aStoreThatLostItsEncryptionRecordIsNeverSealedTwice() async throws {
        try await withTemporaryFolder { folder in
            let key = TestKey()
            try await Outbox(folder: folder, configuration: clock.configuration(key: key))
                .enqueue(capture(id: "plate-1", photo: try Photos.australia()))
            func intents() throws -> [Data?] {
                try withRawDatabase(in: folder) {
                    try $0.query("SELECT intent FROM outbox_entries") { $0.bytes(at: 0) }
                }
            }
            try withRawDatabase(in: folder) { try $0.run("DELETE FROM outbox_encryption") }
            let sealed = try intents()
            #expect(throws: OutboxError.encryption(.recordLost(path: folder.path))) {
                try Outbox(folder: folder, configuration: clock.configuration(key: key))
            }
            let keyless = try Outbox(folder: folder, configuration: clock.configuration)
            #expect(try await keyless.list().unreadable.map(\.reason) == [EncryptionRecord.lostWording])
            await #expect(throws: OutboxError.encryption(.recordLost(path: folder.path))) {
                try await keyless.encrypt(with: key)
            }
            #expect(try intents() == sealed, "nothing was sealed again")
        }
    }

    /// A record whose id column holds no valid id still holds back its entity by its entity
    /// column, under the name `#SEQUENCE` that the listing and the snapshot give it with its
    /// reason, and that `discard` takes; then the entity goes on.
    @Test func anUnreadableRecordWithoutAValidIDHoldsBackItsEntityAndIsNamed() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            try withRawDatabase(in: folder) {
                try $0.run(
                    """
                    INSERT INTO outbox_entries (id, state, entity, pending_media, owned_media, intent)
                    VALUES ('not an id!', 'QUEUED', 'note:42', '[]', '[]', '{}')
                    """)
            }
            try await outbox.enqueue(makeOperation(id: "note-2", entity: "note:42"))
            let listing = try await outbox.list()
            let unreadable = try #require(listing.unreadable.first)
            #expect(unreadable.name == "#\(unreadable.sequence)")
            #expect(unreadable.reason == "its id is not a valid outbox id")
            #expect(listing.entries.first?.blockedBy == unreadable.name)
            let names = Set(listing.entries.map(\.id) + listing.unreadable.map(\.name))
            #expect(listing.entries.allSatisfy { $0.blockedBy.map(names.contains) ?? true })
            let snapshot = try await outbox.snapshot()
            #expect(snapshot.unreadable.map(\.name) == [unreadable.name])
            #expect(snapshot.items.first?.status == .blocked(behind: unreadable.name))
            #expect(try await outbox.drain(using: ScriptedTransport()).synced == [])

            try await outbox.discard(id: unreadable.name)
            #expect(try await outbox.list().unreadable.isEmpty)
            #expect(try await outbox.drain(using: ScriptedTransport()).synced == ["note-2"])
        }
    }

    /// The folder deleted and a new store made at its path, or the database file replaced:
    /// the next pass of the outbox that opened the old one stops with an error that says so,
    /// and sends nothing from the file nobody sees any more.
    @Test(arguments: ["folder recreated", "database replaced"])
    func aStoreReplacedUnderAnOpenOutboxStopsItsNextPass(how: String) async throws {
        try await withTemporaryFolder { parent in
            let folder = parent.appendingPathComponent("outbox")
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            try await outbox.enqueue(makeCapture(id: "plate-old"))
            let database = folder.appendingPathComponent(OutboxStore.databaseName)
            if how == "folder recreated" {
                try FileManager.default.removeItem(at: folder)
                try await Outbox(folder: folder, configuration: clock.configuration).enqueue(
                    makeCapture(id: "plate-new"))
            } else {
                try FileManager.default.copyItem(at: database, to: parent.appendingPathComponent("copy.sqlite"))
                try FileManager.default.removeItem(at: database)
                try FileManager.default.moveItem(at: parent.appendingPathComponent("copy.sqlite"), to: database)
            }
            let transport = ScriptedTransport()
            await #expect {
                try await outbox.drain(using: transport)
            } throws: { error in
                guard case OutboxError.store(.replaced(let path, _)) = error else { return false }
                return path == folder.path
            }
            #expect(await transport.sentIDs == [])
        }
    }
}

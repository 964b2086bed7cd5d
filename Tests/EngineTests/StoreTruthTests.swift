import Foundation
import Testing

@testable import Outbox

#if canImport(Glibc)
import Glibc
#endif

/// What `outbox` keeps and says about a store under hostile engines, planted records, a full
/// disk and a store replaced under it: no secret in any byte it writes or line it prints, every
/// record named, nothing delivered left unaccounted for, and no drain on a store nobody sees.
@Suite("What a store keeps and says")
struct StoreTruthTests {
    static let password = "PASSWORD-5150"
    static let token = "TOKEN-8086"

    /// The engine's URL with a user name, a password and a token in its query, as someone
    /// might give it.
    static func withCredentials(_ engine: URL) -> String {
        "http://alice:\(password)@127.0.0.1:\(engine.port ?? 0)/?token=\(token)"
    }

    /// Which of the store's files hold the password or the token.
    static func credentialsFound(under store: URL) throws -> [String] {
        try StoreScan.everyByte(under: store).flatMap { file in
            [password, token].filter { file.bytes.range(of: Data($0.utf8)) != nil }.map { "\(file.name) holds \($0)" }
        }
    }

    /// An encrypted store drained to an engine whose 400 quotes the request (its note, its
    /// place, its query string with the token), then sent once more to a Wi-Fi login page and
    /// to a port nobody listens on, all through a URL with a password and a token: no byte of
    /// any file of the store holds the note, a coordinate, an EXIF or JPEG byte, the password
    /// or the token, and no line printed holds the password or the token.
    @Test func afterDrainsToHostileEnginesNoByteOfAnEncryptedStoreHoldsASecret() async throws {
        try await withTemporaryFolder { folder in
            let key = try KeyFile.create(at: folder.appendingPathComponent("outbox.key")).url
            let store = folder.appendingPathComponent("outbox")
            let photos = EncryptedStoreTests.photos
            let ids = try OutboxProcess.run(EncryptedStoreTests().add(store, keyFile: key)).lines
            #expect(ids.count == photos.count)
            let quoting = try ReferenceEngine.misbehaving(
                "quotes-request", dataFolder: folder.appendingPathComponent("q"))
            let login = try ReferenceEngine.misbehaving("html", dataFolder: folder.appendingPathComponent("h"))
            let unused = URL(string: "http://127.0.0.1:\(try unusedPort())")!
            let base = ["--store", store.path, "--key-file", key.path]
            var printed: [String] = []
            let drained = try OutboxProcess.run(base + ["drain", "--engine", Self.withCredentials(quoting.url)])
            printed += [drained.standardOutput, drained.standardError]
            #expect(drained.standardError.contains("HTTP 400"), "\(drained.standardError)")
            for engine in [login.url, unused] {
                let sent = try OutboxProcess.run(base + ["send-now", ids[0], "--engine", Self.withCredentials(engine)])
                #expect(sent.status == 1)
                printed += [sent.standardOutput, sent.standardError]
            }
            for arguments in [["list"], ["list", "--json"]] {
                let listed = try OutboxProcess.run(base + arguments)
                #expect(listed.status == 0)
                printed += [listed.standardOutput, listed.standardError]
            }
            #expect(try StoreScan.plaintextFound(under: store, of: photos, notes: [EncryptedStoreTests.note]) == [])
            #expect(try Self.credentialsFound(under: store) == [])
            for text in printed {
                #expect(
                    !text.contains(Self.password) && !text.contains(Self.token) && !text.contains("alice"), "\(text)")
            }
            #expect(try await quoting.state().requests.contains { $0.path.contains(Self.token) }, "the token was sent")
        }
    }

    /// A plaintext store's errors name each request by its URL without the user name, the
    /// password and the query: in the database, in `list` and on stderr.
    @Test func anEngineURLsCredentialsAreInNoColumnAndNoLinePrinted() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let photos = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos"))
            let id = try #require(try OutboxProcess.run(["--store", store.path, "add", photos[0].path]).lines.first)
            let login = try ReferenceEngine.misbehaving("html", dataFolder: folder.appendingPathComponent("h"))
            let unused = URL(string: "http://127.0.0.1:\(try unusedPort())")!
            var printed: [String] = []
            for engine in [login.url, unused] {
                let sent = try OutboxProcess.run(
                    ["--store", store.path, "send-now", id, "--engine", Self.withCredentials(engine)])
                #expect(
                    sent.standardError.contains("http://127.0.0.1:\(engine.port ?? 0)/v1/"), "\(sent.standardError)")
                printed += [sent.standardOutput, sent.standardError]
                let listed = try OutboxProcess.run(["--store", store.path, "list"])
                printed.append(listed.standardOutput)
                #expect(try Self.credentialsFound(under: store) == [])
            }
            for text in printed {
                #expect(
                    !text.contains(Self.password) && !text.contains(Self.token) && !text.contains("alice"), "\(text)")
            }
        }
    }

    /// `list` names each record it cannot read, by its id or `#SEQUENCE`, with the reason, in
    /// the table and in `--json`; every entry's blockedBy is a name it shows; `discard` takes
    /// the name, and what waited behind it goes on.
    @Test func listNamesEveryUnreadableRecordAndDiscardTakesTheName() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            _ = try Outbox(folder: store)
            try withRawDatabase(in: store) {
                try $0.run(
                    """
                    INSERT INTO outbox_entries (id, state, entity, pending_media, owned_media, intent)
                    VALUES ('not an id!', 'QUEUED', 'note:A', '[]', '[]', '{}'),
                        ('planted-1', 'QUEUED', 'note:B', '[]', '[]', 'not json')
                    """)
            }
            let op = try OutboxProcess.run(
                ["--store", store.path, "op", "--type", "note.append", "--entity", "note:A", "--payload", "{}"])
            let id = try #require(op.lines.first, "\(op.standardError)")
            let table = try OutboxProcess.run(["--store", store.path, "list"]).standardOutput
            #expect(table.contains("#1 "), "\(table)")
            #expect(table.contains("unreadable") && table.contains("its id is not a valid outbox id"), "\(table)")
            #expect(table.contains("planted-1") && table.contains("its intent is not valid JSON"), "\(table)")
            #expect(table.contains("waits behind '#1'"), "\(table)")

            let lines = try OutboxProcess.run(["--store", store.path, "list", "--json"]).jsonLines
            let unreadable = lines.compactMap { $0["unreadable"] as? [String: Any] }
            #expect(unreadable.map { $0["name"] as? String } == ["#1", "planted-1"])
            #expect(unreadable.map { $0["reason"] as? String }.first == "its id is not a valid outbox id")
            #expect(lines.last?["unreadable"] as? Int == 2)
            let names = Set(lines.compactMap { $0["id"] as? String } + unreadable.compactMap { $0["name"] as? String })
            let blockers = lines.compactMap { $0["blockedBy"] as? String }
            #expect(blockers == ["#1"] && blockers.allSatisfy(names.contains))

            let discarded = try OutboxProcess.run(["--store", store.path, "discard", "#1"])
            #expect(discarded.status == 0, "\(discarded.standardError)")
            let after = try OutboxProcess.run(["--store", store.path, "list", "--json"]).jsonLines
            #expect(after.first { $0["id"] as? String == id }?["status"] as? String == "pending")
        }
    }

    /// A small tmpfs of this test's own (root only), so that a full disk fills nothing else.
    final class SmallDisk {
        let url: URL

        init(in folder: URL, kibibytes: Int) throws {
            url = folder.appendingPathComponent("disk")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let mounted = try runToEnd("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k", "tmpfs", url.path])
            guard mounted.0 == 0 else { throw EngineTestError("mount failed: \(mounted.1)") }
        }

        deinit { _ = try? runToEnd("/bin/umount", [url.path]) }

        /// Whether this machine lets the tests mount a tmpfs: root, and a container that allows
        /// `mount` (some give root without it). Tried once, on a folder of its own.
        static let canMount: Bool = {
            guard geteuid() == 0 else { return false }
            let probe = FileManager.default.temporaryDirectory.appendingPathComponent("mount-probe-\(UUID())")
            defer { try? FileManager.default.removeItem(at: probe) }
            return (try? SmallDisk(in: probe, kibibytes: 64)) != nil
        }()

        private var filler: URL { url.appendingPathComponent("filler") }

        /// Removes what `fill` wrote.
        func clear() { try? FileManager.default.removeItem(at: filler) }

        /// Fills the disk up to `free` KiB left, after what an earlier fill wrote is gone.
        func fill(leaving free: Int) throws {
            clear()
            var info = statvfs()
            guard statvfs(url.path, &info) == 0 else { throw EngineTestError("statvfs failed") }
            let available = Int(info.f_bavail) * Int(info.f_frsize) / 1024
            _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
            let handle = try FileHandle(forWritingTo: filler)
            defer { try? handle.close() }
            let chunk = Data(count: 1024)
            for _ in 0..<max(0, available - free) { try? handle.write(contentsOf: chunk) }
        }
    }

    /// On a disk full to the last byte, `list` still shows the queue: it needs no write. A drain
    /// on a nearly full disk that delivers some entries and then fails retires them, or names
    /// each one the engine has that it could not retire.
    @Test(.enabled(if: SmallDisk.canMount, "mounting a small tmpfs needs root and a machine that allows mount"))
    func onAFullDiskListShowsTheQueueAndADrainAccountsForWhatItDelivered() async throws {
        try await withTemporaryFolder { folder in
            let disk = try SmallDisk(in: folder, kibibytes: 2048)
            let pristine = folder.appendingPathComponent("pristine")
            var ids: [String] = []
            for number in 0..<12 {
                let payload = #"{"text":"edit \#(number) \#(String(repeating: "x", count: 3000))"}"#
                let op = try OutboxProcess.run(
                    ["--store", pristine.path, "op", "--type", "note.append", "--entity", "note:\(number)"]
                        + ["--payload", payload])
                ids += op.lines
            }
            let store = disk.url.appendingPathComponent("outbox")
            try FileManager.default.copyItem(at: pristine, to: store)
            try disk.fill(leaving: 0)
            let listed = try OutboxProcess.run(["--store", store.path, "list", "--json"])
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect(Set(listed.jsonLines.compactMap { $0["id"] as? String }) == Set(ids))

            // Enough room for a few sends, not for all of them.
            var accounted = false
            for free in [96, 64, 128, 48, 192] {
                disk.clear()
                try FileManager.default.removeItem(at: store)
                try FileManager.default.copyItem(at: pristine, to: store)
                try disk.fill(leaving: free)
                let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine-\(free)"))
                let drained = try OutboxProcess.run([
                    "--store", store.path, "drain", "--engine", engine.url.absoluteString,
                ])
                let delivered = Set(try await engine.state().operations.map(\.requestId))
                guard drained.status == 1, !delivered.isEmpty, delivered.count < ids.count else { continue }
                #expect(drained.standardError.contains("database or disk is full"), "\(drained.standardError)")
                let left = Set(
                    try OutboxProcess.run(["--store", store.path, "list", "--json"]).jsonLines.compactMap {
                        $0["id"] as? String
                    })
                for id in delivered where left.contains(id) {
                    #expect(drained.standardError.contains("'\(id)'"), "\(id) is neither retired nor named")
                }
                #expect(Set(drained.lines).isDisjoint(with: left), "what it printed as retired is gone")
                accounted = true
                break
            }
            #expect(accounted, "no room left delivered some entries and then failed")
        }
    }

    /// `drain --watch` whose store folder is deleted and made again (a new store at its path,
    /// with an entry): its next pass stops it, with an error that says the store was replaced.
    /// The folder is replaced once the watch has sent the first store's capture, so that it has
    /// surely opened that store, however busy the machine is.
    @Test func aWatchingDrainStopsWhenItsStoreIsReplaced() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox")
            let photos = try Fixtures.distinctPhotos(count: 2, in: folder.appendingPathComponent("photos"))
            let first = try #require(try OutboxProcess.run(["--store", store.path, "add", photos[0].path]).lines.first)
            let engine = try ReferenceEngine(dataFolder: folder.appendingPathComponent("engine"))
            let watch = try OutboxProcess(
                ["--store", store.path, "drain", "--engine", engine.url.absoluteString, "--watch", "0.2"])
            defer { watch.send(SIGKILL) }
            #expect(try await waitUntil(seconds: 120) { try await engine.state().records.count == 1 })
            try FileManager.default.removeItem(at: store)
            let added = try OutboxProcess.run(["--store", store.path, "add", photos[1].path])
            #expect(added.status == 0)
            #expect(try await waitUntil(seconds: 60) { !watch.isRunning }, "the watch went on")
            let result = watch.wait()
            #expect(result.status == 1)
            #expect(result.standardError.contains("was replaced while it was open"), "\(result.standardError)")
            let sent = Set(try await engine.state().requests.compactMap(\.requestId))
            #expect(sent == [first], "nothing was sent from the new store by the watch of the old one")
        }
    }
}

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `outbox add` reads its photos through ImagePrep: a FIFO or a device is refused at once, and a
/// photo with a long name queues like any other.
@Suite("outbox add and special files: FIFOs, devices, long names")
struct AddSpecialFileTests {
    /// `outbox add` to the end, or killed after a minute: a hang fails the test rather than the run.
    static func add(_ arguments: [String]) throws -> OutboxProcess.FinishedRun {
        let process = try OutboxProcess(arguments)
        process.scheduleKill(delay: .seconds(60))
        return process.wait()
    }

    @Test("a FIFO named like a photo is refused at once as not a regular file; the photo after it is queued")
    func fifo() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let fifo = folder.appendingPathComponent("waiting.jpg").path
            try #require(mkfifo(fifo, 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
            let photo = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos"))[0].path
            let result = try Self.add(["--store", store, "add", "--kind", "plate", fifo, photo])
            #expect(!result.wasKilled, "outbox add waited on the FIFO")
            #expect(result.status == 1)
            #expect(
                result.standardError
                    == "outbox: error: '\(fifo)' could not be read: it is not a regular file but a named pipe (FIFO).\n"
            )
            #expect(result.lines.count == 1 && result.lines[0].hasPrefix("plate-"), "\(result.lines)")
        }
    }

    @Test("a character device is refused as not a regular file, and nothing is queued")
    func characterDevice() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let result = try Self.add(["--store", store, "add", "/dev/zero"])
            #expect(!result.wasKilled)
            #expect(result.status == 1)
            #expect(
                result.standardError
                    == "outbox: error: '/dev/zero' could not be read: it is not a regular file but a character device.\n"
            )
            #expect(result.lines.isEmpty)
            let listing = try OutboxProcess.run(["--store", store, "list", "--json"])
            #expect(listing.lines == ["{\"unreadable\":0}"])
        }
    }

    /// The outbox names its media files after the capture's id (at most 128 bytes plus a token),
    /// never after the photo, so a long photo name cannot push one past NAME_MAX.
    @Test("a photo with a 240-byte name is queued")
    func longName() async throws {
        try await withTemporaryFolder { folder in
            let store = folder.appendingPathComponent("outbox").path
            let source = try Fixtures.distinctPhotos(count: 1, in: folder.appendingPathComponent("photos"))[0]
            let name = String(repeating: "long-name-", count: 23) + "photo0.jpg"
            try #require(name.utf8.count == 240)
            let photo = folder.appendingPathComponent(name)
            try FileManager.default.copyItem(at: source, to: photo)
            let result = try Self.add(["--store", store, "add", "--kind", "plate", photo.path])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.lines.count == 1 && result.lines[0].hasPrefix("plate-"))
            let media = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("outbox/media").path)
            #expect(media.count == 1 && media.allSatisfy { $0.utf8.count < 200 }, "\(media)")
        }
    }
}

import Foundation
import ImagePrep
import Testing

@testable import Outbox
@testable import PhotoCapture

/// What Save does: from prepared photos to a queued capture.
@Suite("Commit")
struct CommitTests {
    @Test func theIntentComesFromThePhotosAndTheCaptureSurvivesReopening() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()
            let photos = [try Photos.iPhone(), try Photos.australia(), try Photos.pixel8Pro()]
            let id = try await Outbox(folder: folder, configuration: clock.configuration)
                .commit(idPrefix: "plate-", kind: "plate", note: "  gate left open \n", photos: photos)
            #expect(id.hasPrefix("plate-"))
            #expect(UUID(uuidString: String(id.dropFirst("plate-".count))) != nil)

            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            let entry = try #require(try await outbox.entry(id: id))
            #expect(entry.state == .queued)
            #expect(entry.captureIntent?.kind == "plate")
            #expect(entry.captureIntent?.note == "gate left open")
            // The first photo's own time, with its own offset (not the device's).
            #expect(entry.captureIntent?.capturedAt == "2025-09-07T14:16:43.472-04:00")
            #expect(entry.captureIntent?.timeZone == "Europe/Berlin")
            // The first photo that carries GPS, not the first photo.
            #expect(entry.captureIntent?.place == photos[1].metadata.location)
            let corpusNames = [
                "offset-minus0400-iphone14promax-p3-mpf.jpg", "gps-south-east-australia.jpg",
                "offset-plus0200-pixel8pro-8x8.jpg",
            ]
            #expect(entry.captureIntent?.media.map(\.index) == [0, 1, 2])
            #expect(entry.captureIntent?.media.map(\.sha256) == (try corpusNames.map(Fixtures.manifestSHA256)))
            #expect(
                entry.captureIntent?.media.map { PixelSize(width: $0.width ?? 0, height: $0.height ?? 0) }
                    == photos.map(\.upload.size))
            #expect(entry.captureIntent?.media.map(\.byteCount) == photos.map { Int64($0.upload.data.count) })
            for (file, photo) in zip(entry.ownedMedia, photos) {
                #expect(try Data(contentsOf: outbox.url(of: file)) == photo.upload.data)
                let permissions = try FileManager.default.attributesOfItem(atPath: outbox.url(of: file).path)[
                    .posixPermissions]
                #expect(permissions as? Int == 0o600)
            }
        }
    }

    @Test func photosFromThePipelineAreQueuedAsPrepared() async throws {
        try await withTemporaryFolder { folder in
            let preparer = PhotoPreparer()
            let photos = try ["offset-plus0200-pixel8pro-8x8.jpg", "gps-south-east-australia.jpg"].map { name in
                try preparer.prepareBlocking(contentsOf: Fixtures.corpus.appendingPathComponent(name))
            }
            let time = try #require(photos[0].metadata.captureTime)
            #expect(time.utcOffset != nil)
            let outbox = try Outbox(folder: folder)
            let id = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: photos)
            let entry = try #require(try await outbox.entry(id: id))
            #expect(entry.captureIntent?.capturedAt == time.iso8601)
            #expect(entry.captureIntent?.place == photos[0].metadata.location)
            for (file, photo) in zip(entry.ownedMedia, photos) {
                let bytes = try Data(contentsOf: outbox.url(of: file))
                #expect(bytes == photo.upload.data)
                let media = try #require(entry.captureIntent?.media.first { $0.index == file.index })
                #expect(media.sha256 == Cryptography.sha256Hex(of: bytes))
                #expect(PixelSize(width: media.width ?? 0, height: media.height ?? 0) == photo.upload.size)
            }
        }
    }

    @Test func withoutACameraTimeThatHasAnOffsetTheCaptureTimeIsNow() async throws {
        try await withTemporaryFolder { folder in
            let clock = TestClock()  // 2024-04-30 12:02:05 UTC, which is 14:02:05 in Berlin.
            var offsetless = try Photos.pixel8Pro()
            offsetless.metadata.captureTime?.utcOffset = nil
            let outbox = try Outbox(folder: folder, configuration: clock.configuration)
            for photos in [[try Photos.landscape()], [offsetless]] {
                let id = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: photos)
                #expect(try await outbox.entry(id: id)?.captureIntent?.capturedAt == "2024-04-30T14:02:05+02:00")
            }
        }
    }

    @Test func eachCommitMintsItsOwnID() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photos = [try Photos.landscape()]
            let first = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: photos)
            let second = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "", photos: photos)
            #expect(first != second)
            #expect(try await outbox.list().entries.map(\.id) == [first, second])
        }
    }

    @Test func aFailedCommitSaysWhyAndLeavesNothingBehind() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let error = await #expect(throws: OutboxError.request(.invalidIDPrefix("plate/"))) {
                try await outbox.commit(idPrefix: "plate/", kind: "plate", note: "", photos: [try Photos.landscape()])
            }
            #expect(
                error?.description == "'plate/' cannot start an outbox id: use at most 64 letters, digits, '-' or '_'.")
            #expect(try await outbox.list().entries.isEmpty)
            #expect(try mediaFileNames(in: folder).isEmpty)
        }
    }
}

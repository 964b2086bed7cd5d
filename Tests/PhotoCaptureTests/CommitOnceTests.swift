import Foundation
import ImagePrep
import Outbox
import Testing

@testable import PhotoCapture

/// Saving under an id derived from everything the capture holds: saving the same thing twice
/// queues it once, and two different captures are never one.
@Suite("Commit once")
struct CommitOnceTests {
    static let saved = Date(timeIntervalSince1970: 1_714_478_525)  // 2024-04-30 12:02:05 UTC

    @Test func theSamePhotosKindNoteAndMomentAreTheSameCapture() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            let photos = [try Photos.landscape(), try Photos.portrait()]
            let first = try await outbox.commitOnce(
                idPrefix: "plate-", kind: "plate", note: "gate", photos: photos, savedAt: Self.saved)
            #expect(first.result == .enqueued)
            #expect(first.id.hasPrefix("plate-") && first.id.count == "plate-".count + 32)
            let again = try await outbox.commitOnce(
                idPrefix: "plate-", kind: "plate", note: " gate\n", photos: photos, savedAt: Self.saved)
            #expect(again == CommitResult(id: first.id, result: .alreadyQueued), "the note is trimmed before it counts")
            #expect(try await outbox.list().entries.count == 1)

            var others: Set<String> = [first.id]
            for (kind, note, order) in [
                ("plate", "gates", photos), ("meter", "gate", photos), ("plate", "gate", photos.reversed()),
            ] {
                let other = try await outbox.commitOnce(
                    idPrefix: "plate-", kind: kind, note: note, photos: Array(order), savedAt: Self.saved)
                #expect(other.result == .enqueued)
                others.insert(other.id)
            }
            #expect(others.count == 4, "another note, kind or order is another capture")
        }
    }

    /// The seed's bug: without a time of the photos' own, kind and note were all the id knew, so
    /// the same note on two days was one capture and the second was never sent.
    @Test func twoCapturesThatSayTheSameOnDifferentDaysAreTwo() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            let photo = try Photos.landscape()  // no time of its own
            let monday = try await outbox.commitOnce(
                idPrefix: "log-", kind: "set", note: "10 reps", photos: [photo], savedAt: Self.saved)
            let tuesday = try await outbox.commitOnce(
                idPrefix: "log-", kind: "set", note: "10 reps", photos: [photo], savedAt: Self.saved + 86_400)
            #expect(monday.result == .enqueued && tuesday.result == .enqueued)
            #expect(monday.id != tuesday.id)
            let times = try await outbox.list().entries.map { $0.captureIntent?.capturedAt }
            #expect(times == ["2024-04-30T14:02:05+02:00", "2024-05-01T14:02:05+02:00"])
            // The retried save of Tuesday's, with the moment kept in the draft, is Tuesday's.
            let retried = try await outbox.commitOnce(
                idPrefix: "log-", kind: "set", note: "10 reps", photos: [photo], savedAt: Self.saved + 86_400)
            #expect(retried == CommitResult(id: tuesday.id, result: .alreadyQueued))
        }
    }

    /// A photo capture without a photo is an app's slip, refused by every way of saving one
    /// before anything is written, in words that say what to do instead.
    @Test func aCaptureWithoutAPhotoIsRefused() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            let refusals: [() async throws -> Void] = [
                { _ = try await outbox.commit(idPrefix: "plate-", kind: "plate", note: "gate", photos: []) },
                {
                    _ = try await outbox.commitOnce(
                        idPrefix: "plate-", kind: "plate", note: "gate", photos: [], savedAt: Self.saved)
                },
                {
                    _ = try Capture(
                        id: "plate-1", kind: "plate", note: "gate", capturedAt: "2024-04-30T14:02:05+02:00",
                        timeZone: nil, place: nil, uploads: [])
                },
            ]
            for refusal in refusals {
                do {
                    try await refusal()
                    Issue.record("a capture without a photo was accepted")
                } catch let error as OutboxError {
                    guard case .request(.invalidOperation(_, let reason)) = error else {
                        Issue.record("\(error)")
                        continue
                    }
                    #expect(reason.hasPrefix("a photo capture holds at least one photo, and none was given"))
                    #expect(error.localizedDescription.contains("as an operation of its own type."))
                }
            }
            #expect(try await outbox.list().entries.isEmpty)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("media").path).isEmpty
            )
        }
    }

    /// Everything the engine's record is made from is in the id, so one id never stands for two
    /// bodies (which the engine would refuse as a reused key).
    @Test func theCameraTimeThePlaceAndTheTimeZoneAreInTheID() async throws {
        try await withTemporaryFolder { folder in
            var inBerlin = TestClock().configuration
            inBerlin.timeZone = TimeZone(identifier: "Europe/Berlin")!
            var inLisbon = inBerlin
            inLisbon.timeZone = TimeZone(identifier: "Europe/Lisbon")!
            let pixel = try Photos.pixel8Pro()
            var elsewhere = pixel
            elsewhere.metadata.location = GeoPoint(latitude: 40.5, longitude: -3.7)
            var later = pixel
            later.metadata.captureTime?.local.second += 1

            var ids: Set<String> = []
            for (configuration, photo) in [
                (inBerlin, pixel), (inLisbon, pixel), (inBerlin, elsewhere), (inBerlin, later),
            ] {
                let outbox = try Outbox(folder: folder, configuration: configuration)
                ids.insert(
                    try await outbox.commitOnce(
                        idPrefix: "", kind: "plate", note: "", photos: [photo], savedAt: Self.saved
                    ).id)
            }
            #expect(ids.count == 4)
            // The camera's own time with an offset is the capture time, whenever it is saved.
            let outbox = try Outbox(folder: folder, configuration: inBerlin)
            let resaved = try await outbox.commitOnce(
                idPrefix: "", kind: "plate", note: "", photos: [pixel], savedAt: Self.saved + 3600)
            #expect(resaved.result == .alreadyQueued)
        }
    }

    @Test func afterItRetiredTheSameCaptureIsQueuedAgainUnderTheSameID() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photos = [try Photos.landscape()]
            let first = try await outbox.commitOnce(
                idPrefix: "", kind: "plate", note: "", photos: photos, savedAt: Self.saved)
            _ = try await outbox.drain(using: AcceptingTransport())
            #expect(try await outbox.retireSynced() == [first.id])
            let again = try await outbox.commitOnce(
                idPrefix: "", kind: "plate", note: "", photos: photos, savedAt: Self.saved)
            #expect(again == CommitResult(id: first.id, result: .enqueued))
        }
    }

    @Test func anInvalidPrefixIsRefused() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photo = try Photos.landscape()
            await #expect(throws: OutboxError.request(.invalidIDPrefix("plate/"))) {
                try await outbox.commitOnce(
                    idPrefix: "plate/", kind: "plate", note: "", photos: [photo], savedAt: Self.saved)
            }
        }
    }
}

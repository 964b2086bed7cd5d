import Foundation
import ImagePrep
import Testing

@testable import Outbox

/// Saving under an id derived from what the capture holds: saving the same thing twice queues it once.
@Suite("Commit once")
struct CommitOnceTests {
    @Test func theSamePhotosKindAndNoteAreTheSameCapture() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photos = [try Photos.landscape(), try Photos.portrait()]
            let first = try await outbox.commitOnce(idPrefix: "plate-", kind: "plate", note: "gate", photos: photos)
            #expect(first.result == .enqueued)
            #expect(first.id.hasPrefix("plate-") && first.id.count == "plate-".count + 32)
            let again = try await outbox.commitOnce(idPrefix: "plate-", kind: "plate", note: " gate\n", photos: photos)
            #expect(again == CommitResult(id: first.id, result: .alreadyQueued), "the note is trimmed before it counts")
            #expect(try await outbox.list().entries.count == 1)

            var others: Set<String> = [first.id]
            for (kind, note, order) in [
                ("plate", "gates", photos), ("meter", "gate", photos), ("plate", "gate", photos.reversed()),
            ] {
                let other = try await outbox.commitOnce(
                    idPrefix: "plate-", kind: kind, note: note, photos: Array(order))
                #expect(other.result == .enqueued)
                others.insert(other.id)
            }
            #expect(others.count == 4, "another note, kind or order is another capture")
        }
    }

    @Test func afterItRetiredTheSameCaptureIsQueuedAgainUnderTheSameID() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photos = [try Photos.landscape()]
            let first = try await outbox.commitOnce(idPrefix: "", kind: "plate", note: "", photos: photos)
            _ = try await outbox.drain(using: ScriptedTransport())
            #expect(try await outbox.retireSynced() == [first.id])
            let again = try await outbox.commitOnce(idPrefix: "", kind: "plate", note: "", photos: photos)
            #expect(again == CommitResult(id: first.id, result: .enqueued))
        }
    }

    @Test func anInvalidPrefixIsRefused() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            let photo = try Photos.landscape()
            await #expect(throws: OutboxError.invalidIDPrefix("plate/")) {
                try await outbox.commitOnce(idPrefix: "plate/", kind: "plate", note: "", photos: [photo])
            }
        }
    }
}

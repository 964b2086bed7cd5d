import Foundation
import Testing

@testable import Outbox

/// What an app shows with `error.localizedDescription` is the outbox's own sentence.
@Suite("Error words")
struct ErrorWordsTests {
    @Test func localizedDescriptionIsTheErrorsOwnSentence() async throws {
        let errors: [OutboxError] = [
            .entry(.notFound(id: "plate-1")), .request(.invalidIDPrefix("a b")), .request(.notStarted),
            .request(
                .invalidSetting(setting: "Schedule.interval", value: "0.0", allowed: "a positive number of seconds")),
        ]
        for error in errors {
            #expect((error as any Error).localizedDescription == error.description)
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
        // And so is a thrown one, caught as any Error, as an app's catch sees it.
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder)
            do {
                try await outbox.retire(id: "plate-9")
                Issue.record("retired what is not there")
            } catch {
                let error: any Error = error
                #expect(error.localizedDescription == "The outbox holds no entry with the id 'plate-9'.")
            }
        }
    }
}

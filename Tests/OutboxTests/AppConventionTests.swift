import Foundation
import Testing

@testable import Outbox

/// What an app developer expects of a Swift library, held to the outbox: an app's own key
/// provider throws its own errors, a key can be made and exported, an engine that is down does
/// not make the list flicker through "sending", and a failure has words for a person.
@Suite("App conventions")
struct AppConventionTests {
    /// The app's own error, from its own key store.
    struct VaultLocked: Error, Equatable { let vault: String }

    /// A provider that throws the app's own error.
    struct LockedVault: KeyProvider {
        func key(forStoreIn folder: URL) throws -> OutboxKey { throw VaultLocked(vault: "main") }
    }

    /// A provider that gives back a key the app made and stored as bytes.
    struct StoredBytes: KeyProvider {
        let bytes: Data
        func key(forStoreIn folder: URL) throws -> OutboxKey { try OutboxKey(bytes: bytes) }
    }

    @Test func aKeyProviderThrowsTheAppsOwnErrorAndTheCauseIsKept() async throws {
        try await withTemporaryFolder { folder in
            do throws(OutboxError) {
                _ = try Outbox(folder: folder, configuration: Outbox.Configuration(keyProvider: LockedVault()))
                Issue.record("opened without a key")
            } catch {
                guard case .encryption(.keyProviderFailed(let path, let cause)) = error else {
                    Issue.record("expected keyProviderFailed, not \(error)")
                    return
                }
                #expect(path == folder.path)
                #expect(cause.error as? VaultLocked == VaultLocked(vault: "main"))
                #expect("\(error)".contains("VaultLocked"))
            }
            // Nothing was made encrypted or otherwise changed by the failed open.
            let plain = try await Outbox.open(folder: folder)
            #expect(await plain.isEncrypted == false)
        }
    }

    @Test func aKeyMadeAndExportedOpensTheStoreAgain() async throws {
        try await withTemporaryFolder { folder in
            let exported = OutboxKey.generate().rawRepresentation
            #expect(exported.count == 32)
            do {
                let outbox = try Outbox(
                    folder: folder, configuration: Outbox.Configuration(keyProvider: StoredBytes(bytes: exported)))
                try await outbox.enqueue(makeCapture(id: "plate-1"))
                #expect(await outbox.isEncrypted)
            }
            let again = try Outbox(
                folder: folder, configuration: Outbox.Configuration(keyProvider: StoredBytes(bytes: exported)))
            #expect(try await again.entry(id: "plate-1") != nil)
            var other = exported
            other[0] ^= 1
            #expect(throws: OutboxError.encryption(.wrongKey(path: folder.path))) {
                _ = try Outbox(
                    folder: folder, configuration: Outbox.Configuration(keyProvider: StoredBytes(bytes: other)))
            }
        }
    }

    /// The engine is down (nothing listens on the port): each pass fails at once, and the entry
    /// goes from pending to retrying without a `sending` or a 0 % progress in between; its
    /// reason has a few words for a person beside the detail.
    @Test func aPassThatFailsAtOnceNeverShowsTheEntrySending() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            let log = EventLog(outbox)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let down = HTTPTransport(engineURL: URL(string: "http://127.0.0.1:9/")!)
            let report = try await outbox.drainNow(using: down)
            guard case .transientFailure(id: "plate-1", _) = report.halt else {
                Issue.record("expected the pass to stop at plate-1: \(report)")
                return
            }
            #expect(await log.wait { _ in log.aboutEntries.count >= 3 })
            let statuses = log.aboutEntries.compactMap {
                if case .stateChanged(_, let status, _) = $0 { status } else { nil }
            }
            #expect(statuses.first == .pending)
            #expect(!statuses.contains(.sending), "\(statuses)")
            #expect(!log.all.contains { if case .progress = $0 { true } else { false } })
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.lastError?.hasPrefix("network error: ") == true)
            #expect(entry.lastErrorSummary == "Can't reach the server")
            #expect(try await outbox.snapshot().items.first?.lastErrorSummary == "Can't reach the server")
        }
    }

    /// A send whose bytes move is told `sending` once, before its first progress.
    @Test func aSendWhoseBytesMoveIsToldSendingBeforeItsProgress() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Outbox(folder: folder, configuration: TestClock().configuration)
            let log = EventLog(outbox)
            try await outbox.enqueue(makeCapture(id: "plate-1"))
            let transport = ScriptedTransport(duringSend: { _ in })
            _ = try await outbox.drainNow(using: ProgressingTransport(inner: transport))
            #expect(
                await log.wait { _ in log.aboutEntries.contains(.retired(id: "plate-1")) || log.aboutEntries.count >= 4
                })
            let told = log.all.filter {
                switch $0 {
                case .stateChanged(_, .sending, _), .progress: true
                default: false
                }
            }
            #expect(told.first == .stateChanged(id: "plate-1", status: .sending, reason: nil))
            #expect(told.dropFirst().allSatisfy { if case .progress = $0 { true } else { false } })
            #expect(told.count >= 2)
        }
    }

    @Test(arguments: [
        (
            "network error: The operation could not be completed. (NSURLErrorDomain error -1004.)",
            "Can't reach the server"
        ),
        ("HTTP 503: engine overloaded at http://127.0.0.1:8080/v1/captures", "The server has a problem"),
        ("HTTP 401", "The server refused the sign-in"),
        ("HTTP 429", "The server asked to wait"),
        ("HTTP 422: capture.kind must not be empty", "The server refused it"),
        ("the engine did not answer in time", "The server did not answer in time"),
        ("its photo file is missing from the outbox", "The photo's file is gone or changed"),
        ("a 200 without the engine's confirmation", "Not sent: the server's answer was not understood"),
    ])
    func aFailureHasAFewWordsForAPerson(reason: String, words: String) {
        #expect(FailureSummary.of(reason) == words)
    }
}

/// Reports progress as an upload would, around another transport's send.
struct ProgressingTransport: Transport {
    let inner: ScriptedTransport
    func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        reporter.progress(bytesSent: 0)
        reporter.progress(bytesSent: reporter.totalBytes / 2)
        reporter.progress(bytesSent: reporter.totalBytes)
        return try await inner.send(delivery, reporter: reporter)
    }
}

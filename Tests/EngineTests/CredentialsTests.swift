import Foundation
import ImagePrep
import Outbox
import PhotoCapture
import Testing

/// `HTTPTransport` with a credentials provider, against the reference engine behind a bearer
/// token (`misbehaving_engine.py requires-token`): a 401 asks the provider once for fresh
/// credentials and repeats the request, instead of backing off with a stale token.
@Suite("Credentials")
struct CredentialsTests {
    /// A provider that hands out `stale` until asked to refresh, then the tokens of `refreshed`
    /// in turn (the last one again when they run out), and records every call.
    final class RotatingTokens: CredentialsProvider {
        let calls = Recorder<Bool>()
        private let refreshed: [String]

        init(refreshed: [String]) { self.refreshed = refreshed }

        func credentials(refreshing: Bool) async throws -> EngineCredentials {
            calls.append(refreshing)
            let refreshes = calls.elements.count { $0 }
            return .bearer(refreshes == 0 ? "stale" : refreshed[min(refreshes, refreshed.count) - 1])
        }
    }

    @Test func a401RefreshesTheCredentialsOnceAndTheSendGoesOn() async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.requiringToken(
                "fresh", dataFolder: folder.appendingPathComponent("engine"))
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            let tokens = RotatingTokens(refreshed: ["fresh"])
            let transport = HTTPTransport(configuration: .init(engineURL: engine.url), credentials: tokens)

            let report = try await outbox.drainNow(using: transport)
            #expect(report.synced == ["plate-1"], "delivered in the same pass, no backoff")
            #expect(tokens.calls.elements == [false, true], "asked once, and refreshed once")
            let outcomes = try await engine.state().requests(about: "plate-1").map(\.outcome)
            #expect(
                outcomes == [.status(401), .status(201), .status(201), .status(201)],
                "the upload's creation again, its bytes, then the record")
            #expect(try await outbox.entry(id: "plate-1")?.attempts == 1)

            // The fresh token is kept: the next send asks for nothing.
            try await outbox.enqueue(makeCapture(id: "plate-2", photos: [try smallPhoto(1)]))
            #expect(try await outbox.drainNow(using: transport).synced == ["plate-2"])
            #expect(tokens.calls.elements == [false, true])
        }
    }

    @Test func aSecond401IsTheAnswerAndTheEntryBacksOff() async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.requiringToken(
                "fresh", dataFolder: folder.appendingPathComponent("engine"))
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            let tokens = RotatingTokens(refreshed: ["still-wrong"])
            let transport = HTTPTransport(configuration: .init(engineURL: engine.url), credentials: tokens)

            let report = try await outbox.drainNow(using: transport)
            #expect(report.synced.isEmpty)
            #expect(tokens.calls.elements == [false, true], "one refresh per send, never a loop")
            #expect(try await engine.state().requests(about: "plate-1").map(\.outcome) == [.status(401), .status(401)])
            let entry = try #require(try await outbox.entry(id: "plate-1"))
            #expect(entry.lastError?.hasPrefix("HTTP 401: POST \(engine.url.absoluteString)/v1/uploads/") == true)
            #expect(entry.nextAttemptAt != nil, "401 is transient: it backs off")
        }
    }

    @Test func aProviderThatFailsOrGivesALineBreakSendsNothing() async throws {
        struct Failing: CredentialsProvider {
            struct SignInFailed: Error, CustomStringConvertible {
                var description: String { "the sign-in server is down" }
            }
            func credentials(refreshing: Bool) async throws -> EngineCredentials { throw SignInFailed() }
        }
        struct Injecting: CredentialsProvider {
            func credentials(refreshing: Bool) async throws -> EngineCredentials {
                .bearer("fresh\r\nX-Injected: yes")
            }
        }
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.requiringToken(
                "fresh", dataFolder: folder.appendingPathComponent("engine"))
            let outbox = try Outbox(folder: folder.appendingPathComponent("outbox"))
            try await outbox.enqueue(makeCapture(id: "plate-1", photos: [try smallPhoto()]))
            for (provider, words) in [
                (
                    Failing() as any CredentialsProvider,
                    "the app's credentials provider failed: the sign-in server is down"
                ),
                (Injecting(), "a header with a line break or a NUL"),
            ] {
                let transport = HTTPTransport(configuration: .init(engineURL: engine.url), credentials: provider)
                _ = try await outbox.drainNow(using: transport)
                let entry = try #require(try await outbox.entry(id: "plate-1"))
                #expect(entry.state == .queued)
                #expect(entry.lastError?.contains(words) == true, "\(entry.lastError ?? "nil")")
            }
            #expect(try await engine.state().requests.isEmpty, "nothing left the device")
        }
    }
}

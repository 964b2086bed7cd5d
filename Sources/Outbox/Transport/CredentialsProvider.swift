import Foundation

/// Where `HTTPTransport` gets the credentials it sends with every request, and fresh ones when
/// the engine refuses them: as PowerSync's `fetchCredentials`, the app's own code that knows how
/// to sign in or renew a token.
///
/// The transport asks once for credentials and keeps them. When the engine answers 401, it asks
/// again with `refreshing` true and repeats that request once with what it got; a second 401 is
/// the answer (transient: the entry backs off), so an engine that refuses every token is never
/// asked in a loop.
public protocol CredentialsProvider: Sendable {
    /// The credentials to send.
    ///
    /// - Parameter refreshing: True when the engine refused the ones given last (HTTP 401), so
    ///   that a cached token will not do.
    /// - Returns: The headers to add to every request.
    /// - Throws: Anything; the send then fails as a network error would (the entry backs off).
    func credentials(refreshing: Bool) async throws -> EngineCredentials
}

/// Headers that prove who the device is to the engine, for example `Authorization`.
public struct EngineCredentials: Sendable, Hashable {
    /// The headers, added to every request (over `HTTPTransport.Configuration.headers` of the
    /// same name). A name or value with a line break or a NUL is refused, never sent.
    public var headers: [String: String]

    /// Creates credentials from headers.
    public init(headers: [String: String]) {
        self.headers = headers
    }

    /// `Authorization: Bearer TOKEN`.
    public static func bearer(_ token: String) -> EngineCredentials {
        EngineCredentials(headers: ["Authorization": "Bearer \(token)"])
    }

    /// Whether every name and value can go in an HTTP header as it is: no CR, LF or NUL, which
    /// would end the header and let a value add headers of its own.
    var isWellFormed: Bool {
        headers.allSatisfy { name, value in
            !name.isEmpty && !(name + value).unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
        }
    }
}

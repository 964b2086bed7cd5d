import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends entries to an engine that speaks the capture API of `docs/engine-protocol.md`, over
/// Foundation's URLSession (FoundationNetworking on Linux).
///
/// For each entry it `PUT`s every pending upload copy to `/v1/uploads/{id}/{index}`, the same key
/// on every attempt, so that the engine can recognise a copy it already holds; reports each one
/// to the outbox as it lands, so that a send killed half-way does not upload it again; and then
/// `POST`s the record to `/v1/captures` with the entry's id as the `Idempotency-Key`. The first
/// answer that is not a success ends the send and is returned as it is, `Retry-After` included:
/// the outbox decides what it means (see `FailureClassifier`) and when to try again (`Backoff`).
///
/// Upload progress goes to the outbox's `Configuration.onProgress` as bytes leave, counting the
/// copies that landed in earlier attempts.
///
/// On Linux every request has a connection of its own (`Connection: close`). FoundationNetworking
/// hands the body to libcurl without a way to rewind it, and when a reused keep-alive connection
/// turns out to be dead libcurl resends the request on a new one without its body, which then
/// hangs until the timeout. A fresh connection per request costs a handshake and never hangs.
public final class HTTPTransport: Transport {
    /// Where the engine is and how long to wait for it.
    public struct Configuration: Sendable, Hashable {
        /// The engine's base URL, for example `https://engine.example.com` or `http://127.0.0.1:8080/api`;
        /// the contract's paths (`v1/...`) are appended to it.
        public var engineURL: URL
        /// How long a request may go without a byte moving either way, in seconds, before it fails as timed out.
        public var idleTimeout: TimeInterval
        /// The longest one request may take in all, in seconds, from connecting to the last byte
        /// of the answer: a slow drip of bytes cannot hold a send for ever.
        public var requestTimeout: TimeInterval
        /// Headers added to every request, for example `Authorization`.
        public var headers: [String: String]

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - engineURL: The engine's base URL.
        ///   - idleTimeout: Seconds without progress before a request fails; 30 by default.
        ///   - requestTimeout: Seconds one request may take in all; 300 by default (a 2 MB copy at 64 kbit/s).
        ///   - headers: Extra headers for every request.
        public init(
            engineURL: URL, idleTimeout: TimeInterval = 30, requestTimeout: TimeInterval = 300,
            headers: [String: String] = [:]
        ) {
            self.engineURL = engineURL
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.headers = headers
        }
    }

    /// Where the engine is and how long to wait for it.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: SessionDelegate

    /// URLSession's own timeout, in whole seconds above both of the transport's, so that it never decides first.
    private var backstop: TimeInterval { Self.backstop(configuration) }

    private static func backstop(_ configuration: Configuration) -> TimeInterval {
        (max(configuration.idleTimeout, configuration.requestTimeout) + 1).rounded(.up)
    }

    /// Creates a transport with its own URLSession (ephemeral: no cookies, no cache, no credentials on disk).
    ///
    /// - Parameter configuration: The engine's URL, the timeouts and extra headers.
    public init(configuration: Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        // The timeouts are the transport's own (see SessionDelegate.perform); URLSession's is a backstop.
        sessionConfiguration.timeoutIntervalForRequest = Self.backstop(configuration)
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        delegate = SessionDelegate()
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    /// Creates a transport to the engine at `engineURL` with the default timeouts.
    public convenience init(engineURL: URL) {
        self.init(configuration: Configuration(engineURL: engineURL))
    }

    deinit {
        // A URLSession keeps its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Uploads the pending copies, then creates the capture; see the type's documentation.
    ///
    /// - Returns: The first answer that is not a success, or the capture request's answer.
    /// - Throws: `OutboxError.mediaRead` when a pending copy cannot be read, and whatever
    ///   `DeliveryReporter.uploadLanded(index:)` throws; either counts as a network error.
    public func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        var sent = delivery.landedBytes
        reporter.progress(bytesSent: sent)
        for upload in delivery.pendingUploads {
            guard FileManager.default.isReadableFile(atPath: upload.fileURL.path) else {
                throw OutboxError.mediaRead(path: upload.fileURL.path, reason: "it is missing or not readable")
            }
            let request = prepared(
                EngineRequest.upload(
                    upload, of: delivery.id, engine: configuration.engineURL, timeout: backstop))
            let before = sent
            let result = await delegate.perform(
                request, uploading: upload.fileURL, in: session, idleTimeout: configuration.idleTimeout,
                deadline: configuration.requestTimeout
            ) { bytes in
                reporter.progress(bytesSent: before + min(bytes, upload.byteCount))
            }
            if let failure = Self.failure(result, of: request) { return failure }
            try await reporter.uploadLanded(index: upload.index)
            sent = before + upload.byteCount
            reporter.progress(bytesSent: sent)
        }
        let request = prepared(
            try EngineRequest.capture(delivery, engine: configuration.engineURL, timeout: backstop))
        let result = await delegate.perform(
            request, uploading: nil, in: session, idleTimeout: configuration.idleTimeout,
            deadline: configuration.requestTimeout)
        return Self.failure(result, of: request) ?? .http(status: Self.status(of: result))
    }

    /// The request with this transport's extra headers, and on Linux a connection of its own.
    private func prepared(_ request: URLRequest) -> URLRequest {
        var request = request
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        #if canImport(FoundationNetworking)
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        return request
    }

    /// What to return for a request that did not succeed; nil for a 2xx answer.
    ///
    /// The detail names the request (method and URL) and gives the engine's own explanation, so
    /// that `lastError` says which step of the send failed and why.
    static func failure(_ result: HTTPExchangeResult, of request: URLRequest) -> TransportResponse? {
        let name = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
        switch result {
        case .answered(let status, _, _) where (200...299).contains(status):
            return nil
        case .answered(let status, let retryAfter, let body):
            let detail = EngineRequest.detail(fromBody: body).map { "\(name): \($0)" } ?? name
            return .http(status: status, retryAfter: retryAfter, detail: detail)
        case .timedOut:
            return .timedOut
        case .failed(let reason):
            return .networkError(detail: "\(name): \(reason)")
        }
    }

    private static func status(of result: HTTPExchangeResult) -> Int {
        if case .answered(let status, _, _) = result { return status }
        return 0
    }
}

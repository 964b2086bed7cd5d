import Foundation
internal import PlatformLayer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends entries to an engine that speaks the protocol of `docs/engine-protocol.md`, over
/// Foundation's URLSession (FoundationNetworking on Linux): each entry's files first, resumed
/// after a cut where the engine offers it, then its record with the entry's id as the
/// `Idempotency-Key`, so that a send repeated after any failure is kept once.
///
/// A 2xx counts only as the contract's answer, so that a captive portal's page never retires
/// anything; the first other answer is returned as it is, for the outbox's ``FailureClassifier``
/// and ``Backoff``. What a send does, its bounds, credentials and progress: <doc:ResumableUploads>.
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
        /// The most bytes of an answer's body that are read. An answer that announces or sends
        /// more is cut off there: a success is then not confirmed, an error keeps its status.
        public var maximumAnswerBytes: Int

        /// `engineURL` in the one form the transport compares and requests it in: the scheme
        /// and host in lower case and no default port (`HTTP://Engine.example.com:80/api` is
        /// `http://engine.example.com/api`); nil when it is not an http or https URL with a host.
        public var normalizedEngineURL: URL? { EngineURL.normalized(engineURL) }

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - engineURL: The engine's base URL.
        ///   - idleTimeout: Seconds without progress before a request fails; 30 by default.
        ///   - requestTimeout: Seconds one request may take in all; 300 by default (a 2 MB copy at 64 kbit/s).
        ///   - headers: Extra headers for every request.
        ///   - maximumAnswerBytes: The most bytes of an answer's body read; 1 MiB by default (the
        ///     largest record the engine keeps).
        public init(
            engineURL: URL, idleTimeout: TimeInterval = 30, requestTimeout: TimeInterval = 300,
            headers: [String: String] = [:], maximumAnswerBytes: Int = 1024 * 1024
        ) {
            self.engineURL = engineURL
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.headers = headers
            self.maximumAnswerBytes = maximumAnswerBytes
        }
    }

    /// Where the engine is and how long to wait for it.
    public let configuration: Configuration
    private let session: URLSession
    let delegate: SessionDelegate
    /// Where the credentials come from; nil for an engine that needs none.
    private let credentialsProvider: (any CredentialsProvider)?
    /// The credentials last fetched, kept across sends.
    private let currentCredentials = Locked<EngineCredentials?>(nil)
    /// The engine's URL in the normal form (`EngineURL`), without a user name or password; nil
    /// when it is not an http or https URL.
    let engineURL: URL?
    /// The `Authorization` the user name and password of the configured URL make, if it has them.
    private let urlAuthorization: String?
    /// The upload resources the engine created, by upload, until each upload lands: what a
    /// send after a cut resumes. In memory; the outbox's store keeps them for another process.
    let uploadResources = Locked<[UploadKey: URL]>([:])
    /// Whether the engine refused a resumable upload's creation: it keeps only the contract, and
    /// every upload goes as one PUT from then on.
    let isCreationRefused = Locked(false)
    /// The pass in which the engine refused appends: its other uploads go as one PUT each.
    let passWithoutResumption = Locked<UUID?>(nil)
    /// What each upload charged to its budget in the pass in flight (`UploadBudget`).
    let passSpending = Locked(PassSpending())

    /// URLSession's own timeout, in whole seconds above both of the transport's, so that it never decides first.
    var backstop: TimeInterval { Self.backstop(configuration) }

    private static func backstop(_ configuration: Configuration) -> TimeInterval {
        (max(configuration.idleTimeout, configuration.requestTimeout) + 1).rounded(.up)
    }

    /// Creates a transport with its own URLSession (ephemeral: no cookies, no cache, no credentials on disk).
    ///
    /// - Parameters:
    ///   - configuration: The engine's URL, the timeouts and extra headers.
    ///   - credentials: Where the credentials come from, and fresh ones after a 401; nil for none.
    public convenience init(configuration: Configuration, credentials: (any CredentialsProvider)? = nil) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        // The timeouts are the transport's own (see SessionDelegate.perform); URLSession's is a backstop.
        sessionConfiguration.timeoutIntervalForRequest = Self.backstop(configuration)
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        self.init(
            configuration: configuration, credentials: credentials, sessionConfiguration: sessionConfiguration,
            delegate: SessionDelegate())
    }

    /// Creates a transport to the engine at `engineURL` with the default timeouts.
    public convenience init(engineURL: URL) {
        self.init(configuration: Configuration(engineURL: engineURL))
    }

    init(
        configuration: Configuration, credentials: (any CredentialsProvider)?,
        sessionConfiguration: URLSessionConfiguration, delegate: SessionDelegate
    ) {
        self.configuration = configuration
        engineURL = configuration.normalizedEngineURL.map(EngineURL.withoutCredentials)
        urlAuthorization = EngineURL.basicAuthorization(of: configuration.engineURL)
        self.credentialsProvider = credentials
        self.delegate = delegate
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // A URLSession keeps its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    /// Uploads the pending attachments, then sends the record; see the type's documentation.
    ///
    /// - Returns: The first answer that is not a confirmed success, or the record request's answer.
    /// - Throws: `OutboxError.media(.read)` when a pending copy cannot be read, `CancellationError`
    ///   when the task is cancelled between requests, and whatever
    ///   `DeliveryReporter.uploadLanded(index:)` throws.
    public func send(_ delivery: Delivery, reporter: DeliveryReporter) async throws -> TransportResponse {
        guard let engine = engineURL else {
            return .networkError(
                detail: "the engine's URL '\(EngineRequest.shown(configuration.engineURL))' is not an http:// or"
                    + " https:// URL with a host")
        }
        var hasRefreshed = false
        var sent = delivery.landedBytes
        reporter.progress(bytesSent: sent)
        for upload in delivery.pendingUploads {
            let bytes = try upload.contents()
            try Task.checkCancellation()
            let before = sent
            let landed = EngineConfirmation.upload(
                id: delivery.id, index: upload.index, sha256: Cryptography.sha256Hex(of: bytes), byteCount: bytes.count)
            let inFlight = UploadInFlight(
                upload: upload, key: UploadKey(id: delivery.id, index: upload.index), bytes: bytes, landed: landed,
                network: delivery.network, engine: engine, reporter: reporter,
                progress: { count in reporter.progress(bytesSent: before + min(count, Int64(bytes.count))) })
            if let failure = try await send(inFlight, hasRefreshed: &hasRefreshed) {
                return failure
            }
            try await reporter.uploadLanded(index: upload.index)
            sent = before + Int64(bytes.count)
            reporter.progress(bytesSent: sent)
        }
        try Task.checkCancellation()
        let record = try EngineRequest.record(delivery, engine: engine, timeout: backstop)
        let request = prepared(record.request, network: delivery.network)
        let result = try await exchange(request, body: nil, hasRefreshed: &hasRefreshed)
        return failure(result, of: request, expecting: record.confirmation) ?? .http(status: Self.status(of: result))
    }

    /// Sends one request with the credentials, and after a 401, when this send has not yet done
    /// so, once more with fresh ones.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while the provider works.
    func exchange(
        _ request: URLRequest, body: Data?, hasRefreshed: inout Bool, progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws -> HTTPExchangeResult {
        var result = try await exchange(request, body: body, refreshing: false, progress: progress)
        if credentialsProvider != nil, !hasRefreshed, case .answered(let answer) = result, answer.status == 401 {
            hasRefreshed = true
            result = try await exchange(request, body: body, refreshing: true, progress: progress)
        }
        return result
    }

    private func exchange(
        _ request: URLRequest, body: Data?, refreshing: Bool, progress: (@Sendable (Int64) -> Void)?
    ) async throws -> HTTPExchangeResult {
        var request = request
        if let credentialsProvider {
            let credentials: EngineCredentials
            if !refreshing, let kept = currentCredentials.withLock({ $0 }) {
                credentials = kept
            } else {
                do {
                    credentials = try await credentialsProvider.credentials(refreshing: refreshing)
                } catch {
                    try Task.checkCancellation()
                    return .failed(reason: "the app's credentials provider failed: \(error)")
                }
                guard credentials.isWellFormed else {
                    return .failed(reason: "the app's credentials provider gave a header with a line break or a NUL")
                }
                currentCredentials.withLock { $0 = credentials }
            }
            for (name, value) in credentials.headers { request.setValue(value, forHTTPHeaderField: name) }
        }
        return await delegate.perform(
            request, body: body, in: session, idleTimeout: configuration.idleTimeout,
            deadline: configuration.requestTimeout, bodyLimit: configuration.maximumAnswerBytes, progress: progress)
    }

    /// The request with this transport's extra headers, asking for an answer that is not
    /// compressed, on Apple's platforms only over the networks the entry's type allows, and on
    /// Linux on a connection of its own.
    ///
    /// FoundationNetworking otherwise asks for `deflate, gzip, br, zstd` and inflates the answer
    /// before the body limit sees it, so a 1 MB answer could cost a gigabyte; a server that
    /// compresses anyway is refused at its headers (`SessionDelegate`). On Linux nothing tells
    /// the networks apart: the outbox holds what waits for its network before it gets here.
    func prepared(_ request: URLRequest, network: NetworkRequirement) -> URLRequest {
        var request = request
        #if !canImport(FoundationNetworking)
        request.allowsExpensiveNetworkAccess = network.allowsExpensive
        request.allowsConstrainedNetworkAccess = network.allowsConstrained
        #endif
        if let urlAuthorization { request.setValue(urlAuthorization, forHTTPHeaderField: "Authorization") }
        for (name, value) in configuration.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        #if canImport(FoundationNetworking)
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        return request
    }

    /// What to return for a request that did not succeed; nil for a success the engine's answer confirms.
    ///
    /// The detail names the request (method and URL, without credentials) and gives the engine's own explanation, or
    /// what came back instead of it, so that `lastError` says which step of the send failed and why.
    func failure(
        _ result: HTTPExchangeResult, of request: URLRequest, expecting confirmation: EngineConfirmation
    ) -> TransportResponse? {
        let name = "\(request.httpMethod ?? "GET") \(EngineRequest.shown(request.url))"
        switch result {
        case .answered(let answer) where (200...299).contains(answer.status):
            guard !confirmation.isConfirmed(by: answer) else { return nil }
            return .notConfirmed(status: answer.status, detail: "\(name): \(confirmation.whyNotConfirmed(by: answer))")
        case .answered(let answer):
            let detail =
                EngineRequest.detail(fromBody: answer.body).map {
                    let quoted = EngineRequest.withoutCredentials($0, of: request.url)
                    return "\(name): \(EngineRequest.withoutCredentials(quoted, of: configuration.engineURL))"
                } ?? name
            if answer.status == 422, !confirmation.isUpload, let code = EngineRequest.code(fromBody: answer.body),
                EngineRequest.lostUploadCodes.contains(code)
            {
                return .uploadsNotHeld(code: code, detail: detail)
            }
            return .http(status: answer.status, retryAfter: answer.retryAfter, detail: detail)
        case .oversized(let status, let retryAfter):
            let limit = Self.describe(byteCount: configuration.maximumAnswerBytes)
            guard !(200...299).contains(status) else {
                return .notConfirmed(
                    status: status,
                    detail: "\(name): the server answered \(status) with a body larger than \(limit),"
                        + " not the engine's answer, and it was not read")
            }
            return .http(
                status: status, retryAfter: retryAfter,
                detail: "\(name): its body was larger than \(limit) and was not read")
        case .encoded(let status, let retryAfter, let encoding):
            let what = "a body compressed with '\(encoding)', which was not asked for"
            guard !(200...299).contains(status) else {
                return .notConfirmed(
                    status: status,
                    detail: "\(name): the server answered \(status) with \(what), not the engine's answer,"
                        + " and it was not read")
            }
            return .http(
                status: status, retryAfter: retryAfter, detail: "\(name): its body was \(what), and it was not read")
        case .timedOut:
            return .timedOut
        case .failed(let reason), .unusableURL(let reason):
            return .networkError(detail: "\(name): \(reason)")
        case .networkNotAllowed(let path):
            return .networkNotAllowed(path: path)
        }
    }

    /// "1 MiB", "512 KiB" or "1000 bytes".
    private static func describe(byteCount: Int) -> String {
        if byteCount >= 1024 * 1024, byteCount % (1024 * 1024) == 0 { return "\(byteCount / (1024 * 1024)) MiB" }
        if byteCount >= 1024, byteCount % 1024 == 0 { return "\(byteCount / 1024) KiB" }
        return "\(byteCount) bytes"
    }

    private static func status(of result: HTTPExchangeResult) -> Int {
        if case .answered(let answer) = result { return answer.status }
        return 0
    }
}

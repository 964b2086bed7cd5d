import Foundation
internal import PlatformLayer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one HTTP request came to.
enum HTTPExchangeResult: Sendable {
    /// The server answered with a body no larger than the limit.
    case answered(HTTPAnswer)
    /// The server answered `status` with a body larger than the limit, which was not read past it.
    case oversized(status: Int, retryAfter: String?)
    /// The server answered `status` with a body in a `Content-Encoding` that was not asked for
    /// (`encoding`, for example "gzip"), which was not read.
    case encoded(status: Int, retryAfter: String?, encoding: String)
    /// Nothing moved for the idle timeout, or the whole request outlived its deadline.
    case timedOut
    /// The request failed without an answer; the reason is one phrase, for example "Empty reply from server".
    case failed(reason: String)
    /// The request could not be made for a reason of its URL's, not of the network: an unsupported
    /// or malformed URL, or a server certificate that is not trusted or does not name the host.
    /// The same request would fail the same way every time.
    case unusableURL(reason: String)
    /// The system would not send over the network it is on, `path`, which the request does not
    /// allow (`allowsExpensiveNetworkAccess`, `allowsConstrainedNetworkAccess`).
    case networkNotAllowed(NetworkPath)
}

/// A server's answer: what the transport needs of its headers, and its body.
struct HTTPAnswer: Sendable {
    let status: Int
    /// The raw `Retry-After` header.
    let retryAfter: String?
    /// The raw `Content-Type` header.
    let contentType: String?
    let body: Data
    /// The raw `Location`, `Upload-Offset` and `Upload-Complete` headers: the upload resource of
    /// a resumable upload, and how much of it the engine holds (`ResumableUpload` reads them).
    var location: String? = nil
    var uploadOffset: String? = nil
    var uploadComplete: String? = nil
}

/// Turns URLSession's delegate callbacks into one awaited result per request, with the body's
/// upload progress along the way.
///
/// The delegate form rather than completion handlers because on Linux (FoundationNetworking) a
/// task created with a completion handler never reports `didSendBodyData`, and upload progress is
/// the point of an upload that may take a minute on a bad link.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// One request in flight.
    private struct Exchange {
        var body = Data()
        var isPastDeadline = false
        /// The most body bytes the caller takes.
        let bodyLimit: Int
        /// The answer's status and `Retry-After`, once its headers came.
        var status: Int?
        var retryAfter: String?
        /// When a byte last moved, either way.
        var lastActivity = ContinuousClock.now
        let progress: (@Sendable (Int64) -> Void)?
        let continuation: CheckedContinuation<HTTPExchangeResult, Never>
    }

    /// The requests in flight, by task identifier.
    private let exchanges = Locked<[Int: Exchange]>([:])
    /// Whether the session is a background one (iOS): bodies then go from files, as such a
    /// session requires, and the timeouts are the session's, whose clock stops while the app is
    /// suspended, rather than a watchdog's.
    let isBackground: Bool
    /// What the app gave `handleEventsForBackgroundURLSession`, called once the session's events are delivered.
    let backgroundEventsFinished = Locked<(@Sendable () -> Void)?>(nil)

    init(isBackground: Bool = false) {
        self.isBackground = isBackground
    }

    /// Sends `request`, with `body` as its body when there is one, and waits for the result.
    ///
    /// Both timeouts are kept here rather than left to URLSession, whose `timeoutInterval` means
    /// different things on different platforms: on Apple's the time without a byte moving, and in
    /// FoundationNetworking libcurl's limit on the whole transfer, in whole seconds (so 0.5 fails
    /// every request at once). The request's own `timeoutInterval` should be a backstop above both.
    ///
    /// The answer's body is kept up to `bodyLimit` bytes: one that announces more, or sends more,
    /// is cancelled there and comes back `.oversized`, so that no server can make the device
    /// allocate what it likes.
    ///
    /// - Parameters:
    ///   - idleTimeout: The longest no byte may move either way, in seconds.
    ///   - deadline: The longest the whole request may take, in seconds, answer included.
    ///   - bodyLimit: The most bytes of the answer's body that are read.
    ///   - progress: Called with the body bytes sent so far, from URLSession's queue.
    /// - Returns: The answer, or how the request failed; cancelling the calling task cancels the request.
    func perform(
        _ request: URLRequest, body: Data?, in session: URLSession, idleTimeout: TimeInterval,
        deadline: TimeInterval, bodyLimit: Int, progress: (@Sendable (Int64) -> Void)? = nil
    ) async -> HTTPExchangeResult {
        if isBackground {
            return await performInBackground(request, body: body, in: session, bodyLimit: bodyLimit, progress: progress)
        }
        let task = body.map { session.uploadTask(with: request, from: $0) } ?? session.dataTask(with: request)
        let identifier = task.taskIdentifier
        let started = ContinuousClock.now
        let watchdog = Task { [weak self] in
            while true {
                let lastActivity = self?.exchanges.withLock { $0[identifier]?.lastActivity } ?? started
                let end = min(lastActivity + .seconds(idleTimeout), started + .seconds(deadline))
                if ContinuousClock.now >= end { break }
                try await Task.sleep(until: end, clock: .continuous)
            }
            self?.exchanges.withLock { $0[identifier]?.isPastDeadline = true }
            task.cancel()
        }
        defer { watchdog.cancel() }
        return await run(task, bodyLimit: bodyLimit, progress: progress)
    }

    /// Starts `task` and waits for what it came to; cancelling the calling task cancels it.
    private func run(_ task: URLSessionTask, bodyLimit: Int, progress: (@Sendable (Int64) -> Void)?) async
        -> HTTPExchangeResult
    {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchanges.withLock {
                    $0[task.taskIdentifier] = Exchange(
                        bodyLimit: bodyLimit, progress: progress, continuation: continuation)
                }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// `perform` in a background session: the body (the upload's bytes, or the record) is written
    /// to a file of its own in the temporary folder, readable by this user only, and sent from
    /// there, because a background session sends nothing from memory. The file is removed after.
    private func performInBackground(
        _ request: URLRequest, body: Data?, in session: URLSession, bodyLimit: Int,
        progress: (@Sendable (Int64) -> Void)?
    ) async -> HTTPExchangeResult {
        var request = request
        let bytes = body ?? request.httpBody ?? Data()
        request.httpBody = nil
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "outbox-body-\(UUID().uuidString).tmp")
        // Readable by this user only from the start, and new (never a file planted there):
        // Foundation's atomic write gave it the umask's mode until its permissions were changed.
        func notStaged(_ error: SystemError) -> HTTPExchangeResult {
            .failed(reason: "the request's body could not be staged for the background session: \(error)")
        }
        let descriptor: Int32
        do throws(SystemError) {
            descriptor = try FileCalls.createNew(file.path, permissions: 0o600)
        } catch {
            return notStaged(error)  // nothing of ours is there to remove
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let written = bytes.withUnsafeBytes { bytes in
            Result { () throws(SystemError) in try FileCalls.writeAll(bytes, to: descriptor, path: file.path) }
        }
        try? FileCalls.close(descriptor, path: file.path)
        if case .failure(let error) = written { return notStaged(error) }
        return await run(session.uploadTask(with: request, fromFile: file), bodyLimit: bodyLimit, progress: progress)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let progress = exchanges.withLock { exchanges in
            exchanges[task.taskIdentifier]?.lastActivity = .now
            return exchanges[task.taskIdentifier]?.progress
        }
        progress?(totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let refused = exchanges.withLock { exchanges -> (Exchange, HTTPExchangeResult)? in
            let identifier = dataTask.taskIdentifier
            guard exchanges[identifier] != nil, let response = response as? HTTPURLResponse else { return nil }
            let retryAfter = response.value(forHTTPHeaderField: "Retry-After")
            exchanges[identifier]?.lastActivity = .now
            exchanges[identifier]?.status = response.statusCode
            exchanges[identifier]?.retryAfter = retryAfter
            let result: HTTPExchangeResult
            if let encoding = Self.encoding(of: response) {
                // A compressed body is refused unread: its length says nothing of what it inflates to.
                result = .encoded(status: response.statusCode, retryAfter: retryAfter, encoding: encoding)
            } else if response.expectedContentLength > Int64(exchanges[identifier]?.bodyLimit ?? 0) {
                // So is a Content-Length above the limit, before a byte of the body is read.
                result = .oversized(status: response.statusCode, retryAfter: retryAfter)
            } else {
                return nil
            }
            return exchanges.removeValue(forKey: identifier).map { ($0, result) }
        }
        // FoundationNetworking ignores the disposition (it cannot pause a transfer), hence `refuse`.
        completionHandler(refused == nil ? .allow : .cancel)
        if let (exchange, result) = refused { refuse(dataTask, exchange, with: result) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let refused = exchanges.withLock { exchanges -> (Exchange, HTTPExchangeResult)? in
            let identifier = dataTask.taskIdentifier
            guard let exchange = exchanges[identifier] else { return nil }
            guard exchange.body.count + data.count > exchange.bodyLimit else {
                // In place, so that the body is not copied on every chunk.
                exchanges[identifier]?.lastActivity = .now
                exchanges[identifier]?.body.append(data)
                return nil
            }
            exchanges[identifier] = nil
            guard let status = exchange.status else {
                return (exchange, .failed(reason: "a body larger than the limit came without an HTTP status"))
            }
            return (exchange, .oversized(status: status, retryAfter: exchange.retryAfter))
        }
        if let (exchange, result) = refused { refuse(dataTask, exchange, with: result) }
    }

    /// Ends the wait for an answer refused part-way at once, and cancels its task from another
    /// queue; what the task still reports is dropped, since its exchange is gone.
    ///
    /// Not from this delegate's queue: FoundationNetworking's `cancel()` waits for the session's
    /// work queue, where libcurl hands over all that one read of the socket brought before it
    /// looks at a cancel, inflated (for a 1 MB gzip bomb, a gigabyte in 16 KB chunks). Waiting
    /// there would hold this queue, and every chunk queued for it would pile up in memory; from
    /// elsewhere, this queue goes on dropping them as they come.
    private func refuse(_ task: URLSessionTask, _ exchange: Exchange, with result: HTTPExchangeResult) {
        exchange.continuation.resume(returning: result)
        DispatchQueue.global().async { task.cancel() }
    }

    /// Redirects are not followed: the contract has none, and a redirected PUT or POST could
    /// change method or lose its body. The 3xx itself is the answer.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A 401 that asks for credentials (`WWW-Authenticate`) is the answer, as any status is: the
    /// transport sends its credentials in headers, never in answer to a challenge. On Linux,
    /// FoundationNetworking repeats the request, whatever the disposition, with Basic credentials
    /// of whatever it is handed (none: an empty user name), again and again until the timeout, so a
    /// wrong password read "the engine did not answer in time"; there the request ends at the
    /// challenge, with the 401 and what came of its body. On Apple's platforms the default
    /// handling, with no credential stored, hands over the 401 itself.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // Every challenge there is an HTTP one: it knows no server-trust challenge.
        if let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) {
            // The handler is not called: it would send the request again before the cancel.
            let response = challenge.failureResponse as? HTTPURLResponse
            refuse(
                task, exchange,
                with: .answered(
                    HTTPAnswer(
                        status: response?.statusCode ?? exchange.status ?? 401,
                        retryAfter: response?.value(forHTTPHeaderField: "Retry-After") ?? exchange.retryAfter,
                        contentType: response?.value(forHTTPHeaderField: "Content-Type"), body: exchange.body)))
            return
        }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.continuation.resume(returning: Self.result(of: task, error: error, exchange: exchange))
    }

    private static func result(of task: URLSessionTask, error: (any Error)?, exchange: Exchange) -> HTTPExchangeResult {
        if let error {
            let code = (error as? URLError)?.code
            if code == .timedOut || (code == .cancelled && exchange.isPastDeadline) { return .timedOut }
            if let path = refusedNetwork(error) { return .networkNotAllowed(path) }
            if let code, isURLFailure(code) { return .unusableURL(reason: reason(for: error)) }
            return .failed(reason: reason(for: error))
        }
        guard let response = task.response as? HTTPURLResponse else {
            return .failed(reason: "the answer was not HTTP")
        }
        return .answered(
            HTTPAnswer(
                status: response.statusCode, retryAfter: response.value(forHTTPHeaderField: "Retry-After"),
                contentType: response.value(forHTTPHeaderField: "Content-Type"), body: exchange.body,
                location: response.value(forHTTPHeaderField: "Location"),
                uploadOffset: response.value(forHTTPHeaderField: "Upload-Offset"),
                uploadComplete: response.value(forHTTPHeaderField: "Upload-Complete")))
    }

    /// The answer's `Content-Encoding`, one short line, when it names anything but the identity.
    /// The transport asks for `identity`; on Linux libcurl inflates whatever comes, so a body
    /// compressed anyway is refused before any of it is kept.
    private static func encoding(of response: URLResponse) -> String? {
        guard let value = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding") else {
            return nil
        }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.lowercased() != "identity" else { return nil }
        return UntrustedText.quoted(trimmed, limit: 40)
    }

    /// Whether a failure says that the request's URL cannot be used, whatever the network does.
    /// A TLS handshake that fails without naming the certificate may be a cut link, so it is not one.
    static func isURLFailure(_ code: URLError.Code) -> Bool {
        switch code {
        case .unsupportedURL, .badURL, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
            .appTransportSecurityRequiresSecureConnection:
            return true
        default:
            return false
        }
    }

    /// The network URLSession refused to use for the request, on Apple's platforms; nil for any
    /// other failure, and always on Linux, where URLSession tells no network from another.
    private static func refusedNetwork(_ error: any Error) -> NetworkPath? {
        #if !canImport(FoundationNetworking)
        switch (error as? URLError)?.networkUnavailableReason {
        case .expensive?, .cellular?: return .metered
        case .constrained?: return NetworkPath(isExpensive: false, isConstrained: true)
        default: return nil
        }
        #else
        return nil
        #endif
    }

    /// The failure in a few words. FoundationNetworking passes libcurl's own words through for
    /// some failures ("Empty reply from server") but only a code for others, so the common
    /// codes get words here.
    static func reason(for error: any Error) -> String {
        guard let error = error as? URLError else { return String(describing: error) }
        switch error.code {
        case .cannotConnectToHost: return "the connection was refused (is the engine running?)"
        case .cannotFindHost, .dnsLookupFailed: return "the engine's host name could not be resolved"
        case .notConnectedToInternet: return "this device is offline"
        case .networkConnectionLost: return "the connection was lost before the answer came"
        case .cancelled: return "the request was cancelled"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return "the secure connection failed: \(error.localizedDescription)"
        case .unsupportedURL, .badURL: return "the URL cannot be requested: \(error.localizedDescription)"
        default:
            let description = error.localizedDescription
            return description.hasPrefix("The operation could not be completed")
                ? "URL error \(error.code.rawValue)" : description
        }
    }
}

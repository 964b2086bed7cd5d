import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one HTTP request came to.
enum HTTPExchangeResult: Sendable {
    /// The engine answered: the status, the raw `Retry-After` header, and the body.
    case answered(status: Int, retryAfter: String?, body: Data)
    /// Nothing moved for the idle timeout, or the whole request outlived its deadline.
    case timedOut
    /// The request failed without an answer; the reason is one phrase, for example "Empty reply from server".
    case failed(reason: String)
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
        let progress: (@Sendable (Int64) -> Void)?
        let continuation: CheckedContinuation<HTTPExchangeResult, Never>
    }

    /// The requests in flight, by task identifier.
    private let exchanges = Mutex<[Int: Exchange]>([:])

    /// Sends `request`, with the bytes of `file` as its body when there is one, and waits for the result.
    ///
    /// - Parameters:
    ///   - deadline: The longest the whole request may take, in seconds, answer included.
    ///   - progress: Called with the body bytes sent so far, from URLSession's queue.
    /// - Returns: The answer, or how the request failed; cancelling the calling task cancels the request.
    func perform(
        _ request: URLRequest, uploading file: URL?, in session: URLSession, deadline: TimeInterval,
        progress: (@Sendable (Int64) -> Void)? = nil
    ) async -> HTTPExchangeResult {
        let task = file.map { session.uploadTask(with: request, fromFile: $0) } ?? session.dataTask(with: request)
        let identifier = task.taskIdentifier
        // The idle timeout (URLRequest.timeoutInterval) lets a slow drip of bytes go on for ever;
        // this bounds the whole request.
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: .seconds(deadline))
            self?.exchanges.withLock { $0[identifier]?.isPastDeadline = true }
            task.cancel()
        }
        defer { watchdog.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchanges.withLock { $0[identifier] = Exchange(progress: progress, continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        let progress = exchanges.withLock { $0[task.taskIdentifier]?.progress }
        progress?(totalBytesSent)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchanges.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    /// Redirects are not followed: the contract has none, and a redirected PUT or POST could
    /// change method or lose its body. The 3xx itself is the answer.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.continuation.resume(returning: Self.result(of: task, error: error, exchange: exchange))
    }

    private static func result(of task: URLSessionTask, error: (any Error)?, exchange: Exchange) -> HTTPExchangeResult {
        if let error {
            let code = (error as? URLError)?.code
            if code == .timedOut || (code == .cancelled && exchange.isPastDeadline) { return .timedOut }
            return .failed(reason: reason(for: error))
        }
        guard let response = task.response as? HTTPURLResponse else {
            return .failed(reason: "the answer was not HTTP")
        }
        return .answered(
            status: response.statusCode, retryAfter: response.value(forHTTPHeaderField: "Retry-After"),
            body: exchange.body)
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
        default:
            let description = error.localizedDescription
            return description.hasPrefix("The operation could not be completed")
                ? "URL error \(error.code.rawValue)" : description
        }
    }
}

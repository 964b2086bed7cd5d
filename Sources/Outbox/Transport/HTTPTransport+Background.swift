#if os(iOS)
import Foundation

extension HTTPTransport {
    /// A transport whose requests go through a background `URLSession`, so that an upload the
    /// app started goes on while the app is suspended, and its answer is delivered when the app
    /// runs again. Bodies are sent from files, as background sessions require; the idle and
    /// whole-request timeouts become the session's own (`timeoutIntervalForRequest`,
    /// `timeoutIntervalForResource`), whose clock does not run while the app is suspended.
    ///
    /// The app's delegate passes the system's completion handler on with
    /// `handleEventsForBackgroundURLSession(completionHandler:)`. If the app is terminated, not
    /// only suspended, the answer of a request in flight is lost with it: the outbox sends the
    /// entry again at its next pass, and the engine answers the resend as a replay.
    ///
    /// Not verified on a device or a simulator (see `docs/apple.md`).
    ///
    /// - Parameters:
    ///   - configuration: The engine's URL, the timeouts and extra headers.
    ///   - backgroundSessionIdentifier: The session's identifier, the same on every launch.
    ///   - credentials: Where the credentials come from; nil for none.
    public convenience init(
        configuration: Configuration, backgroundSessionIdentifier: String,
        credentials: (any CredentialsProvider)? = nil
    ) {
        let sessionConfiguration = URLSessionConfiguration.background(withIdentifier: backgroundSessionIdentifier)
        sessionConfiguration.sessionSendsLaunchEvents = true
        sessionConfiguration.isDiscretionary = false
        sessionConfiguration.timeoutIntervalForRequest = configuration.idleTimeout
        sessionConfiguration.timeoutIntervalForResource = configuration.requestTimeout
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.urlCache = nil
        sessionConfiguration.httpCookieStorage = nil
        self.init(
            configuration: configuration, credentials: credentials, sessionConfiguration: sessionConfiguration,
            delegate: SessionDelegate(isBackground: true))
    }

    /// Keeps the system's completion handler from
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` and calls it once
    /// the session has delivered its events.
    public func handleEventsForBackgroundURLSession(completionHandler: @escaping @Sendable () -> Void) {
        delegate.backgroundEventsFinished.withLock { $0 = completionHandler }
    }
}

extension SessionDelegate {
    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let finished = backgroundEventsFinished.withLock { handler in
            defer { handler = nil }
            return handler
        }
        // The system wants it on the main thread.
        if let finished { DispatchQueue.main.async { finished() } }
    }
}
#endif

/// What a send's answer means for its entry.
public enum SendOutcome: Sendable, Hashable {
    /// The engine has the capture: the entry becomes `.synced`.
    case delivered
    /// Try again later: the entry goes back to `.queued` and the pass stops.
    case transient
    /// The engine will never take it as it is: the entry is parked as `.failedNeedsAttention`
    /// and the pass goes on with the next one.
    case permanent
}

/// Decides what an engine's answer means, from a table an app can refine.
///
/// The table: 2xx delivered (a transport reports a 2xx only when the engine's answer confirms
/// it; see `TransportResponse.notConfirmed`). 401 and 403 (credentials can be renewed), 408, 409 (the engine is
/// still processing that key), 425, 429 and every 5xx are transient; so are network errors and
/// timeouts. Other 4xx are permanent. Anything else (1xx, 3xx, nonsense) is transient: a retry
/// with a limit loses nothing, while parking would ask the user about the engine's problem.
public struct FailureClassifier: Sendable, Hashable {
    /// Statuses whose meaning this app's engine changes, for example `[405: .transient]` when a
    /// 405 means "the engine is restarting".
    public var overrides: [Int: SendOutcome]

    /// Creates a classifier.
    ///
    /// - Parameter overrides: Statuses to classify differently from the table.
    public init(overrides: [Int: SendOutcome] = [:]) {
        self.overrides = overrides
    }

    /// What an HTTP status means.
    ///
    /// - Parameter status: The HTTP status code.
    /// - Returns: The override for it when there is one, else the table's answer.
    public func outcome(forStatus status: Int) -> SendOutcome {
        if let override = overrides[status] { return override }
        switch status {
        case 200...299: return .delivered
        case 401, 403, 408, 409, 425, 429, 500...599: return .transient
        case 400...499: return .permanent
        default: return .transient
        }
    }

    /// What a transport's answer means.
    ///
    /// - Parameter response: The answer.
    /// - Returns: The outcome; network errors, timeouts and success statuses that are not the
    ///   engine's answer are transient.
    public func outcome(for response: TransportResponse) -> SendOutcome {
        switch response {
        case .http(let status, _, _): return outcome(forStatus: status)
        // The outbox sends the uploads again, a few times, before it parks the entry.
        case .uploadsNotHeld: return .transient
        case .networkError, .timedOut, .notConfirmed: return .transient
        // Not a failure of the send: the outbox returns the entry unsent before asking.
        case .networkNotAllowed: return .transient
        }
    }
}

import Foundation

extension Outbox {
    /// What a pass has seen of the engine, to tell a failure of the engine's from one entry's.
    ///
    /// Failures that say so stop the pass: no connection, a timeout, 429, 502, 503, 504, any
    /// answer with a `Retry-After`, 401, 403, 407 and 408 (credentials and the path are the same
    /// for every entry), and successes that are not the engine's answer or statuses the contract
    /// never gives (a portal or a proxy answers). A 409 is about this entry's key. A 500 (or
    /// another 5xx) alone cannot say which it is: it is taken as this entry's when nothing else
    /// failed so since the engine last confirmed anything, and two in a row with no
    /// confirmation between them (a delivery, or an upload that landed) stop the pass. So one
    /// entry the engine always fails costs one request per pass, while an engine failing every
    /// request costs two.
    struct PassEvidence {
        /// The 5xx failures since the engine last confirmed a send in this pass.
        private var unexplainedFailures = 0

        /// The engine confirmed something: a delivery or an upload.
        mutating func engineAnswered() { unexplainedFailures = 0 }

        /// Whether a transient `response` stops the pass; counts it when it might be the entry's.
        mutating func stopsThePass(_ response: TransportResponse) -> Bool {
            guard case .http(let status, let retryAfter, _) = response else { return true }
            if let retryAfter, Backoff.retryAfterSeconds(retryAfter, now: Date()) != nil { return true }
            switch status {
            case 409, 425: return false
            case 429, 502, 503, 504: return true
            case 500...599:
                unexplainedFailures += 1
                return unexplainedFailures >= 2
            default: return true
            }
        }
    }
}

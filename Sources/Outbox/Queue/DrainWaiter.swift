internal import PlatformLayer

/// A drain that waits behind the pass in flight (`Outbox.drain(using:)` coalesces): what it
/// waits for, handed over by the pass that ran for it, or its own cancellation, whichever comes
/// first. It sits behind a lock rather than on the outbox's actor, so that a cancel ends the wait
/// at once, even while the actor is busy with the pass.
final class DrainWaiter: Sendable {
    /// How the wait ended, when it was not cancelled.
    enum Outcome: Sendable {
        /// The pass that ran for it ended with this.
        case finished(Result<DrainReport, OutboxError>)
        /// The drain that ran the passes was cancelled: this one runs them from now on.
        case takeOver
    }

    private struct State {
        var continuation: CheckedContinuation<Outcome, any Error>?
        var outcome: Outcome?
        var isCancelled = false
    }

    private let state = Locked(State())

    /// Whether its task was cancelled: nothing waits for it any more.
    var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Waits for the outcome.
    ///
    /// - Throws: `CancellationError` as soon as the calling task is cancelled.
    func wait() async throws -> Outcome {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
                let ready: Result<Outcome, any Error>? = state.withLock { state in
                    if state.isCancelled { return .failure(CancellationError()) }
                    if let outcome = state.outcome { return .success(outcome) }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Outcome, any Error>? in
                guard state.outcome == nil else { return nil }
                state.isCancelled = true
                defer { state.continuation = nil }
                return state.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Hands the outcome over, unless the waiter was cancelled first.
    ///
    /// - Returns: Whether it was handed over.
    @discardableResult
    func resume(_ outcome: Outcome) -> Bool {
        let waiting = state.withLock { state -> (CheckedContinuation<Outcome, any Error>?, Bool) in
            guard !state.isCancelled, state.outcome == nil else { return (nil, false) }
            state.outcome = outcome
            defer { state.continuation = nil }
            return (state.continuation, true)
        }
        waiting.0?.resume(returning: outcome)
        return waiting.1
    }
}

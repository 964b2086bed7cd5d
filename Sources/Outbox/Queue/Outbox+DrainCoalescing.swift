import Foundation

/// Drains asked for while a pass runs wait for it and share one more pass, and a cancelled
/// waiter leaves at once (`DrainWaiter`); see `drain(using:)` and `drainNow(using:)`.
extension Outbox {
    /// One drain, coalesced with the others asked for meanwhile; see `drain(using:)`.
    ///
    /// - Parameter isRequested: Whether someone asked for it; one requested drain among those
    ///   waiting makes the one more pass a requested pass.
    func coalescedDrain(using transport: any Transport, isRequested: Bool) async throws -> DrainReport {
        var current = transport
        var currentIsRequested = isRequested
        var waiters: [DrainWaiter] = []
        if isDraining {
            followUpTransport = transport
            followUpIsRequested = followUpIsRequested || isRequested
            let waiter = DrainWaiter()
            followUpWaiters.append(waiter)
            switch try await waiter.wait() {
            case .finished(let result):
                return try result.get()
            case .takeOver:
                // `isDraining` stayed true, so no other drain started passes in between; this
                // one runs the pass it waited for, for itself and those still waiting.
                current = followUpTransport ?? transport
                currentIsRequested = followUpIsRequested || isRequested
                waiters = followUpWaiters.filter { !$0.isCancelled }
                followUpTransport = nil
                followUpIsRequested = false
                followUpWaiters = []
            }
        }
        isDraining = true
        var combined = DrainReport()
        while true {
            let result: Result<DrainReport, OutboxError>
            do throws(OutboxError) {
                result = .success(try await passAndTidy(using: current, honorsBackoff: !currentIsRequested))
            } catch {
                result = .failure(error)
            }
            let isCancelled = Task.isCancelled
            if isCancelled, case .success(let report) = result, case .cancelled = report.halt {
                // The pass those waiting asked for was cut short: it runs again for them.
                let waiting = waiters.filter { !$0.isCancelled }
                if !waiting.isEmpty, followUpTransport == nil {
                    followUpTransport = current
                    followUpIsRequested = currentIsRequested
                }
                followUpWaiters = waiting + followUpWaiters
            } else {
                for waiter in waiters { waiter.resume(.finished(result)) }
            }
            switch result {
            case .success(let report):
                combined.append(report)
            case .failure(let error):
                // Nobody may be left waiting for a pass that will not come.
                for waiter in followUpWaiters { waiter.resume(.finished(result)) }
                _ = takeFollowUp()
                isDraining = false
                throw error
            }
            if isCancelled {
                handOverFollowUp()
                eventHub.send(.drainCancelled(combined))
                throw CancellationError()
            }
            guard let next = takeFollowUp() else {
                isDraining = false
                return combined
            }
            (current, currentIsRequested, waiters) = next
        }
    }

    /// The one more pass asked for, with the drains still waiting for it, and forgets it; nil
    /// when none was asked for or every drain that asked was cancelled meanwhile.
    func takeFollowUp() -> (transport: any Transport, isRequested: Bool, waiters: [DrainWaiter])? {
        defer {
            followUpTransport = nil
            followUpIsRequested = false
            followUpWaiters = []
        }
        let waiting = followUpWaiters.filter { !$0.isCancelled }
        guard let transport = followUpTransport, !waiting.isEmpty else { return nil }
        return (transport, followUpIsRequested, waiting)
    }

    /// The drain running the passes was cancelled: the first drain still waiting runs them from
    /// here (`isDraining` stays true meanwhile), or, when none waits, nothing does.
    func handOverFollowUp() {
        while !followUpWaiters.isEmpty {
            let waiter = followUpWaiters.removeFirst()
            if waiter.resume(.takeOver) { return }
        }
        _ = takeFollowUp()
        isDraining = false
    }
}

internal import Dispatch
internal import PlatformLayer

/// Signals such as SIGINT (Ctrl-C) and SIGTERM as a request to stop: the first one runs the
/// command's `onFirstSignal` action, which lets the work in progress end cleanly, and a second
/// one runs `onSecondSignal`, which ends the process at once.
///
/// The signals are blocked, and read by Dispatch signal sources, so that the reaction runs as
/// ordinary code on a queue (it takes locks, cancels tasks, removes files) rather than in a
/// signal handler, where almost nothing is allowed. Blocked rather than ignored: on Linux,
/// Dispatch reads signal sources from a signalfd, which sees only signals that stay pending, and
/// an ignored signal is dropped as it arrives. Dispatch also takes a signal that reaches a thread
/// which does not block it: the main thread of an async `main`, which waits in `sigsuspend` with
/// no signal blocked.
package final class StopSignals: Sendable {
    private struct State {
        var received: [Int32] = []
        var onFirstSignal: (@Sendable (Int32) -> Void)?
    }

    private let state = Locked(State())
    private let onSecondSignal: @Sendable (Int32) -> Never
    /// Dispatch's signal sources, kept alive for as long as the command runs; set once, in `init`.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []

    /// Blocks the signals in this thread (and so in every thread started after it: make this
    /// before anything starts a thread) and starts reading them.
    ///
    /// - Parameters:
    ///   - handled: the signals taken; from now on they no longer end the process by themselves.
    ///   - onSecondSignal: runs when a signal arrives after the first one, and ends the process.
    package init(_ handled: [Int32], onSecondSignal: @escaping @Sendable (Int32) -> Never) {
        self.onSecondSignal = onSecondSignal
        SignalCalls.block(handled)
        // A queue of their own, which has a thread even while the command's work fills every
        // thread of the global queues (prep-photo's workers), so that a stop is seen at once.
        let queue = DispatchQueue(label: "stop-signals")
        sources = handled.map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            let object = source as AnyObject
            source.setEventHandler { [weak self, weak object] in
                // A source merges the signals that come before its handler runs: `data` counts them.
                let count = (object as? any DispatchSourceSignal)?.data ?? 1
                for _ in 0..<max(1, count) { self?.receive(signal) }
            }
            source.resume()
            return source
        }
    }

    /// Runs `action` at the first signal, or at once when one came already.
    package func onFirstSignal(_ action: @escaping @Sendable (Int32) -> Void) {
        let first = state.withLock { state in
            state.onFirstSignal = action
            return state.received.first
        }
        if let first { action(first) }
    }

    /// The first signal received, once one has been: the command is stopping.
    package var stopSignal: Int32? { state.withLock { $0.received.first } }

    /// "SIGINT", "SIGTERM", "SIGHUP".
    package static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// Ends the process by `signal`, as if it had not been caught, so that the parent sees it
    /// was interrupted (status 128 plus the signal's number).
    package static func endProcess(by signal: Int32) -> Never {
        SignalCalls.endProcess(by: signal)
    }

    private func receive(_ signal: Int32) {
        let (count, action) = state.withLock { state in
            state.received.append(signal)
            return (state.received.count, state.onFirstSignal)
        }
        if count == 1 {
            action?(signal)
        } else {
            onSecondSignal(signal)
        }
    }
}

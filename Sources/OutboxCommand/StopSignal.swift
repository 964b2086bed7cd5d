import Dispatch

/// SIGINT and SIGTERM as a request to stop `drain` and `send-now`: the first cancels the work in
/// progress, whose send in flight then goes back to the queue as it was (no attempt counted, no
/// error recorded), and the command says what is left. A second signal exits at once; that loses
/// nothing either, since the store survives being killed at any point.
final class StopSignal: Sendable {
    private struct State {
        var signals = 0
        var onStop: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    /// Dispatch's signal sources, kept alive for as long as the command runs.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; from now on SIGINT and SIGTERM no longer end the process by themselves.
    ///
    /// The signals are blocked rather than ignored: on Linux, Dispatch reads signal sources from a
    /// signalfd, which sees only signals that stay pending, and an ignored signal is dropped as it
    /// arrives. Threads started later inherit the mask, so make this before anything starts a
    /// thread (URLSession, the store); Dispatch's own threads block every signal.
    init() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive() }
            source.resume()
            return source
        }
    }

    /// Runs `action` at the first signal, or at once when one came already.
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let hasCome = state.withLock { state in
            state.onStop = action
            return state.signals > 0
        }
        if hasCome { action() }
    }

    private func receive() {
        let (signals, action) = state.withLock { state in
            state.signals += 1
            return (state.signals, state.onStop)
        }
        if signals > 1 { exit(1) }
        action?()
    }
}

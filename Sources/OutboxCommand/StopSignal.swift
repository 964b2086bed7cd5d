import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM as a request to stop `drain --watch` between passes: the pass in flight
/// finishes and records its outcome, so that the exit status says what is left. A second signal
/// exits at once; that loses nothing either, since the store survives being killed at any point.
final class StopSignal: Sendable {
    private struct State {
        var signals = 0
        var sleeper: Task<Void, Never>?
    }

    private let state = Mutex(State())
    /// Dispatch's signal sources, kept alive for as long as the watch lasts.
    private nonisolated(unsafe) var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; from now on SIGINT and SIGTERM no longer end the process by themselves.
    ///
    /// The signals are blocked rather than ignored: on Linux, Dispatch reads signal sources from a
    /// signalfd, which sees only signals that stay pending, and an ignored signal is dropped as it
    /// arrives. Threads started later inherit the mask; Dispatch's own threads block every signal.
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

    /// Whether a stop was asked for.
    var isRequested: Bool { state.withLock { $0.signals > 0 } }

    /// Waits `seconds`, or less when a stop is asked for meanwhile.
    ///
    /// - Returns: False when a stop was asked for.
    func sleep(seconds: Double) async -> Bool {
        let sleeper = Task { _ = try? await Task.sleep(for: .seconds(seconds)) }
        if state.withLock({ state in
            state.sleeper = sleeper
            return state.signals > 0
        }) {
            sleeper.cancel()
        }
        await sleeper.value
        return !isRequested
    }

    private func receive() {
        let (signals, sleeper) = state.withLock { state in
            state.signals += 1
            return (state.signals, state.sleeper)
        }
        if signals > 1 { exit(1) }
        sleeper?.cancel()
    }
}

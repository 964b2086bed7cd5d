/// The POSIX calls on signals that the commands' stop handling makes.
package enum SignalCalls {
    /// Blocks `signals` in the calling thread, and so in every thread it starts afterwards:
    /// they stay pending for whoever reads them (Dispatch's signal sources) instead of acting.
    package static func block(_ signals: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Ends the process by `signal`, as if it had not been caught: its default action back,
    /// unblocked, raised; `_exit(128 + signal)` should the process outlive it.
    package static func endProcess(by signal: Int32) -> Never {
        Platform.restoreDefaultAction(of: signal)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(signal)
        _exit(128 + signal)
    }
}

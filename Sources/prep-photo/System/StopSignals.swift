#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// SIGINT (Ctrl-C), SIGTERM and SIGHUP as a request to stop: no new photo is started, the photos
/// in flight finish with all their copies, the summary is printed, and the process then ends by
/// the same signal (exit status 130, 143, 129), so that a shell loop or `xargs` around it stops
/// too. A second signal ends it at once, through `onSecondSignal`.
///
/// The signals are blocked in every thread and taken by one thread of its own with `sigwait`, so
/// that the reaction runs as ordinary code (it takes locks and removes files) rather than in a
/// signal handler, where almost nothing is allowed. A signal that was ignored when the process
/// started (SIGHUP under `nohup`, SIGINT for a background job of a script) stays ignored, as
/// coreutils and make leave it.
final class StopSignals: Sendable {
    /// The signals taken: SIGINT, SIGTERM and SIGHUP, less those the parent had ignored.
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP].filter { !Platform.isIgnored($0) }

    private let received = Locked<[Int32]>([])
    private let onFirstSignal: @Sendable (Int32) -> Void
    private let onSecondSignal: @Sendable (Int32) -> Never

    /// Blocks the signals in this thread (and so in every thread started after it) and starts
    /// the thread that waits for them. Call it before any other thread starts.
    ///
    /// - Parameters:
    ///   - onFirstSignal: runs on the signal thread when the first signal arrives.
    ///   - onSecondSignal: runs on the signal thread when another one arrives, and ends the process.
    init(onFirstSignal: @escaping @Sendable (Int32) -> Void, onSecondSignal: @escaping @Sendable (Int32) -> Never) {
        self.onFirstSignal = onFirstSignal
        self.onSecondSignal = onSecondSignal
        var signals = Self.signalSet
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        guard let thread = Platform.startThread({ [self] in waitForSignals() }) else {
            preconditionFailure("cannot start the signal thread: the system gives no more threads")
        }
        Platform.detach(thread)
    }

    /// How long the photos in flight may take to finish after the first signal, in milliseconds,
    /// before the run stops without them: a photo takes well under a second, so only a decode
    /// that does not come back is cut short. `PREP_PHOTO_STOP_GRACE_MS` sets another (the tests
    /// use 0, to stop a photo in flight).
    static let gracePeriodMilliseconds: Int = {
        let given = ProcessInfo.processInfo.environment["PREP_PHOTO_STOP_GRACE_MS"].flatMap { Int($0) }
        return min(max(given ?? 5000, 0), 3_600_000)
    }()

    /// "5 s", "250 ms".
    static var gracePeriodDescription: String {
        let milliseconds = gracePeriodMilliseconds
        return milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// The first signal received, once one has been: the run is stopping.
    var stopSignal: Int32? { received.withLock { $0.first } }

    /// "SIGINT", "SIGTERM", "SIGHUP".
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// Ends the process by `signal`, as if it had not been caught, so that the parent sees it
    /// was interrupted (status 128 plus the signal's number).
    static func endProcess(by signal: Int32) -> Never {
        Platform.restoreDefaultAction(of: signal)
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        raise(signal)
        _exit(128 + signal)
    }

    private static var signalSet: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in handled { sigaddset(&signals, signal) }
        return signals
    }

    private func waitForSignals() -> Never {
        var signals = Self.signalSet
        while true {
            var signal: Int32 = 0
            guard sigwait(&signals, &signal) == 0 else { continue }
            let count = received.withLock { received in
                received.append(signal)
                return received.count
            }
            if count == 1 {
                onFirstSignal(signal)
            } else {
                onSecondSignal(signal)
            }
        }
    }
}

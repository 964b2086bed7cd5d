internal import PlatformLayer

/// Whether the task waiting for a photo has been cancelled, for the synchronous pipeline to see
/// between its pieces of work: each JPEG strip (an iMCU row), each piece of HEIF data libheif reads
/// (a grid's tile), each copy's encode and the gain map. A task's cancellation handler raises it
/// from another thread; the pipeline then throws at its next check, frees what it holds as the
/// error unwinds, and leaves no result.
///
/// A small hook passed into the run: a decoder with a loop of its own calls `isRaised` (or
/// `check`) once per piece, and stops.
final class PreparationCancellation: Sendable {
    private struct State {
        var isRaised = false
        /// Checks passed, that is pieces of work begun; and how many had begun when it was raised.
        var checksPassed = 0
        var checksPassedWhenRaised: Int?
        /// When it was raised, and when a check first saw it.
        var raisedAt: ContinuousClock.Instant?
        var seenAt: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    /// For tests: called on the pipeline's thread after each check passed, with the count so far,
    /// to cancel the task at a known point of the work.
    private let onCheckPassed: (@Sendable (Int) -> Void)?

    init(onCheckPassed: (@Sendable (Int) -> Void)? = nil) {
        self.onCheckPassed = onCheckPassed
    }

    /// Raises the flag; the run stops at its next check. Called from any thread.
    func raise() {
        state.withLock { state in
            guard !state.isRaised else { return }
            state.isRaised = true
            state.checksPassedWhenRaised = state.checksPassed
            state.raisedAt = ContinuousClock.now
        }
    }

    /// Whether the flag is raised. A loop that cannot throw asks this before each piece of work,
    /// and one that goes on counts as a check passed.
    var isRaised: Bool {
        let (isRaised, count) = state.withLock { state in
            if state.isRaised {
                if state.seenAt == nil { state.seenAt = ContinuousClock.now }
            } else {
                state.checksPassed &+= 1
            }
            return (state.isRaised, state.checksPassed)
        }
        if !isRaised { onCheckPassed?(count) }
        return isRaised
    }

    /// Whether the flag was raised, without counting a check: for after the run.
    var wasRaised: Bool { state.withLock { $0.isRaised } }

    /// Throws `cancelledError` when the flag is raised.
    func check(file: String) throws(ImagePrepError) {
        if isRaised { throw Self.cancelledError(file: file) }
    }

    /// What the synchronous pipeline throws once it sees the flag, since its errors are typed
    /// `ImagePrepError`: the async `prepare` that raised the flag turns any error of a cancelled
    /// run into `CancellationError`, so this one never reaches a caller.
    static func cancelledError(file: String) -> ImagePrepError {
        .unreadable(file: file, reason: "its preparation was cancelled")
    }

    /// For tests: how many pieces of work were begun in all, and after the flag was raised (a
    /// piece whose check came just before the raise; never more than one per thread).
    var checksPassed: (total: Int, afterRaise: Int?) {
        state.withLock { state in
            (state.checksPassed, state.checksPassedWhenRaised.map { state.checksPassed - $0 })
        }
    }

    /// For tests: how long after the raise a check first saw the flag (the rest of the piece of
    /// work under way); nil when it was not raised or not seen.
    var timeToSee: Duration? {
        state.withLock { state in
            guard let raisedAt = state.raisedAt, let seenAt = state.seenAt else { return nil }
            return seenAt - raisedAt
        }
    }
}

extension PhotoPreparer {
    /// Runs `work` with a flag that the current task's cancellation raises, and gives
    /// `CancellationError` for a run that failed once the flag was raised (at a check, or on an
    /// error the stop caused, such as libheif's for data it was refused). A run that finished
    /// before it saw the flag gives its photo: the work is done, and nothing is half made.
    ///
    /// - Parameter cancellation: the flag; tests pass their own to watch the run.
    func cancellable<Result>(
        cancellation: PreparationCancellation = PreparationCancellation(),
        _ work: (PreparationCancellation) throws(ImagePrepError) -> Result
    ) async throws -> Result {
        try await withTaskCancellationHandler {
            do {
                return try work(cancellation)
            } catch {
                if cancellation.wasRaised { throw CancellationError() }
                throw error
            }
        } onCancel: {
            cancellation.raise()
        }
    }
}

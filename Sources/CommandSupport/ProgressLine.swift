internal import PlatformLayer

/// One line on a terminal that shows how far the current work has come, redrawn at most ten
/// times a second, and cleared before anything else is written (`Terminal.writeError`).
package final class ProgressLine: Sendable {
    private struct State {
        var isVisible = false
        var lastDrawn = ContinuousClock.now - .seconds(1)
    }

    private let isShown: Bool
    private let state = Locked(State())

    init(isShown: Bool) { self.isShown = isShown }

    /// Shows `line`, unless the line was drawn less than 0.1 s ago and the work is not done.
    ///
    /// - Parameters:
    ///   - line: the text, made only when it is drawn.
    ///   - isDone: whether this is the last of the work, which is always drawn.
    package func show(_ line: @autoclosure () -> String, isDone: Bool) {
        guard isShown else { return }
        state.withLock { state in
            let now = ContinuousClock.now
            guard now - state.lastDrawn >= .milliseconds(100) || isDone else { return }
            state.lastDrawn = now
            state.isVisible = true
            Terminal.writeErrorInPlace("\r\u{1B}[K" + line())
        }
    }

    /// Removes the line, if it is there.
    package func clear() {
        state.withLock { state in
            guard state.isVisible else { return }
            state.isVisible = false
            Terminal.writeErrorInPlace("\r\u{1B}[K")
        }
    }
}

internal import PlatformLayer

/// What one send has shown of its progress: where it started, the most bytes, and the whole
/// percent last told.
final class ProgressGate: Sendable {
    private struct State {
        var most: Int64 = 0
        var percentTold: Int?
    }

    private let state = Locked(State())

    /// The bytes to show for a report of `bytes` of `total` (never fewer than shown before), and
    /// whether it is told: the first report past `start`, each new whole percent, and the end.
    /// Nil while no report passed `start`.
    func admit(_ bytes: Int64, of total: Int64, start: Int64) -> (shown: Int64, isAnnounced: Bool)? {
        state.withLock { state in
            guard state.percentTold != nil || bytes > start else { return nil }
            state.most = max(state.most, bytes)
            let percent = total <= 0 ? 100 : Int((Double(state.most) * 100 / Double(total)).rounded(.down))
            guard percent != state.percentTold else { return (state.most, false) }
            state.percentTold = percent
            return (state.most, true)
        }
    }
}

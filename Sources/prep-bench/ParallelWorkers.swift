import Dispatch

/// Runs items on a fixed number of worker threads that each take the next item as they finish
/// one, the way `prep-photo` runs a batch (and `xargs -P` runs processes).
enum ParallelWorkers {
    /// Calls `body` once for every index in `0..<itemCount`, on `workers` threads, and returns
    /// when all are done. Each worker first makes its own `State` (a `PreparationWorkspace`, say),
    /// which never leaves its thread.
    static func forEach<State>(
        itemCount: Int, workers: Int, makeState: @escaping @Sendable () -> State,
        body: @escaping @Sendable (inout State, Int) -> Void
    ) {
        let dealer = IndexDealer()
        let group = DispatchGroup()
        for _ in 0..<max(1, min(workers, itemCount)) {
            DispatchQueue.global().async(group: group) {
                var state = makeState()
                while let index = dealer.next(below: itemCount) { body(&state, index) }
            }
        }
        group.wait()
    }

    /// Hands out 0, 1, 2, ... to whichever worker asks first.
    private final class IndexDealer: Sendable {
        private let counter = Locked<Int>(0)

        func next(below end: Int) -> Int? {
            let index = counter.takeNext()
            return index < end ? index : nil
        }
    }
}

/// How many inputs ended which way, for the summary.
struct BatchTally: Sendable {
    /// The inputs that count as photos: all but those left out.
    var photos = 0
    var prepared = 0
    var alreadyPrepared = 0
    var failed = 0
    /// Photos never started because a signal stopped the run.
    var notStarted = 0
    var skipped: [SkipCause: Int] = [:]
    /// The first few subfolders left out without `-r`, to name them.
    var subfoldersNamed: [BytePath] = []
}

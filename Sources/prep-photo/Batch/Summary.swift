import CommandSupport

/// The lines printed on stderr at the end of a run: how many photos were prepared, how many
/// failed or were kept, what was left out and why, and how a stopped run is finished.
enum Summary {
    static func lines(
        _ tally: BatchTally, seconds: Double, outputFolder: BytePath, stopSignal: Int32?
    ) -> [String] {
        let prepared = tally.prepared
        var first =
            "Prepared \(prepared) of \(tally.photos) photo\(tally.photos == 1 ? "" : "s") in \(Terminal.format(seconds)) s "
            + "(\(Terminal.format(seconds > 0 ? Double(prepared) / seconds : 0)) photos/s) into \(outputFolder.asFolder)"
        if tally.failed > 0 { first += "; \(tally.failed) failed (see above)" }
        if tally.alreadyPrepared > 0 { first += "; \(tally.alreadyPrepared) already prepared, kept (--skip-existing)" }
        var lines = [first + "."]

        let leftOut = SkipCause.allCases.compactMap { cause in tally.skipped[cause].map { cause.counted($0) } }
        if !leftOut.isEmpty {
            lines.append("Left out: \(leftOut.joined(separator: ", ")) (--verbose names them).")
        }
        if let subfolders = tally.skipped[.subfolder] {
            var named = tally.subfoldersNamed.map { "'\($0)'" }.joined(separator: ", ")
            if subfolders > tally.subfoldersNamed.count {
                named += " and \(subfolders - tally.subfoldersNamed.count) more"
            }
            lines.append("Subfolders not entered: \(named); -r prepares the photos in them too.")
        }
        if let stopSignal {
            lines.append(
                "Stopped by \(StopSignals.name(of: stopSignal)): \(tally.notStarted) photo\(tally.notStarted == 1 ? "" : "s") not started; "
                    + "the same command with --skip-existing finishes the job.")
        }
        return lines
    }
}

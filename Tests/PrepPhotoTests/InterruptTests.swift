import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C and SIGTERM at random moments of a batch: the photos in flight finish with all their
/// copies, the ones not started are left alone, no temporary file remains, the summary says so,
/// and the process ends by the signal (130, 143). A second signal stops it at once, still clean.
/// Either way `--json` has one line per input: the photos not reached are `not_started`.
@Suite("prep-photo stopped by SIGINT or SIGTERM", .serialized)
struct InterruptTests {
    static let photoCount = 16
    static let runs = 20
    /// The batch's inputs in the order of their names' bytes, which a folder's are read in.
    static let inputs = (1...photoCount).map { "in/p\($0).jpg" }.sorted()

    /// What one interrupted run left, checked photo by photo.
    struct Outcome {
        var photosWithCopies = 0
        var wasInterruptedMidway = false
        var endedBeforeHandlers = false
    }

    /// A folder with 16 copies of an 1800x1200 photo in `in/`: small enough for 20 runs to take
    /// seconds (a run takes about 0.2 s on an idle machine).
    static func makeBatch(in folder: TemporaryFolder) throws {
        for index in 1...photoCount { try folder.copy("corpus/orientation-landscape-1.jpg", to: "in/p\(index).jpg") }
    }

    /// Every photo has all three copies, each complete, or none; nothing temporary is left; the
    /// status and the summary agree with what is on disk.
    static func check(
        _ result: PrepPhotoRunner.FinishedRun, signal: Int32, out: String, in folder: TemporaryFolder, note: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Outcome {
        var outcome = Outcome()
        #expect(
            folder.temporaryFiles().isEmpty, "\(note): left behind \(folder.temporaryFiles())",
            sourceLocation: sourceLocation)
        let names = folder.exists(out) ? try folder.names(in: out) : []
        for index in 1...photoCount {
            let copies = names.filter { $0.hasPrefix("p\(index).") }
            #expect(
                copies.count == 0 || copies.count == 3, "\(note): p\(index) has \(copies)",
                sourceLocation: sourceLocation)
            for copy in copies {
                #expect(
                    try JPEGFile(path: folder.path("\(out)/\(copy)")).isComplete, "\(note): \(copy)",
                    sourceLocation: sourceLocation)
            }
            if copies.count == 3 { outcome.photosWithCopies += 1 }
        }
        let prepared = outcome.photosWithCopies
        if result.status == 0 {
            #expect(prepared == photoCount, "\(note): exit 0 with \(prepared) photos", sourceLocation: sourceLocation)
            return outcome
        }
        #expect(
            result.status == 128 + signal, "\(note): status \(result.status)\n\(result.standardError)",
            sourceLocation: sourceLocation)
        if result.standardError.isEmpty {
            // The signal came before the handlers were installed, when nothing had been written.
            #expect(names.isEmpty, "\(note): killed before its handlers, yet \(names)", sourceLocation: sourceLocation)
            outcome.endedBeforeHandlers = true
            return outcome
        }
        let notStarted = photoCount - prepared
        #expect(
            result.standardError.contains("Prepared \(prepared) of \(photoCount) photos in "),
            "\(note): \(result.standardError)", sourceLocation: sourceLocation)
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(
            result.standardError.contains(
                "Stopped by \(name): \(notStarted) photo\(notStarted == 1 ? "" : "s") not started; "),
            "\(note): \(result.standardError)", sourceLocation: sourceLocation)
        let reports = try result.reports()
        #expect(
            reports.map(\.input) == inputs,
            "\(note): one line per input, in input order", sourceLocation: sourceLocation)
        #expect(
            reports.filter(\.ok).count == prepared && reports.filter { $0.code == "not_started" }.count == notStarted,
            "\(note): \(reports.map { $0.code ?? "ok" })", sourceLocation: sourceLocation)
        outcome.wasInterruptedMidway = notStarted > 0
        return outcome
    }

    @Test(
        "A signal at a random moment of a 16-photo batch, 20 times: all copies of a photo or none, no temporary file",
        arguments: [SIGINT, SIGTERM])
    func signalAtRandomMoments(signal: Int32) throws {
        try TemporaryFolder.with { folder in
            try Self.makeBatch(in: folder)
            var midway = 0
            var beforeHandlers = 0
            var finished = 0
            var delays: [Int] = []
            // The moments are drawn over the span of one whole run on this machine now, not over a
            // span fixed in advance: a faster build or a busier machine would push most of them
            // after the end, or before the handlers, and leave little of the batch attacked.
            let span = try Self.millisecondsOfOneRun(in: folder)
            for run in 0..<Self.runs {
                let out = "O\(run)"
                let delay = Int.random(in: 0...span)
                delays.append(delay)
                let running = try PrepPhotoRunner.start(["--json", "--jobs", "2", "--out", out, "in"], in: folder.url)
                usleep(UInt32(delay) * 1000)
                running.send(signal)
                let result = try running.finish()
                let outcome = try Self.check(
                    result, signal: signal, out: out, in: folder, note: "run \(run), \(delay) ms")
                if outcome.wasInterruptedMidway { midway += 1 }
                if outcome.endedBeforeHandlers { beforeHandlers += 1 }
                if result.status == 0 { finished += 1 }
            }
            print(
                "InterruptTests: \(Self.runs) runs with \(signal == SIGINT ? "SIGINT" : "SIGTERM"): \(midway) stopped midway, "
                    + "\(beforeHandlers) before the handlers were in place, \(finished) finished first "
                    + "(moments drawn over \(span) ms)")
            // Most moments must fall inside the batch, or the test proves little: say so rather than pass.
            #expect(
                midway >= Self.runs / 4, "only \(midway) of \(Self.runs) runs were stopped midway (delays \(delays) ms)"
            )
        }
    }

    /// How long a whole run of the batch takes here, start to exit, which must prepare every photo.
    static func millisecondsOfOneRun(in folder: TemporaryFolder) throws -> Int {
        let started = Date()
        let result = try PrepPhotoRunner.start(["--json", "--jobs", "2", "--out", "whole", "in"], in: folder.url)
            .finish()
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        #expect(result.status == 0, "an uninterrupted run: \(result.standardError)")
        #expect(try folder.names(in: "whole").count == 3 * photoCount)
        return max(milliseconds, 1)
    }

    @Test("A second Ctrl-C stops at once: no temporary file, and every photo has all its copies or none")
    func secondSignalStopsAtOnce() throws {
        try TemporaryFolder.with { folder in
            try Self.makeBatch(in: folder)
            var stoppedAtOnce = 0
            var runs = 0
            // Ten runs, and more (up to 30) until three were stopped by the second signal: on a busy
            // machine the photos in flight may all finish before it comes, which proves nothing.
            for run in 0..<30 where run < 10 || stoppedAtOnce < 3 {
                runs += 1
                let out = "O\(run)"
                let running = try PrepPhotoRunner.start(["--json", "--jobs", "2", "--out", out, "in"], in: folder.url)
                // Once a photo is done the handlers are in place and others are in flight.
                let deadline = Date().addingTimeInterval(30)
                while running.outputSoFar.isEmpty, Date() < deadline { usleep(1_000) }
                running.send(SIGINT)
                usleep(UInt32.random(in: 0...20_000))
                running.send(SIGINT)
                let result = try running.finish()
                #expect(result.status == 128 + SIGINT, "run \(run): \(result.standardError)")
                #expect(folder.temporaryFiles().isEmpty, "run \(run): left behind \(folder.temporaryFiles())")
                try Self.expectLinesForPlacedPhotos(result, out: out, in: folder, note: "run \(run)")
                if result.standardError.contains(
                    "prep-photo: stopped at once by a second SIGINT; the photos in flight were not written.")
                {
                    stoppedAtOnce += 1
                }
            }
            print("InterruptTests: \(runs) runs with two SIGINTs: \(stoppedAtOnce) stopped at once by the second")
            #expect(stoppedAtOnce >= 3, "the second signal came too late in all but \(stoppedAtOnce) of \(runs) runs")
        }
    }

    /// Every photo has all its copies or none, and one JSON line, which says `ok` exactly when it
    /// has them (even when it was placed while another before it was still in flight), and
    /// otherwise that it was in flight or not started.
    static func expectLinesForPlacedPhotos(
        _ result: PrepPhotoRunner.FinishedRun, out: String, in folder: TemporaryFolder, note: String
    ) throws {
        let names = try folder.names(in: out)
        var placed: Set<String> = []
        for index in 1...photoCount {
            let copies = names.filter { $0.hasPrefix("p\(index).") }
            #expect(copies.count == 0 || copies.count == 3, "\(note): p\(index) has \(copies)")
            for copy in copies { #expect(try JPEGFile(path: folder.path("\(out)/\(copy)")).isComplete) }
            if copies.count == 3 { placed.insert("in/p\(index).jpg") }
        }
        let reports = try result.reports()
        #expect(reports.map(\.input) == inputs, "\(note): one line per input")
        #expect(
            Set(reports.filter(\.ok).map(\.input)) == placed, "\(note): lines \(reports.map(\.input)), placed \(placed)"
        )
        for report in reports where !report.ok {
            #expect(
                report.skipped && ["not_started", "interrupted"].contains(report.code) && report.upload == nil,
                "\(note): \(report.input): \(report.code ?? "no code")")
        }
    }

    @Test(
        "A photo still in flight when the grace after the first signal ends is cut short: the run stops at once, clean")
    func graceAfterFirstSignal() throws {
        try TemporaryFolder.with { folder in
            try Self.makeBatch(in: folder)
            var cutShort = 0
            for run in 0..<5 {
                let out = "O\(run)"
                // No grace: the first signal stops the run with the photos in flight, as one that
                // a decoder does not give back does after the 5 s default.
                let running = try PrepPhotoRunner.startShell(
                    "exec prep-photo --json --jobs 2 --out \(out) in", in: folder.url,
                    environment: ["PREP_PHOTO_STOP_GRACE_MS": "0"])
                let deadline = Date().addingTimeInterval(30)
                while running.outputSoFar.isEmpty, Date() < deadline { usleep(1_000) }
                running.send(SIGTERM)
                let result = try running.finish()
                #expect(result.status == 128 + SIGTERM, "run \(run): \(result.standardError)")
                #expect(folder.temporaryFiles().isEmpty, "run \(run): left behind \(folder.temporaryFiles())")
                try Self.expectLinesForPlacedPhotos(result, out: out, in: folder, note: "run \(run)")
                if result.standardError.contains(
                    "prep-photo: SIGTERM: a photo in flight was still being prepared 0 s later, so the run stopped without it; the photos in flight were not written."
                ) {
                    cutShort += 1
                }
            }
            #expect(cutShort >= 3, "the batch ended before the signal in all but \(cutShort) runs")
        }
    }

    @Test("The first signal says on stderr that the photos in flight finish and a second one stops at once")
    func firstSignalIsAnnounced() throws {
        try TemporaryFolder.with { folder in
            try Self.makeBatch(in: folder)
            let running = try PrepPhotoRunner.start(["--json", "--jobs", "1", "--out", "O", "in"], in: folder.url)
            let deadline = Date().addingTimeInterval(30)
            while running.outputSoFar.isEmpty, Date() < deadline { usleep(1_000) }
            running.send(SIGTERM)
            let result = try running.finish()
            #expect(result.status == 128 + SIGTERM)
            #expect(
                result.standardError.hasPrefix(
                    "prep-photo: SIGTERM: finishing the photos in flight, then stopping; once more stops at once.\n"),
                "\(result.standardError)")
        }
    }

    @Test(
        "A SIGINT over 120 inputs gives exactly one line per input, and the --skip-existing rerun's lines of the kept photos are the first run's"
    )
    func stoppedManifestHasEveryInput() throws {
        try TemporaryFolder.with { folder in
            // Every tenth photo carries its time, offset and place; the rest take long enough
            // (1800x1200) for the signal to come in the middle of the batch.
            let inputs = (0..<120).map { String(format: "in/p%03d.jpg", $0) }
            for (number, input) in inputs.enumerated() {
                try folder.copy(
                    number % 10 == 0
                        ? "corpus/offset-plus0200-pixel8pro-8x8.jpg" : "corpus/orientation-landscape-1.jpg",
                    to: input)
            }
            let running = try PrepPhotoRunner.start(["--json", "--jobs", "2", "--out", "O", "in"], in: folder.url)
            let deadline = Date().addingTimeInterval(60)
            while running.outputSoFar.isEmpty, Date() < deadline { usleep(1_000) }
            running.send(SIGINT)
            let first = try running.finish()
            #expect(first.status == 128 + SIGINT, "\(first.standardError)")
            let reports = try first.reports()
            #expect(reports.map(\.input) == inputs, "one line per input, in input order")
            let notStarted = reports.filter { $0.code == "not_started" }
            #expect(notStarted.count > 40, "the signal came too late: \(notStarted.count) not started")
            #expect(reports.allSatisfy { $0.ok || $0.code == "not_started" })
            #expect(
                first.standardError.contains("Stopped by SIGINT: \(notStarted.count) photos not started;"),
                "\(first.standardError)")
            for report in notStarted {
                #expect(report.skipped && report.upload == nil && report.capturedAt == nil)
                #expect(
                    report.error
                        == "'\(report.input)' was not prepared: the run was stopped by SIGINT before it started.")
                #expect(!folder.exists("O/" + report.input.dropFirst(3)), "\(report.input) has a copy")
            }

            let rerun = try PrepPhotoRunner.run(["--json", "--skip-existing", "--out", "O", "in"], in: folder.url)
            #expect(rerun.status == 0, "\(rerun.standardError)")
            let again = try rerun.jsonLines()
            let before = try first.jsonLines()
            #expect(again.count == inputs.count)
            for (line, earlier) in zip(again, before) {
                let input = line["input"] as? String ?? "?"
                if earlier["ok"] as? Bool == true {
                    // Kept: the first run's line, read again, but for `skipped`.
                    var expected = earlier
                    expected["skipped"] = true
                    #expect(NSDictionary(dictionary: line) == NSDictionary(dictionary: expected), "\(input)")
                } else {
                    #expect(line["ok"] as? Bool == true && line["skipped"] as? Bool == false, "\(input)")
                }
            }
            #expect(try rerun.reports().filter { $0.capturedAt?.offset == "+02:00" }.count == 12)
        }
    }
}

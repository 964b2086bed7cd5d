import Foundation
import Testing

@testable import ImagePrep

/// One way a fuzz suite damages a seed file.
protocol SeedMutation: CustomStringConvertible {
    func apply(to original: [UInt8]) -> [UInt8]
}

/// One mutated seed of a fuzz run.
struct FuzzCase<Mutation: SeedMutation> {
    let number: Int
    let seedFile: String
    let mutation: Mutation
    let acceptsIncompleteData: Bool
    let bytes: Data
    /// `PREP_FUZZ_SEED`, which a failure names so that the same file can be made again.
    let runSeed: String

    /// Its path in the batch's folder, as prep-photo names it.
    var input: String {
        let digits = String(number)
        return (acceptsIncompleteData ? "accept/" : "strict/")
            + String(repeating: "0", count: max(0, 7 - digits.count))
            + digits + ".jpg"
    }

    var label: String {
        "\(seedFile) #\(number) (\(mutation)\(acceptsIncompleteData ? ", incomplete data accepted" : ""), "
            + "PREP_FUZZ_SEED=\(runSeed))"
    }

    /// The `number`th case of a run: the seed files in turn, each case's mutation (drawn by
    /// `mutate`) and mode from a generator seeded with `generatorSeed`.
    init(
        number: Int, seedFiles: [String], originals: [String: [UInt8]], runSeed: String, generatorSeed: String,
        mutate: (_ seedFile: String, _ original: [UInt8], _ random: inout SplitMix64) -> Mutation
    ) {
        var random = SplitMix64(seed: generatorSeed)
        seedFile = seedFiles[number % seedFiles.count]
        let original = originals[seedFile]!
        mutation = mutate(seedFile, original, &random)
        acceptsIncompleteData = Bool.random(using: &random)
        bytes = Data(mutation.apply(to: original))
        self.number = number
        self.runSeed = runSeed
    }
}

/// What the fuzz suites hold every mutation to: `prep-photo` prepares the cases in a batch (one
/// worker, its workspace reused from photo to photo), those that accept incomplete data in a
/// batch of their own, and each case prepared alone in a fresh workspace must give the same
/// copies byte for byte, or the same refusal. A crash or a hang fails the run, and so do a batch
/// whose peak resident memory (`/usr/bin/time`'s) passes its limit, a line on its stderr that is
/// not prep-photo's, a temporary file left behind, and a run whose mutations miss either outcome.
struct BatchAgainstAlone<Mutation: SeedMutation> {
    typealias Case = FuzzCase<Mutation>

    /// One mode's batch, as prep-photo ran it.
    struct Run {
        let result: PrepPhotoRunner.FinishedRun
        let cases: [Case]
        let reports: [PhotoReport]
        let folder: TemporaryFolder
        /// The output folder, relative to `folder`.
        let outputs: String
    }

    /// prep-photo's options for both batches, `--max-edge 32` among them.
    var arguments: [String]
    var timeLimit: Duration
    /// The address space a batch may take (`prlimit --as`); nil for no cap.
    var addressSpaceLimit: Int?
    /// The most resident memory a batch may hold at once.
    var peakMegabytes: Int
    /// Lines on stderr that come from a library and cannot be stopped (a known gap).
    var toleratedOnStandardError: [String] = []
    /// Each outcome, photos and refusals, must be more than the cases over this.
    var outcomeShare: Int
    /// The preparer of a case alone.
    var preparer: (_ acceptingIncompleteData: Bool) -> PhotoPreparer
    /// More checks of a batch's run, before its cases are compared.
    var checkRun: (Run) -> Void = { _ in }
    /// More checks of a case alone, whether it was prepared or refused.
    var checkAlone: (Case, PhotoReport, Result<PreparedPhoto, ImagePrepError>) -> Void = { _, _, _ in }
    /// More checks of a photo's copies, once they are the batch's.
    var checkCopies: (Case, PreparedPhoto) -> Void = { _, _ in }

    func run(_ cases: [Case]) throws {
        try TemporaryFolder.with { folder in
            try folder.makeFolder("accept")
            try folder.makeFolder("strict")
            for item in cases { try item.bytes.write(to: folder.url.appendingPathComponent(item.input)) }
            var outcomes = (photos: 0, errors: 0)
            for accepting in [false, true] {
                let mode = accepting ? "accept" : "strict"
                let run = try batch(cases.filter { $0.acceptsIncompleteData == accepting }, mode: mode, in: folder)
                checkRun(run)
                for (item, report) in zip(run.cases, run.reports) {
                    if try compare(item, report, outputs: folder.url.appendingPathComponent(run.outputs)) {
                        outcomes.photos += 1
                    } else {
                        outcomes.errors += 1
                    }
                }
            }
            #expect(folder.temporaryFiles().isEmpty, "left behind: \(folder.temporaryFiles())")
            // The mutations reach both outcomes, so neither half of the check is idle.
            #expect(
                outcomes.errors > cases.count / outcomeShare && outcomes.photos > cases.count / outcomeShare,
                "\(outcomes) of \(cases.count)")
        }
    }

    /// Runs prep-photo on the folder `mode` under `/usr/bin/time` (and `prlimit`), and checks its
    /// peak, its stderr and that it reported each case in order.
    private func batch(_ cases: [Case], mode: String, in folder: TemporaryFolder) throws -> Run {
        let peakFile = folder.url.appendingPathComponent("peak-\(mode).txt").path
        let cap = addressSpaceLimit.map { [PrepPhotoRunner.prlimit, "--as=\($0)"] } ?? []
        let result = try PrepPhotoRunner.run(
            ["/usr/bin/time", "-o", peakFile, "-f", "%M"] + cap + [PrepPhotoRunner.executable.path] + arguments
                + (mode == "accept" ? [] : ["--refuse-incomplete"]) + ["--out", "out-\(mode)", mode],
            in: folder.url, launch: .command, timeLimit: timeLimit)
        try #require(!result.timedOut && (result.status == 0 || result.status == 1), "prep-photo: \(result)")
        // time says "Command exited with non-zero status 1" first when a photo failed.
        let timeOutput = try String(contentsOfFile: peakFile, encoding: .utf8)
        let peak = timeOutput.split(separator: "\n").last.flatMap { Int($0) } ?? Int.max
        #expect(
            peak <= peakMegabytes << 10,
            "\(cases.first?.number ?? 0)... (\(mode)): a peak of \(peak / 1024) MB, over \(peakMegabytes) MB")
        try? FileManager.default.removeItem(atPath: peakFile)
        let expected = ["prep-photo: ", "Prepared ", "Left out: "] + toleratedOnStandardError
        for line in result.standardError.split(separator: "\n") where !expected.contains(where: line.hasPrefix) {
            Issue.record("a line on stderr that is not prep-photo's: \(line)")
        }
        let reports = try result.reports()
        try #require(reports.map(\.input) == cases.map(\.input), "one report per input, in order")
        return Run(result: result, cases: cases, reports: reports, folder: folder, outputs: "out-\(mode)")
    }

    /// Compares prep-photo's report and copies of one case with the same file prepared alone.
    ///
    /// - Returns: whether it was prepared (rather than refused).
    private func compare(_ item: Case, _ report: PhotoReport, outputs: URL) throws -> Bool {
        let preparer = preparer(item.acceptsIncompleteData)
        let alone = Result { () throws(ImagePrepError) in try preparer.prepareBlocking(item.bytes, name: item.input) }
        checkAlone(item, report, alone)
        switch alone {
        case .failure(let error):
            #expect(!report.ok, "\(item.label): refused alone (\(error)) but prepared in the batch")
            #expect(report.error == error.description, "\(item.label)")
            if case .encodingFailed = error { Issue.record("\(item.label): \(error)") }
            return false
        case .success(let photo):
            guard report.ok else {
                Issue.record("\(item.label): prepared alone but refused in the batch: \(report.error ?? "")")
                return true
            }
            #expect(report.warnings == photo.warnings.map(\.message), "\(item.label)")
            let stem = (item.input as NSString).lastPathComponent.replacingOccurrences(of: ".jpg", with: "")
            let copies = [(".jpg", photo.upload), (".display.jpg", photo.display), (".thumb.jpg", photo.thumbnail)]
            for (suffix, copy) in copies {
                let written = try? Data(contentsOf: outputs.appendingPathComponent(stem + suffix))
                #expect(
                    written == copy?.data, "\(item.label): \(stem)\(suffix) differs from the photo prepared alone")
            }
            #expect(photo.upload.size.longEdge <= 32, "\(item.label)")
            checkCopies(item, photo)
            return true
        }
    }
}

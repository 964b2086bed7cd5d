import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The recipes of docs/sharding/README.md run for real: `slurm-array.sh` on a one-node Slurm
/// cluster that the test starts, and GNU parallel over `prep-shard` with ssh replaced by a
/// stand-in that runs each command on this machine. Both read their commands from the guide's
/// blocks and run them as they are written, over four copies of the corpus, with one shard
/// stopped midway and run again; each time the output tree is the one a single `prep-photo` run
/// over the same list gives, and nothing is left running.
@Suite("Sharding recipes run for real: Slurm and GNU parallel", .serialized)
struct ClusterRecipeTests {
    static let shardCount = 4
    /// The shard that is stopped midway and run again.
    static let stoppedShard = 2

    @Test(
        "Slurm: slurm-array.sh on a one-node cluster, a task cancelled midway and resubmitted alone, makes one run's tree",
        .enabled(
            if: SlurmCluster.isAvailable,
            "needs root and munged, slurmctld and slurmd (Debian's munge and slurm-wlm: scripts/install-deps.sh)"),
        .timeLimit(.minutes(5)))
    func slurmArrayJob() throws {
        try TemporaryFolder.with { folder in
            let library = try CorpusLibrary.make(in: folder)
            let guide = try ShardingGuide.commands(marked: "slurm")
            try folder.makeFolder("jobs")
            for name in ["slurm-array.sh", "prep-shard"] {
                try FileManager.default.copyItem(
                    atPath: ShardTests.recipes.appendingPathComponent(name).path, toPath: folder.path("jobs/" + name))
            }
            let clusterFolder = folder.url.appendingPathComponent("cluster")
            try SlurmCluster.with(in: clusterFolder) { cluster in
                // What tells, at the end, that nothing is left running sees the daemons now.
                let daemons = SlurmCluster.processes(of: clusterFolder.path).map(\.1)
                for name in ["munged", "slurmctld", "slurmd"] {
                    #expect(daemons.contains { $0.hasPrefix("/usr/sbin/\(name) ") }, "\(daemons)")
                }
                let environment = library.environment.merging(cluster.environment) { $1 }.merging([
                    "PREP_SHARDS": "\(Self.shardCount)"
                ]) { $1 }
                #expect(
                    guide.first == ShardingGuide.exportLine(naming: ["PREP_BASE", "PREP_OUT", "PREP_LIST"])
                        + " PREP_SHARDS=4")
                /// Runs a command of the guide in the jobs folder; `documented` is how the guide writes it.
                func run(_ command: String, documentedAs documented: String? = nil) throws
                    -> PrepPhotoRunner.FinishedRun
                {
                    #expect(
                        guide.contains(documented ?? command),
                        "docs/sharding/README.md does not say `\(documented ?? command)`")
                    return try PrepPhotoRunner.runShell(
                        command, in: folder.url.appendingPathComponent("jobs"), environment: environment)
                }

                let job = try Self.jobNumber(run("sbatch --array=0-3 slurm-array.sh"))
                let stoppedRows = "O/.rows/shard-\(Self.stoppedShard)-of-\(Self.shardCount).jsonl"
                try waitUntil("task \(Self.stoppedShard) has a photo done", seconds: 120) {
                    (try? folder.contents(of: stoppedRows))?.contains(UInt8(ascii: "\n")) == true
                }
                try #require(
                    try cluster.isRunning(job, task: Self.stoppedShard),
                    "task \(Self.stoppedShard) ended before it could be cancelled midway")
                let cancel = try run("scancel \(job)_\(Self.stoppedShard)", documentedAs: "scancel 41_2")
                #expect(cancel.status == 0, "\(cancel.standardError)")
                let firstEnds = try cluster.waitForEnd(of: job)
                #expect(firstEnds.keys.sorted() == Array(0..<Self.shardCount))
                #expect(firstEnds[Self.stoppedShard]?.state == "CANCELLED", "\(firstEnds)")
                for shard in 0..<Self.shardCount where shard != Self.stoppedShard {
                    #expect(firstEnds[shard] == library.expectedEnd(ofShard: shard), "task \(shard)")
                }
                let stopped = try StoppedShard(rows: stoppedRows, in: folder, library: library)

                let again = try Self.jobNumber(run("sbatch --array=2 slurm-array.sh"))
                let secondEnds = try cluster.waitForEnd(of: again)
                #expect(secondEnds == [Self.stoppedShard: library.expectedEnd(ofShard: Self.stoppedShard)])
                try stopped.expectFinishedWithoutPreparingAgain(in: folder)
                try library.expectSameAsOneRun(in: folder)
                let summary = try run("./prep-shard --summary 4")
                try library.expectSummary(summary, documentedIn: "summary")
            }
            #expect(SlurmCluster.processes(of: clusterFolder.path).isEmpty)
        }
    }

    @Test(
        "GNU parallel: the guide's command over two hosts, a shard stopped midway and --resume-failed, makes one run's tree",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel"),
            "needs GNU parallel (Debian's parallel: scripts/install-deps.sh)"),
        .timeLimit(.minutes(5)))
    func gnuParallel() throws {
        try TemporaryFolder.with { folder in
            let library = try CorpusLibrary.make(in: folder)
            let guide = try ShardingGuide.commands(marked: "parallel")
            #expect(guide.first == ShardingGuide.exportLine(naming: ["PREP_BASE", "PREP_OUT", "PREP_LIST"]))
            let commands = guide.filter { $0.hasPrefix("seq ") }
            try #require(commands.count == 2 && commands[1].contains(" --resume-failed "), "\(guide)")
            #expect(guide.last == "prep-shard --summary 4")
            // ssh as sshd would run the command on a host: by the login shell, in the home folder,
            // with a fresh environment (PATH, where the host has prep-photo and prep-shard, HOME
            // and SHELL), so that only what --env sends arrives. The marker lets the test find
            // what it started.
            try folder.write(
                Data(
                    """
                    #!/bin/sh
                    while [ $# -gt 0 ]; do case $1 in -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;; -*) shift ;; *) break ;; esac; done
                    shift
                    [ "${1-}" = -- ] && shift
                    cd "$HOME" || exit 255
                    exec env -i PATH="$PATH" HOME="$HOME" SHELL=/bin/sh \(SlurmCluster.markerVariable)="$\(SlurmCluster.markerVariable)" /bin/sh -c "$*"

                    """.utf8), to: "bin/ssh")
            try folder.setMode(0o755, of: "bin/ssh")
            try folder.makeFolder("home")
            let marker = folder.url.path
            let environment = library.environment.merging([
                "PATH": folder.path("bin") + ":" + ShardTests.recipes.path + ":" + ShardTests.searchPath,
                "HOME": folder.path("home"),
                SlurmCluster.markerVariable: marker,
            ]) { $1 }

            let first = try PrepPhotoRunner.startShell(commands[0], in: folder.url, environment: environment)
            let stoppedRows = "O/.rows/shard-\(Self.stoppedShard)-of-\(Self.shardCount).jsonl"
            try waitUntil("shard \(Self.stoppedShard) has a photo done", seconds: 120) {
                (try? folder.contents(of: stoppedRows))?.contains(UInt8(ascii: "\n")) == true
            }
            // The host goes down: its prep-photo gets SIGTERM, as at a shutdown.
            let shardProcess = SlurmCluster.processes(of: marker).first {
                $0.1.contains("prep-photo ") && $0.1.contains(" --shard \(Self.stoppedShard)/\(Self.shardCount) ")
            }
            try #require(shardProcess != nil, "shard \(Self.stoppedShard) ended before it could be stopped midway")
            kill(shardProcess!.0, SIGTERM)
            let firstResult = try first.finish(timeLimit: .seconds(120))
            let log = try Self.jobLog(in: folder)
            #expect(log[Self.stoppedShard] == [143], "\(log)")
            let failing = (0..<Self.shardCount).filter { library.expectedEnd(ofShard: $0).exitStatus != 0 }
            // parallel's status is the number of jobs that failed.
            #expect(
                firstResult.status == Int32(Set(failing + [Self.stoppedShard]).count), "\(firstResult.standardError)")
            let stopped = try StoppedShard(rows: stoppedRows, in: folder, library: library)
            let firstLines = try (0..<Self.shardCount).map { try library.rows(ofShard: $0, in: folder) }

            let second = try PrepPhotoRunner.runShell(commands[1], in: folder.url, environment: environment)
            #expect(second.status == Int32(failing.count), "\(second.standardError)")
            let rerun = try Self.jobLog(in: folder)
            for shard in 0..<Self.shardCount {
                let expected =
                    log[shard]! + (log[shard]! == [0] ? [] : [library.expectedEnd(ofShard: shard).exitStatus])
                #expect(rerun[shard] == expected, "shard \(shard): \(rerun)")
            }
            try stopped.expectFinishedWithoutPreparingAgain(in: folder)
            // A shard run again for a photo that cannot be prepared kept every other.
            for shard in failing where shard != Self.stoppedShard {
                let prepared = firstLines[shard].filter { $0.ok }.map(\.input)
                let now = try library.rows(ofShard: shard, in: folder)
                #expect(now.filter { prepared.contains($0.input) }.allSatisfy { $0.ok && $0.skipped })
            }
            try library.expectSameAsOneRun(in: folder)
            let summary = try PrepPhotoRunner.runShell(guide.last!, in: folder.url, environment: environment)
            try library.expectSummary(summary, documentedIn: nil)
            #expect(SlurmCluster.processes(of: marker).isEmpty)
        }
    }

    /// The job number of `sbatch`'s "Submitted batch job 41".
    static func jobNumber(_ result: PrepPhotoRunner.FinishedRun) throws -> Int {
        let match = try #require(
            result.standardOutput.firstMatch(of: #/^Submitted batch job (\d+)$/#.anchorsMatchLineEndings()),
            "sbatch: \(result.status) \(result.standardOutput) \(result.standardError)")
        return Int(match.output.1)!
    }

    /// Each shard's exit statuses in GNU parallel's job log, in the order they ran.
    static func jobLog(in folder: TemporaryFolder) throws -> [Int: [Int]] {
        let lines = try String(decoding: folder.contents(of: "shards.log"), as: UTF8.self).split(separator: "\n")
        var statuses: [Int: [Int]] = [:]
        for line in lines.dropFirst() {
            // Seq Host Starttime JobRuntime Send Receive Exitval Signal Command
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let shard = try #require(fields.last?.split(separator: " ").dropFirst().first.flatMap { Int($0) })
            statuses[shard, default: []].append(try #require(Int(fields[6])))
        }
        return statuses
    }
}

/// The guide's blocks that the tests run: the lines of the ```sh block below
/// `<!-- sharding: MARK -->`, comments left out.
enum ShardingGuide {
    static let page = ShardTests.recipes.appendingPathComponent("README.md")

    static func commands(marked mark: String) throws -> [String] {
        try block(marked: mark).filter { !$0.hasPrefix("#") && !$0.isEmpty }
    }

    static func block(marked mark: String) throws -> [String] {
        let lines = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "<!-- sharding: \(mark) -->"), "no block marked \(mark)")
        try #require(lines[start + 1].hasPrefix("```"))
        let end = try #require(lines[(start + 2)...].firstIndex { $0.hasPrefix("```") })
        return Array(lines[(start + 2)..<end])
    }

    /// The guide's `export` of the shared paths.
    static func exportLine(naming variables: [String]) -> String {
        let paths = [
            "PREP_BASE": "/shared/library", "PREP_OUT": "/shared/prepared", "PREP_LIST": "/shared/library.list",
        ]
        return "export " + variables.map { "\($0)=\(paths[$0]!)" }.joined(separator: " ")
    }
}

/// Four copies of the corpus, listed by the guide's `find`, and what one `prep-photo` run over
/// that list makes (`REF/`, and its JSON lines).
struct CorpusLibrary {
    let folder: TemporaryFolder
    /// The list's paths, in its order.
    let paths: [String]
    /// The one run's JSON line for each path.
    let reference: [String: PhotoReport]

    static let copies = ["2023", "2024", "2025", "2026"]

    var environment: [String: String] {
        ["PREP_BASE": folder.path("LIB"), "PREP_OUT": folder.path("O"), "PREP_LIST": folder.path("library.list")]
    }

    static func make(in folder: TemporaryFolder) throws -> CorpusLibrary {
        let corpus = try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("corpus").path)
            .filter { $0.hasSuffix(".jpg") }
        for copy in copies {
            for name in corpus { try folder.copy("corpus/" + name, to: "LIB/\(copy)/\(name)") }
        }
        let find = try #require(
            ShardingGuide.commands(marked: "list").last, "the guide lists the library with find")
        let partial = CorpusLibrary(folder: folder, paths: [], reference: [:])
        let listed = try PrepPhotoRunner.runShell(find, in: folder.url, environment: partial.environment)
        try #require(listed.status == 0, "\(listed.standardError)")
        let paths = try folder.contents(of: "library.list").split(separator: 0).map {
            String(decoding: $0, as: UTF8.self)
        }
        try #require(paths.count == copies.count * corpus.count)
        let one = try PrepPhotoRunner.runShell(
            "prep-photo -0 --files-from \"$PREP_LIST\" --base \"$PREP_BASE\" --out REF --json", in: folder.url,
            environment: partial.environment)
        let reports = try one.reports()
        try #require(reports.map(\.input) == paths)
        try #require(reports.contains { !$0.ok }, "the corpus has photos that cannot be prepared")
        return CorpusLibrary(
            folder: folder, paths: paths,
            reference: Dictionary(uniqueKeysWithValues: reports.map { ($0.input, $0) }))
    }

    /// The paths of shard `shard`, in order.
    func paths(ofShard shard: Int) -> [String] {
        paths.enumerated().filter { $0.offset % ClusterRecipeTests.shardCount == shard }.map(\.element)
    }

    /// How the shard's task ends when it runs to its end: status 1 when a photo of it cannot be prepared.
    func expectedEnd(ofShard shard: Int) -> SlurmCluster.TaskEnd {
        let fails = paths(ofShard: shard).contains { reference[$0]?.ok == false }
        return SlurmCluster.TaskEnd(state: fails ? "FAILED" : "COMPLETED", exitStatus: fails ? 1 : 0, signal: 0)
    }

    func rows(ofShard shard: Int, in folder: TemporaryFolder) throws -> [PhotoReport] {
        let text = try folder.contents(of: "O/.rows/shard-\(shard)-of-\(ClusterRecipeTests.shardCount).jsonl")
        return try PrepPhotoRunner.FinishedRun(
            status: 0, standardOutput: String(decoding: text, as: UTF8.self), standardError: ""
        ).reports()
    }

    /// The tree under O is the one run's under REF, file for file and byte for byte; nothing
    /// temporary is left; each shard's lines name its paths, each once and in order, with the
    /// one run's outcome (prepared now or kept: `ok`, and the same `code`).
    func expectSameAsOneRun(in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = folder.rawFiles(below: "O").filter { !$0.starts(with: Array(".rows/".utf8)) }
        let reference = folder.rawFiles(below: "REF")
        #expect(written == reference, "\(written.count) files for \(reference.count)", sourceLocation: sourceLocation)
        for path in Set(written).intersection(reference) {
            #expect(
                try folder.readRaw(rawBytes("O/") + path) == folder.readRaw(rawBytes("REF/") + path),
                "\(String(decoding: path, as: UTF8.self)) differs", sourceLocation: sourceLocation)
        }
        #expect(folder.temporaryFiles().isEmpty, "\(folder.temporaryFiles())", sourceLocation: sourceLocation)
        for shard in 0..<ClusterRecipeTests.shardCount {
            let rows = try self.rows(ofShard: shard, in: folder)
            #expect(rows.map(\.input) == paths(ofShard: shard), "shard \(shard)", sourceLocation: sourceLocation)
            for row in rows {
                #expect(
                    row.ok == self.reference[row.input]?.ok && row.code == self.reference[row.input]?.code,
                    "\(row.input): \(row.code ?? "ok")", sourceLocation: sourceLocation)
            }
        }
    }

    /// `prep-shard --summary` after every shard ended: every input done, each failed photo named
    /// with its shard, status 1 for them; and, when `mark` is given, what the guide shows, the
    /// folders written as the guide writes them and `…` for the numbers that depend on the stop.
    func expectSummary(
        _ summary: PrepPhotoRunner.FinishedRun, documentedIn mark: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(summary.status == 1, "\(summary.standardError)", sourceLocation: sourceLocation)
        let lines = summary.standardOutput.split(separator: "\n").map(String.init)
        let failed = paths.filter { reference[$0]?.ok == false }
        #expect(
            lines.count == ClusterRecipeTests.shardCount + failed.count + 1, "\(lines)", sourceLocation: sourceLocation)
        for path in failed {
            let shard = paths.firstIndex(of: path)! % ClusterRecipeTests.shardCount
            let code = reference[path]!.code!
            #expect(
                lines.contains("failed in shard \(shard): \(code): \(reference[path]!.error!)"), "\(path)",
                sourceLocation: sourceLocation)
        }
        #expect(
            lines.last?.hasSuffix(" \(failed.count) failed, 0 left out, 0 not done.") == true, "\(lines)",
            sourceLocation: sourceLocation)
        guard let mark else { return }
        let shown = try ShardingGuide.block(marked: mark)
        let printed = lines.map {
            $0.replacingOccurrences(of: folder.path("LIB"), with: "/shared/library")
                .replacingOccurrences(of: folder.path("O"), with: "/shared/prepared")
        }
        #expect(
            shown.count == printed.count && zip(shown, printed).allSatisfy { DocText.matches($1, $0) },
            "the guide's summary block, with … where a number depends on the stop, would be:\n\(printed.joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    }
}

/// A shard stopped midway: what its first run placed, and the copies' stamps then.
struct StoppedShard {
    let rows: String
    let placed: [String]
    let stamps: [[UInt8]: FileStamp]

    init(rows: String, in folder: TemporaryFolder, library: CorpusLibrary) throws {
        self.rows = rows
        let lines = try PrepPhotoRunner.FinishedRun(
            status: 0, standardOutput: String(decoding: folder.contents(of: rows), as: UTF8.self), standardError: ""
        ).reports()
        placed = lines.filter { $0.ok && !$0.skipped }.map(\.input)
        let shardSize = library.paths(ofShard: ClusterRecipeTests.stoppedShard).count
        #expect(
            !placed.isEmpty && lines.filter { $0.code != "not_started" }.count < shardSize,
            "not midway: \(lines.count) lines")
        var stamps: [[UInt8]: FileStamp] = [:]
        for input in placed {
            let stem = input.dropFirst(folder.path("LIB").count + 1).dropLast(".jpg".count)
            for suffix in LibraryTests.suffixes {
                let path = rawBytes("O/" + stem + suffix)
                stamps[path] = folder.fileStamp(path)
            }
        }
        self.stamps = stamps
    }

    /// After the shard ran again: every photo its first run placed was kept (its line says so, and
    /// its copies are the same files), and the others were prepared now.
    func expectFinishedWithoutPreparingAgain(
        in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let lines = try PrepPhotoRunner.FinishedRun(
            status: 0, standardOutput: String(decoding: folder.contents(of: rows), as: UTF8.self), standardError: ""
        ).reports()
        for line in lines {
            if placed.contains(line.input) {
                #expect(line.ok && line.skipped, "\(line.input) was prepared again", sourceLocation: sourceLocation)
            } else {
                #expect(
                    !line.skipped, "\(line.input) was kept, but its first run did not place it",
                    sourceLocation: sourceLocation)
            }
        }
        for (path, stamp) in stamps {
            #expect(
                folder.fileStamp(path) == stamp, "\(String(decoding: path, as: UTF8.self)) was written again",
                sourceLocation: sourceLocation)
        }
    }
}

/// Text from a page where `…` stands for anything (a number that changes from run to run).
enum DocText {
    static func matches(_ actual: String, _ expected: String) -> Bool {
        let pattern =
            "^"
            + expected.components(separatedBy: "…").map(NSRegularExpression.escapedPattern).joined(separator: ".*")
            + "$"
        return actual.range(of: pattern, options: .regularExpression) != nil
    }
}

import Foundation
import Testing

/// One library prepared in shards that run at once into one --out, by the recipes in
/// `docs/sharding` that docs/prep-photo.md gives for xargs -P, GNU parallel, Slurm and Kubernetes.
///
/// A cluster cannot run here, so the Slurm and Kubernetes recipes are run as the cluster would
/// run them: the same script or command, once per task, with the variables the cluster sets
/// (SLURM_ARRAY_TASK_ID and its kin, JOB_COMPLETION_INDEX). GNU parallel over SSH runs the same
/// `prep-shard {} COUNT` on each host; its arithmetic is checked the same way.
@Suite("prep-photo in shards: one library, several processes, one --out")
struct ShardTests {
    /// The repository's `docs/sharding`.
    static let recipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/sharding")

    /// A library of 24 photos in three year folders, every name twice, one name not UTF-8, and
    /// its NUL-separated list, as docs/prep-photo.md makes it.
    static func makeLibrary(in folder: TemporaryFolder) throws -> [[UInt8]] {
        var stems: [[UInt8]] = []
        for (index, year) in ["2023", "2024", "2025"].enumerated() {
            for (place, photo) in [("home", 1), ("trip", 2)] {
                for number in 1...4 {
                    let stem = rawBytes(
                        "\(year)/\(place)/IMG_000\(number)" + (index == 2 && number == 4 ? "-caf\\xE9" : ""))
                    try folder.copy(
                        "corpus/orientation-landscape-\((number + photo) % 8 + 1).jpg",
                        toRaw: rawBytes("LIB/") + stem + Array(".jpg".utf8))
                    stems.append(stem)
                }
            }
        }
        let listed = try PrepPhotoRunner.runShell(Self.listCommand, in: folder.url)
        try #require(listed.status == 0, "\(listed.standardError)")
        return stems
    }

    /// How docs/prep-photo.md lists a library.
    static let listCommand =
        "find LIB -type f \\( -iname '*.jpg' -o -iname '*.jpeg' \\) ! -path '*/.*' -print0 > library.list"

    static let environment = ["PREP_LIST": "library.list", "PREP_BASE": "LIB", "PREP_OUT": "O"]

    /// Every photo of the library has its three complete copies under O, nothing temporary is
    /// left, and the shards' JSON lines, merged, name every photo exactly once.
    static func expectWholeLibrary(
        _ stems: [[UInt8]], in folder: TemporaryFolder, shards: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let expected = stems.flatMap { stem in LibraryTests.suffixes.map { stem + Array($0.utf8) } }
            .sorted { $0.lexicographicallyPrecedes($1) }
        let written = folder.rawFiles(below: "O").filter { !$0.starts(with: Array(".rows/".utf8)) }
        #expect(written == expected, "\(written.count) files for \(expected.count)", sourceLocation: sourceLocation)
        for path in written {
            #expect(try folder.jpeg(raw: rawBytes("O/") + path).isComplete, sourceLocation: sourceLocation)
        }
        #expect(folder.temporaryFiles().isEmpty, "\(folder.temporaryFiles())", sourceLocation: sourceLocation)
        let rowFiles = try folder.names(in: "O/.rows")
        #expect(
            rowFiles == (0..<shards).map { "shard-\($0)-of-\(shards).jsonl" }.sorted(), sourceLocation: sourceLocation)
        let merged = try PrepPhotoRunner.runShell("cat O/.rows/shard-*-of-\(shards).jsonl | sort", in: folder.url)
        let reports = try merged.reports()
        #expect(reports.count == stems.count, sourceLocation: sourceLocation)
        #expect(Set(reports.map(\.input)).count == stems.count, "a photo in two shards", sourceLocation: sourceLocation)
        #expect(reports.allSatisfy { $0.ok }, sourceLocation: sourceLocation)
    }

    @Test("Two shards started at once write one --out: every photo once, complete, nothing temporary left")
    func twoShardsAtOnce() throws {
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let script = URL(fileURLWithPath: Self.recipes.appendingPathComponent("prep-shard").path).path
            let shards = try (0..<2).map { index in
                try PrepPhotoRunner.startShell("'\(script)' \(index) 2", in: folder.url, environment: Self.environment)
            }
            #expect(shards[0].process.isRunning, "the first shard was done before the second started: not at once")
            let results = try shards.map { try $0.finish() }
            for result in results { #expect(result.status == 0, "\(result.standardError)") }
            try Self.expectWholeLibrary(stems, in: folder, shards: 2)
            // Both shards wrote into the same folders: the split is round robin, not by folder.
            let first = try PrepPhotoRunner.runShell("cat O/.rows/shard-0-of-2.jsonl", in: folder.url).reports()
            let second = try PrepPhotoRunner.runShell("cat O/.rows/shard-1-of-2.jsonl", in: folder.url).reports()
            #expect(first.count == 12 && second.count == 12)
            #expect(
                first.contains { $0.input.hasPrefix("LIB/2024/home/") }
                    && second.contains { $0.input.hasPrefix("LIB/2024/home/") })
        }
    }

    @Test("xargs -P: the command of docs/prep-photo.md runs four shards at once on one machine")
    func xargsRecipe() throws {
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let result = try PrepPhotoRunner.runShell(
                "seq 0 3 | xargs -P 4 -I{} prep-shard {} 4", in: folder.url,
                environment: Self.environment.merging(["PATH": Self.recipes.path + ":" + Self.searchPath]) { $1 })
            #expect(result.status == 0, "\(result.standardError)")
            try Self.expectWholeLibrary(stems, in: folder, shards: 4)
        }
    }

    @Test("A shard run again after it finished (a retried task) writes nothing new and says every photo was kept")
    func shardRunAgain() throws {
        try TemporaryFolder.with { folder in
            _ = try Self.makeLibrary(in: folder)
            let script = Self.recipes.appendingPathComponent("prep-shard").path
            #expect(
                try PrepPhotoRunner.runShell("'\(script)' 0 3", in: folder.url, environment: Self.environment).status
                    == 0)
            let again = try PrepPhotoRunner.runShell("'\(script)' 0 3", in: folder.url, environment: Self.environment)
            #expect(again.status == 0)
            let rows = try PrepPhotoRunner.runShell("cat O/.rows/shard-0-of-3.jsonl", in: folder.url).reports()
            #expect(rows.count == 8 && rows.allSatisfy { $0.ok && $0.skipped })
        }
    }

    @Test("Slurm: the array job script, run once per task with the variables Slurm sets, prepares the whole library")
    func slurmRecipe() throws {
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let script = Self.recipes.appendingPathComponent("slurm-array.sh").path
            let text = try String(contentsOfFile: script, encoding: .utf8)
            let array = try #require(text.firstMatch(of: #/#SBATCH --array=(\d+)-(\d+)/#))
            let (first, last) = (Int(array.output.1)!, Int(array.output.2)!)
            for task in first...last {
                let result = try PrepPhotoRunner.runShell(
                    "sh '\(script)'", in: folder.url,
                    environment: Self.environment.merging([
                        "SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_MIN": "\(first)",
                        "SLURM_ARRAY_TASK_MAX": "\(last)", "SLURM_ARRAY_TASK_COUNT": "\(last - first + 1)",
                        "SLURM_CPUS_PER_TASK": "2", "SLURM_SUBMIT_DIR": Self.recipes.path,
                    ]) { $1 })
                #expect(result.status == 0, "task \(task): \(result.standardError)")
            }
            try Self.expectWholeLibrary(stems, in: folder, shards: last - first + 1)
        }
    }

    @Test(
        "Kubernetes: the Indexed Job's command, run in each pod with JOB_COMPLETION_INDEX, prepares the whole library")
    func kubernetesRecipe() throws {
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let job = try String(
                contentsOf: Self.recipes.appendingPathComponent("k8s-indexed-job.yaml"), encoding: .utf8)
            let completions = Int(try #require(job.firstMatch(of: #/\n  completions: (\d+)\n/#)).output.1)!
            let command = try #require(job.firstMatch(of: #/command: \["sh", "-c", "((?:[^"\\]|\\.)*)"\]/#)).output.1
                .replacingOccurrences(of: "\\\"", with: "\"")
            #expect(command.hasSuffix(" \(completions)"), "the shard count in the command is not `completions`")
            // Several pods at once, as `parallelism` runs them.
            let pods = try (0..<completions).map { index in
                try PrepPhotoRunner.startShell(
                    command, in: folder.url,
                    environment: Self.environment.merging([
                        "JOB_COMPLETION_INDEX": "\(index)", "PATH": Self.recipes.path + ":" + Self.searchPath,
                    ]) { $1 })
            }
            for (index, pod) in pods.enumerated() {
                let result = try pod.finish()
                #expect(result.status == 0, "pod \(index): \(result.standardError)")
            }
            try Self.expectWholeLibrary(stems, in: folder, shards: completions)
        }
    }

    @Test("GNU parallel: `prep-shard {} 8` for {} in 0 to 7, as parallel runs it across hosts, covers the library")
    func parallelArithmetic() throws {
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let script = Self.recipes.appendingPathComponent("prep-shard").path
            for index in 0..<8 {
                let result = try PrepPhotoRunner.runShell(
                    "'\(script)' \(index) 8", in: folder.url, environment: Self.environment)
                #expect(result.status == 0, "shard \(index): \(result.standardError)")
            }
            try Self.expectWholeLibrary(stems, in: folder, shards: 8)
        }
    }

    /// PATH with the built prep-photo first, for commands that look up prep-shard on PATH too.
    static var searchPath: String {
        PrepPhotoRunner.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }
}

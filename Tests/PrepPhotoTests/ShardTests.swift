import Foundation
import Testing

/// One library prepared in shards that run at once into one --out (`prep-photo --shard`, through
/// `docs/sharding/prep-shard`): the xargs -P recipe as docs/sharding/README.md writes it, the
/// Kubernetes one as far as it can run without a cluster, names that clash across shards, and
/// `prep-shard --summary`. `ClusterRecipeTests` runs the Slurm and GNU parallel recipes for real.
@Suite("prep-photo in shards: one library, several processes, one --out")
struct ShardTests {
    /// The repository's `docs/sharding`.
    static let recipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/sharding")

    /// A library of 24 photos in three year folders, every name twice, one name not UTF-8, and
    /// its NUL-separated list, as docs/sharding/README.md makes it.
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

    /// How docs/sharding/README.md lists a library, from the folder above it.
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

    @Test("xargs -P: the command of docs/sharding runs four shards at once on one machine")
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

    @Test(
        "Kubernetes, on paper: the Indexed Job is YAML of a batch/v1 Indexed Job whose command is the Slurm task's prep-shard, and it prepares the library",
        .enabled(
            if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/yaml/__init__.py"),
            "needs python3-yaml (scripts/install-deps.sh) to read the YAML"))
    func kubernetesRecipe() throws {
        let parsed = try PrepPhotoRunner.runShell(
            "python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)' < k8s-indexed-job.yaml",
            in: Self.recipes)
        try #require(parsed.status == 0, "not YAML: \(parsed.standardError)")
        let job = try #require(JSONSerialization.jsonObject(with: Data(parsed.standardOutput.utf8)) as? [String: Any])
        #expect(job["apiVersion"] as? String == "batch/v1" && job["kind"] as? String == "Job")
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let containers = try #require(pod["containers"] as? [[String: Any]])
        try #require(containers.count == 1)
        let command = try #require(containers[0]["command"] as? [String])
        #expect(command == ["sh", "-c", "prep-shard \"$JOB_COMPLETION_INDEX\" \(completions)"])
        let variables = Set(((containers[0]["env"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String })

        // The Slurm task's prep-shard: its index, and the shard count whose default is the array's size.
        let slurm = try String(contentsOf: Self.recipes.appendingPathComponent("slurm-array.sh"), encoding: .utf8)
        #expect(
            slurm.contains(
                "\nexec \"${SLURM_SUBMIT_DIR:-.}/prep-shard\" \"$SLURM_ARRAY_TASK_ID\" \"${PREP_SHARDS:-\(completions)}\"\n"
            ))
        #expect(slurm.contains("\n#SBATCH --array=0-\(completions - 1)\n"))
        let exported = Set(slurm.matches(of: #/\nexport (PREP_[A-Z]+)=/#).map { String($0.output.1) })
        #expect(variables == exported, "the pods set \(variables.sorted()), the Slurm task \(exported.sorted())")

        // The pods at once, as `parallelism` runs them.
        try TemporaryFolder.with { folder in
            let stems = try Self.makeLibrary(in: folder)
            let pods = try (0..<completions).map { index in
                try PrepPhotoRunner.startShell(
                    command[2], in: folder.url,
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

    @Test(
        "--shard deals out the command line's inputs, then each list's lines (a line too long counts, an empty one not)"
    )
    func shardPositions() throws {
        try TemporaryFolder.with { folder in
            for index in 0..<5 { try folder.copy("corpus/orientation-landscape-1.jpg", to: "p\(index).jpg") }
            let long = String(repeating: "x", count: 5000)
            try folder.write(Data("p2.jpg\n\(long)\n\np4.jpg\n".utf8), to: "list")
            var inputs: [[String]] = []
            for shard in 0..<2 {
                let result = try PrepPhotoRunner.run(
                    ["--json", "--shard", "\(shard)/2", "--files-from", "list", "p0.jpg", "p1.jpg"], in: folder.url)
                inputs.append(try result.reports().map { $0.code == "name_too_long" ? "long" : $0.input })
            }
            #expect(inputs == [["p0.jpg", "p2.jpg", "p4.jpg"], ["p1.jpg", "long"]])
        }
    }

    @Test(
        "Two paths of two shards that would write the same copies: the first in the list is prepared, the other refused by its shard, naming both"
    )
    func clashAcrossShards() throws {
        try TemporaryFolder.with { folder in
            // Shard 0 takes the 1st and 3rd, shard 1 the 2nd and 4th. IMG_2.display.jpg's upload copy
            // is IMG_2.jpg's display copy.
            let paths = ["LIB/a/IMG_1.jpg", "LIB/a/IMG_1.JPG", "LIB/b/IMG_2.display.jpg", "LIB/b/IMG_2.jpg"]
            for (index, path) in paths.enumerated() {
                try folder.copy("corpus/orientation-landscape-\(index + 1).jpg", to: path)
            }
            try folder.write(Data(paths.map { $0 + "\0" }.joined().utf8), to: "library.list")
            let script = Self.recipes.appendingPathComponent("prep-shard").path
            let shards = try [1, 0].map {
                try PrepPhotoRunner.startShell("'\(script)' \($0) 2", in: folder.url, environment: Self.environment)
            }
            let statuses = try shards.map { try $0.finish().status }
            #expect(statuses == [1, 0])
            let first = try PrepPhotoRunner.runShell("cat O/.rows/shard-0-of-2.jsonl", in: folder.url).reports()
            let second = try PrepPhotoRunner.runShell("cat O/.rows/shard-1-of-2.jsonl", in: folder.url).reports()
            #expect(first.map(\.input) == [paths[0], paths[2]] && first.allSatisfy { $0.ok && !$0.skipped })
            #expect(second.map(\.input) == [paths[1], paths[3]] && second.allSatisfy { $0.code == "output_clash" })
            #expect(second.map(\.error) == Self.clashes.map { Optional($0) })
            #expect(
                try folder.names(in: "O/a") == ["IMG_1.display.jpg", "IMG_1.jpg", "IMG_1.thumb.jpg"]
                    && folder.names(in: "O/b") == [
                        "IMG_2.display.display.jpg", "IMG_2.display.jpg", "IMG_2.display.thumb.jpg",
                    ])
            // The copies are the first path's, as one run over the list makes them.
            let one = try PrepPhotoRunner.runShell(
                "prep-photo -0 --files-from library.list --base LIB --out ONE --json", in: folder.url)
            #expect(try one.reports().map(\.code) == [nil, "output_clash", nil, "output_clash"])
            for name in ["a/IMG_1.jpg", "b/IMG_2.display.jpg"] {
                #expect(try folder.contents(of: "O/" + name) == folder.contents(of: "ONE/" + name), "\(name)")
            }

            let summary = try PrepPhotoRunner.runShell(
                "'\(script)' --summary 2", in: folder.url, environment: Self.environment)
            #expect(summary.status == 1)
            #expect(
                summary.standardOutput == """
                    shard 0 of 2: 2 inputs: 2 prepared, 0 kept, 0 failed, 0 left out
                    shard 1 of 2: 2 inputs: 0 prepared, 0 kept, 2 failed, 0 left out
                    failed in shard 1: output_clash: \(Self.clashes[0])
                    failed in shard 1: output_clash: \(Self.clashes[1])
                    4 inputs in 2 shards: 2 prepared, 0 kept, 2 failed, 0 left out, 0 not done.

                    """)
        }
    }

    static let clashes = [
        "'LIB/a/IMG_1.JPG' was not prepared: its copies would replace those made from 'LIB/a/IMG_1.jpg' by shard 0 of 2 ('O/a/IMG_1.jpg'); copies are named after the photo's name without its extension, so rename one of the two to keep both.",
        "'LIB/b/IMG_2.jpg' was not prepared: its copies would replace those made from 'LIB/b/IMG_2.display.jpg' by shard 0 of 2 ('O/b/IMG_2.jpg'); copies are named after the photo's name without its extension, so rename one of the two to keep both.",
    ]

    @Test("prep-shard --summary: shards stopped, never run, run with another list, and lines planted in their folder")
    func summaryOfUnfinishedShards() throws {
        try TemporaryFolder.with { folder in
            // Seven inputs in three shards (an empty entry is not one), listed with a newline and a
            // byte that is not UTF-8 in two names; no photo needs to exist: only the lines are read.
            try folder.writeRaw(
                Data(
                    rawBytes(
                        "LIB/a.jpg\0LIB/b.jpg\0\0LIB/new\nline.jpg\0LIB/d.jpg\0LIB/caf\\xE9.jpg\0LIB/f.jpg\0LIB/g.jpg")),
                to: rawBytes("library.list"))
            func line(_ input: String, ok: Bool, skipped: Bool, code: String?, error: String?) -> String {
                "{\"input\":\"\(input)\",\"ok\":\(ok),\"skipped\":\(skipped),\"code\":"
                    + (code.map { "\"\($0)\"" } ?? "null") + ",\"error\":" + (error.map { "\"\($0)\"" } ?? "null")
                    + ",\"upload\":null,\"warnings\":[]}\n"
            }
            // Shard 0 (a, d, g) ran to its end: a prepared, d kept, g failed; its error names a quote.
            try folder.write(
                Data(
                    (line("LIB/a.jpg", ok: true, skipped: false, code: nil, error: nil)
                        + line("LIB/d.jpg", ok: true, skipped: true, code: nil, error: nil)
                        + line(
                            "LIB/g.jpg", ok: false, skipped: false, code: "corrupt",
                            error: "'LIB/g.jpg' is a damaged JPEG: \\\"quoted\\\" \u{1B}[2J\u{7F}\u{85}.")).utf8),
                to: "O/.rows/shard-0-of-3.jsonl")
            // Shard 1 (b, caf\xE9) was stopped after b: one line for b and one not_started, and a line
            // planted in its folder whose input holds "ok":true.
            try folder.write(
                Data(
                    (line("LIB/b.jpg", ok: true, skipped: false, code: nil, error: nil)
                        + line(
                            "LIB/caf\\\\xE9.jpg", ok: false, skipped: false, code: "not_started",
                            error: "'LIB/caf\\\\xE9.jpg' was not started.")
                        + "{\"input\":\"x\\\",\\\"ok\\\":true\",\"ok\":\"yes\"}\n").utf8),
                to: "O/.rows/shard-1-of-3.jsonl")
            // Shard 2 never ran.
            let summary = try PrepPhotoRunner.runShell(
                "'\(Self.recipes.appendingPathComponent("prep-shard").path)' --summary 3", in: folder.url,
                environment: Self.environment)
            #expect(summary.status == 1, "\(summary.standardError)")
            #expect(
                summary.standardOutput == """
                    shard 0 of 3: 3 inputs: 1 prepared, 1 kept, 1 failed, 0 left out
                    shard 1 of 3: 2 inputs: 1 prepared, 0 kept, 0 failed, 0 left out, 2 not done: run it again, 1 line not of prep-photo --json
                    shard 2 of 3: 2 inputs: no lines (O/.rows/shard-2-of-3.jsonl is missing): run it
                    failed in shard 0: corrupt: 'LIB/g.jpg' is a damaged JPEG: \\"quoted\\" ?[2J??.
                    7 inputs in 3 shards: 2 prepared, 1 kept, 1 failed, 0 left out, 4 not done.

                    """)
            // Four shards over the same rows: the lines no longer fit the list.
            let other = try PrepPhotoRunner.runShell(
                "cp O/.rows/shard-0-of-3.jsonl O/.rows/shard-0-of-4.jsonl && '\(Self.recipes.appendingPathComponent("prep-shard").path)' --summary 4",
                in: folder.url, environment: Self.environment)
            #expect(other.status == 1)
            #expect(
                other.standardOutput.hasPrefix(
                    "shard 0 of 4: 2 inputs: 1 prepared, 1 kept, 1 failed, 0 left out, 1 line more than inputs: the list changed since it ran\n"
                ), "\(other.standardOutput)")
            // A usage error names the forms.
            for arguments in ["--summary", "--summary 0", "--summary x", "3 3", "-1 2", "1 12345678"] {
                let wrong = try PrepPhotoRunner.runShell(
                    "'\(Self.recipes.appendingPathComponent("prep-shard").path)' \(arguments)", in: folder.url,
                    environment: Self.environment)
                #expect(
                    wrong.status == 2 && wrong.standardError.hasPrefix("usage: prep-shard INDEX COUNT"), "\(arguments)")
            }
        }
    }

    /// PATH with the built prep-photo first, for commands that look up prep-shard on PATH too.
    static var searchPath: String {
        PrepPhotoRunner.executable.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }
}

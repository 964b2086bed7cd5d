import Foundation
import Testing

/// The shell examples of the README and docs/ stay true. A transcript (lines of `$ command`
/// followed by what it printed) marked `<!-- shell: runs -->` is run, all of a file's in order in
/// one shell, in a folder laid out as a fresh clone's root, with `prep-photo` and `outbox` on the
/// PATH as `scripts/install.sh` puts them there (installed into a temporary prefix, whose `bin`
/// is the only place on the PATH that has them), and each command's output must match what the
/// page shows, where `…` stands for anything that changes from run to run (a time, an id, a
/// temporary path). Port 8080 in a page becomes a free port. Every other transcript says why it
/// is not run (`<!-- shell: not run: REASON -->`), and a command-only ```sh block prints no
/// figure, but every file of the repository it names must exist.
@Suite("The docs' shell examples")
struct DocExampleTests {
    struct Transcript {
        let file: String
        let line: Int
        /// Each command with the lines it prints.
        let steps: [(command: String, output: [String])]
    }

    static let repository = PlatformFileTests.repository

    /// The transcripts of every page that are run.
    static func transcripts() throws -> [Transcript] {
        var transcripts: [Transcript] = []
        for page in try DocPages.all() {
            for block in try DocPages.blocks(of: page) where block.lines.first?.hasPrefix("$ ") == true {
                if block.above.hasPrefix("<!-- shell: not run: ") { continue }
                guard block.above == "<!-- shell: runs -->" else {
                    Issue.record(
                        "\(page):\(block.line): a transcript needs `<!-- shell: runs -->` or `<!-- shell: not run: REASON -->` above it"
                    )
                    continue
                }
                var steps: [(String, [String])] = []
                for line in block.lines {
                    if line.hasPrefix("$ ") {
                        steps.append((String(line.dropFirst(2)), []))
                    } else {
                        steps[steps.count - 1].1.append(line)
                    }
                }
                transcripts.append(Transcript(file: page, line: block.line, steps: steps))
            }
        }
        return transcripts
    }

    /// Whether `actual` is `expected` with each `…` standing for any text.
    static func matches(_ actual: String, _ expected: String) -> Bool {
        let pattern =
            "^"
            + expected.components(separatedBy: "…").map(NSRegularExpression.escapedPattern).joined(
                separator: ".*") + "$"
        return actual.range(of: pattern, options: .regularExpression) != nil
    }

    /// A folder that looks like a fresh clone's root: the repository's tracked top-level entries
    /// and its build, linked; what the examples write lands in the folder itself.
    static func makeCloneRoot(in folder: URL) throws {
        let (status, listing) = try runToEnd("/usr/bin/env", ["git", "-C", repository.path, "ls-files"])
        try #require(status == 0, "\(listing)")
        let entries = Set(listing.split(separator: "\n").map { String($0.split(separator: "/")[0]) } + [".build"])
        for entry in entries {
            try FileManager.default.createSymbolicLink(
                at: folder.appendingPathComponent(entry), withDestinationURL: repository.appendingPathComponent(entry))
        }
    }

    /// Runs `scripts/install.sh` with `arguments` and `PATH` first searching `path`.
    ///
    /// - Returns: Its exit status and what it printed.
    static func install(_ arguments: [String], path: [String] = []) throws -> (Int32, String) {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (path + [environment["PATH"] ?? "/usr/bin:/bin"]).joined(separator: ":")
        return try runToEnd(
            "/bin/bash", [repository.appendingPathComponent("scripts/install.sh").path] + arguments,
            environment: environment)
    }

    /// Installs the commands of this test run's build into `prefix`.
    ///
    /// - Returns: The folder they are in.
    static func installBuiltCommands(into prefix: URL) throws -> URL {
        let (status, output) = try install(["--no-build", "--prefix", prefix.path])
        try #require(status == 0, "scripts/install.sh failed: \(output)")
        return prefix.appendingPathComponent("bin")
    }

    @Test(
        "scripts/install.sh puts prep-photo and outbox in PREFIX/bin, which run from anywhere with only that on the PATH"
    )
    func installedCommandsRun() async throws {
        try await withTemporaryFolder(label: "install") { folder in
            let bin = try Self.installBuiltCommands(into: folder.appendingPathComponent("prefix"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: bin.path).sorted() == ["outbox", "prep-photo"])
            let away = folder.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: away, withIntermediateDirectories: true)
            let photo = Fixtures.corpus.appendingPathComponent("no-exif.jpg").path
            let environment = ["PATH": bin.path + ":/usr/bin:/bin", "HOME": folder.path]
            let (prepared, preparing) = try runToEnd(
                "/bin/sh", ["-c", "prep-photo --out copies \"$0\" && ls copies", photo], in: away,
                environment: environment)
            #expect(
                prepared == 0 && preparing.hasSuffix("no-exif.display.jpg\nno-exif.jpg\nno-exif.thumb.jpg\n"),
                "\(preparing)")
            let (queued, queuing) = try runToEnd(
                "/bin/sh", ["-c", "outbox --store box add \"$0\" && outbox --store box list --json", photo], in: away,
                environment: environment)
            #expect(queued == 0 && queuing.contains(#""status":"pending""#), "\(queuing)")

            // Again over the installed ones: replaced, never written in place.
            let before = try FileManager.default.attributesOfItem(atPath: bin.appendingPathComponent("outbox").path)
            _ = try Self.installBuiltCommands(into: folder.appendingPathComponent("prefix"))
            let after = try FileManager.default.attributesOfItem(atPath: bin.appendingPathComponent("outbox").path)
            #expect(before[.systemFileNumber] as? Int != after[.systemFileNumber] as? Int)
            #expect(try FileManager.default.contentsOfDirectory(atPath: bin.path).sorted() == ["outbox", "prep-photo"])
        }
    }

    @Test(
        "scripts/install.sh builds with the README's flags, so that its build is the tests' build; says when PREFIX/bin is not on the PATH; refuses what it does not know"
    )
    func installBuildsAsTheReadmeDoes() async throws {
        try await withTemporaryFolder(label: "install") { folder in
            // A `swift` that only notes how it was called: the build itself is this test run's.
            let fake = folder.appendingPathComponent("fake")
            try FileManager.default.createDirectory(at: fake, withIntermediateDirectories: true)
            let log = folder.appendingPathComponent("swift-calls")
            let swift = fake.appendingPathComponent("swift")
            try "#!/bin/sh\necho \"$*\" >> '\(log.path)'\n".write(to: swift, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
            let prefix = folder.appendingPathComponent("prefix")
            let (status, output) = try Self.install(["--prefix=\(prefix.path)"], path: [fake.path])
            #expect(status == 0, "\(output)")
            #expect(
                try String(contentsOf: log, encoding: .utf8)
                    == "build -c release -Xswiftc -enable-testing\n")
            #expect(
                output.contains(
                    "install: \(prefix.path)/bin is not on your PATH; add it, for this shell and in ~/.profile: export PATH=\"\(prefix.path)/bin:$PATH\""
                ), "\(output)")
            for wrong in [["--prefix"], ["--prefix", ""], ["--prefxi", "x"]] {
                let (refused, words) = try Self.install(wrong)
                #expect(
                    refused == 2 && words.contains("usage: scripts/install.sh [--prefix DIR] [--no-build]"),
                    "\(wrong): \(words)")
            }
        }
    }

    @Test("every transcript marked to run prints what its page shows", .timeLimit(.minutes(5)))
    func transcriptsRunAsShown() async throws {
        let transcripts = try Self.transcripts()
        #expect(transcripts.count >= 6, "\(transcripts.count) transcripts")
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("doc-examples-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let bin = try Self.installBuiltCommands(into: prefix)
        for page in Set(transcripts.map(\.file)).sorted() {
            try await withTemporaryFolder(label: "doc-examples") { folder in
                try Self.makeCloneRoot(in: folder)
                let held = try unusedPort()
                releaseHeldPort(held)  // the page's engine listens on it
                let port = String(held)
                let steps = transcripts.filter { $0.file == page }.flatMap { transcript in
                    transcript.steps.map { (transcript, $0.command, $0.output) }
                }
                // One shell for the page, as a reader types it: a marker line before each command.
                var script = "exec 2>&1\ntrap 'kill $(jobs -p) 2>/dev/null' EXIT\n"
                for (index, step) in steps.enumerated() {
                    // The marker keeps the last command's status, for an `echo $?` after it.
                    script += "status=$?; echo '@@step \(index)'; (exit $status)\n"
                    let command = step.1.replacingOccurrences(of: "8080", with: port)
                    if command.hasSuffix("&") {
                        // A server started in the background: its first line before the next step. It
                        // listens before it prints, so its port alone let a slow start print its line
                        // after the next step's marker: it writes to a file, shown once a line is whole.
                        let log = ".doc-background-\(index).out"
                        script += "\(command.dropLast()) > \(log) 2>&1 &\n"
                        script +=
                            "for _ in $(seq 300); do [ -s \(log) ] && [ -z \"$(tail -c 1 \(log))\" ] && break; sleep 0.1; done\n"
                        script += "head -n 1 \(log)\n"
                    } else {
                        script += command + "\n"
                    }
                }
                var environment = ProcessInfo.processInfo.environment
                environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "")
                environment["HOME"] = folder.path
                environment["OUTBOX_KEY_FILE"] = nil
                environment["TZ"] = "UTC"  // a capture's id holds the device's time zone
                let (_, output) = try runToEnd("/bin/bash", ["-c", script], in: folder, environment: environment)
                var printed: [Int: [String]] = [:]
                var current = -1
                for line in output.components(separatedBy: "\n") {
                    if line.hasPrefix("@@step "), let index = Int(line.dropFirst(7)) {
                        current = index
                        printed[index] = []
                    } else if current >= 0 {
                        printed[current, default: []].append(line)
                    }
                }
                for (index, (transcript, command, expected)) in steps.enumerated() {
                    var actual = printed[index] ?? []
                    if index == steps.count - 1, actual.last == "" { actual.removeLast() }
                    let wanted = expected.map { $0.replacingOccurrences(of: "8080", with: port) }
                    let agrees =
                        actual.count == wanted.count && zip(actual, wanted).allSatisfy { Self.matches($0, $1) }
                    #expect(
                        agrees,
                        "\(transcript.file) (block at line \(transcript.line)): $ \(command)\nthe page shows:\n\(wanted.joined(separator: "\n"))\nit printed:\n\(actual.joined(separator: "\n"))"
                    )
                }
            }
        }
    }

    @Test("every file of the repository that a command-only block names exists")
    func commandBlocksNameFilesThatExist() throws {
        var checked = 0
        for page in try DocPages.all() {
            for block in try DocPages.blocks(of: page) where block.info == "sh" {
                for word in block.lines.joined(separator: " ").split(separator: " ") {
                    let path = word.hasPrefix("./") ? String(word.dropFirst(2)) : String(word)
                    guard ["scripts/", "engine/", "Benchmarks/", "Tests/", "docs/"].contains(where: path.hasPrefix)
                    else { continue }
                    checked += 1
                    #expect(
                        FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(path).path),
                        "\(page):\(block.line) names \(path), which is not in the repository")
                }
            }
        }
        #expect(checked > 5)
    }
}

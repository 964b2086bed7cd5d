import Foundation
import Testing

/// The shell examples of the README and docs/ stay true. A transcript (lines of `$ command`
/// followed by what it printed) marked `<!-- shell: runs -->` is run, all of a file's in order in
/// one shell, in a folder laid out as a fresh clone's root, and each command's output must match
/// what the page shows, where `…` stands for anything that changes from run to run (a time, an
/// id, a temporary path). Port 8080 in a page becomes a free port. Every other transcript says
/// why it is not run (`<!-- shell: not run: REASON -->`), and a command-only ```sh block prints
/// no figure, but every file of the repository it names must exist.
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

    @Test("every transcript marked to run prints what its page shows", .timeLimit(.minutes(5)))
    func transcriptsRunAsShown() async throws {
        let transcripts = try Self.transcripts()
        #expect(transcripts.count >= 6, "\(transcripts.count) transcripts")
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
                    script += step.1.replacingOccurrences(of: "8080", with: port) + "\n"
                    if step.1.hasSuffix("&") {
                        // A server started in the background: its first line, and then its port, before the next step.
                        script +=
                            "for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/\(port)) 2>/dev/null && break; sleep 0.1; done\n"
                    }
                }
                var environment = ProcessInfo.processInfo.environment
                environment["PATH"] =
                    folder.appendingPathComponent(".build/release").path + ":" + (environment["PATH"] ?? "")
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

import Foundation
import ImagePrep
import Outbox
import Testing

/// One version everywhere: the newest release of CHANGELOG.md is what the libraries report, what
/// both commands print and the tag of the Kubernetes recipe's image; and the API check reads the
/// CHANGELOG as these tests do.
@Suite("The version, CHANGELOG.md and the API check's baseline")
struct VersionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// A section of CHANGELOG.md: a release (`## [0.2.0] - 2026-12-03`) or `## [Unreleased]`.
    struct Section {
        let heading: String
        /// The version, or nil for Unreleased.
        let version: [Int]?
        /// The commit of its `Commit:` line.
        let commit: String?
        /// The lines of its `api-breakage` blocks.
        let listedBreakages: [String]

        var versionText: String { version.map { $0.map(String.init).joined(separator: ".") } ?? "Unreleased" }
    }

    static func sections() throws -> [Section] {
        let text = try String(contentsOf: repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        var sections: [Section] = []
        var heading: String?
        var commit: String?
        var listed: [String] = []
        var inBlock = false
        func close() throws {
            guard let heading else { return }
            var version: [Int]?
            if heading != "## [Unreleased]" {
                let match = try #require(
                    heading.wholeMatch(of: #/## \[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}/#),
                    "'\(heading)' is not '## [MAJOR.MINOR.PATCH] - YYYY-MM-DD'")
                version = [Int(match.1)!, Int(match.2)!, Int(match.3)!]
            }
            sections.append(Section(heading: heading, version: version, commit: commit, listedBreakages: listed))
        }
        for line in text.components(separatedBy: "\n") {
            if inBlock {
                if line.hasPrefix("```") { inBlock = false } else if !line.isEmpty { listed.append(line) }
            } else if line.hasPrefix("## ") {
                try close()
                (heading, commit, listed) = (line, nil, [])
            } else if line.hasPrefix("```api-breakage") {
                inBlock = true
            } else if line.hasPrefix("Commit: ") {
                let hash = String(line.dropFirst("Commit: ".count))
                #expect(hash.wholeMatch(of: #/[0-9a-f]{40}/#) != nil, "'\(line)' names no commit by its 40 digits")
                commit = hash
            }
        }
        try close()
        return sections
    }

    @Test("The libraries, prep-photo --version, outbox --version and the image tag give the newest release")
    func oneVersionEverywhere() throws {
        let newest = try #require(Self.sections().first { $0.version != nil })
        #expect(PhotoPreparer.packageVersion == newest.versionText)
        #expect(Outbox.packageVersion == newest.versionText)
        for tool in ["prep-photo", "outbox"] {
            let result = try HelpGoldenTests.run(tool, ["--version"])
            #expect(result.status == 0)
            #expect(result.output == "\(tool) \(newest.versionText)\n")
            #expect(result.error.isEmpty)
        }
        let job = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/sharding/k8s-indexed-job.yaml"), encoding: .utf8)
        #expect(job.contains("image: registry.example.com/prep-photo:\(newest.versionText)\n"))
    }

    @Test("Releases go down from the newest, and every release but the newest names its commit")
    func releasesAreOrderedAndNameTheirCommits() throws {
        let sections = try Self.sections()
        #expect(sections.filter { $0.version == nil }.count <= 1)
        if let unreleased = sections.firstIndex(where: { $0.version == nil }) { #expect(unreleased == 0) }
        let releases = sections.filter { $0.version != nil }
        #expect(!releases.isEmpty)
        for (newer, older) in zip(releases, releases.dropFirst()) {
            #expect(
                older.version!.lexicographicallyPrecedes(newer.version!), "\(older.heading) is below a lower version")
        }
        for release in releases.dropFirst() {
            #expect(release.commit != nil, "\(release.heading) names no commit, so the API check cannot start from it")
        }
    }

    /// What `scripts/check-api.sh --plan` says it would compare with and allow.
    static func apiCheckPlan() throws -> (baseline: String?, listed: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.repository.appendingPathComponent("scripts/check-api.sh").path, "--plan"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = text.split(separator: "\n").map(String.init)
        let baseline = lines.first { $0.hasPrefix("baseline ") }
        return (baseline, lines.filter { $0.hasPrefix("listed ") }.map { String($0.dropFirst("listed ".count)) })
    }

    @Test("check-api.sh compares with the newest release that names its commit, allowing the breakages listed above it")
    func apiCheckReadsTheChangelogAsWeDo() throws {
        let sections = try Self.sections()
        let baselineIndex = try #require(sections.firstIndex { $0.version != nil && $0.commit != nil })
        let baseline = sections[baselineIndex]
        let listed = sections[..<baselineIndex].flatMap(\.listedBreakages)
        let plan = try Self.apiCheckPlan()
        #expect(plan.baseline == "baseline \(baseline.commit!) \(baseline.versionText)")
        #expect(plan.listed == listed)
        // The tool's allowlist matches whole messages: a line copied with its '💔' or indent matches none.
        for line in listed { #expect(line.hasPrefix("API breakage: "), "not the tool's message: '\(line)'") }
    }
}

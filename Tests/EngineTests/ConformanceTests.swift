import Foundation
import Testing

/// `engine/conformance.py`, the check engine writers run against a live engine: it passes the
/// reference engine and fails engines that break the contract, naming the rule.
@Suite("Conformance check")
struct ConformanceTests {
    /// Runs the check against `url`: its exit status and its lines.
    static func check(_ url: URL) throws -> (status: Int32, lines: [String]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Fixtures.engineFolder.appendingPathComponent("conformance.py").path, url.absoluteString,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text.split(separator: "\n").map(String.init))
    }

    static let rules = [
        "upload-new", "upload-repeat", "upload-conflict", "upload-bad-id", "capture-upload-missing",
        "capture-checksum-mismatch", "capture-new", "capture-replay", "capture-replay-different", "capture-get",
        "capture-get-missing", "operation-new", "operation-without-entity", "operation-replay",
        "operation-replay-different", "operation-upload-missing", "operation-checksum-mismatch", "operation-get",
        "operation-get-missing", "operation-key-of-a-capture",
    ]

    /// The rule names of the lines that start with `verdict` ("ok" or "FAIL").
    static func rules(_ lines: [String], _ verdict: String) -> [String] {
        lines.filter { $0.hasPrefix(verdict + " ") }.map {
            String($0.dropFirst(verdict.count).drop(while: { $0 == " " }).prefix { $0 != ":" })
        }
    }

    @Test func theReferenceEngineKeepsEveryRuleRunAfterRun() async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine(dataFolder: folder)
            for _ in 0..<2 {
                let (status, lines) = try Self.check(engine.url)
                #expect(status == 0, "\(lines.joined(separator: "\n"))")
                #expect(Self.rules(lines, "ok") == Self.rules)
                #expect(
                    lines.last
                        == "\(Self.rules.count) of \(Self.rules.count) rules kept by \(engine.url.absoluteString)")
            }
        }
    }

    /// The engine as it was before replays were compared: the two replay rules broken, and only those.
    @Test func anEngineThatReplaysAnotherBodyFailsThatRule() async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.misbehaving("keeps-first", dataFolder: folder)
            let (status, lines) = try Self.check(engine.url)
            #expect(status == 1)
            #expect(Self.rules(lines, "FAIL") == ["capture-replay-different", "operation-replay-different"])
            #expect(Self.rules(lines, "ok").count == Self.rules.count - 2)
            #expect(
                lines.contains {
                    $0.hasPrefix("FAIL capture-replay-different: ") && $0.contains("expected 422, got 200")
                })
        }
    }

    @Test func aWiFiLoginPageKeepsNoRule() async throws {
        try await withTemporaryFolder { folder in
            let portal = try ReferenceEngine.misbehaving("html", dataFolder: folder)
            let (status, lines) = try Self.check(portal.url)
            #expect(status == 1)
            #expect(Self.rules(lines, "FAIL") == Self.rules)
        }
    }
}

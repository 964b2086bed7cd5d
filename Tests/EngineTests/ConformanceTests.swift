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
        "operation-get-missing", "operation-key-of-a-capture", "resumable-create", "resumable-offset",
        "resumable-wrong-offset", "resumable-complete", "resumable-completed-resumed", "resumable-other-key",
        "upload-after-creation",
    ]

    /// The rules of resumable uploads, which an engine may leave out.
    static let resumableRules = rules.filter { $0.hasPrefix("resumable-") }

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

    /// An engine without resumable uploads (405 to the creation, or whatever 4xx its gateway
    /// answers) skips their rules, and keeps the others: its captures arrive by the contract's PUT.
    @Test(arguments: [("no-resumption", 405), ("refuses-creation", 400), ("refuses-creation", 415)])
    func anEngineWithoutResumableUploadsSkipsTheirRulesOnly(mode: String, creationStatus: Int) async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.misbehaving(
                mode, dataFolder: folder, options: ["--status", "\(creationStatus)"])
            let (status, lines) = try Self.check(engine.url)
            #expect(status == 0, "\(lines.joined(separator: "\n"))")
            #expect(Self.rules(lines, "skip") == Self.resumableRules)
            #expect(Self.rules(lines, "ok") == Self.rules.filter { !$0.hasPrefix("resumable-") })
            let kept = Self.rules.count - Self.resumableRules.count
            #expect(
                lines.last
                    == "\(kept) of \(kept) rules kept by \(engine.url.absoluteString) (\(Self.resumableRules.count) skipped)"
            )
        }
    }

    /// The lies a client must not believe (an offset the engine does not hold, a Location
    /// elsewhere) each break a rule of resumable uploads.
    @Test(arguments: [
        ("lying-offset", ["resumable-offset", "resumable-wrong-offset", "resumable-completed-resumed"]),
        ("foreign-location", Self.resumableRules),
        ("says-complete", ["resumable-offset"]),
    ])
    func anEngineThatLiesAboutItsUploadsFailsThoseRules(mode: String, broken: [String]) async throws {
        try await withTemporaryFolder { folder in
            let engine = try ReferenceEngine.misbehaving(mode, dataFolder: folder)
            let (status, lines) = try Self.check(engine.url)
            #expect(status == 1)
            #expect(Self.rules(lines, "FAIL") == broken, "\(lines.joined(separator: "\n"))")
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

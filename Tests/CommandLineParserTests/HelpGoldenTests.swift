import Foundation
import TestSupport
import Testing

/// The `--help` of every command, compared with the golden text in `Tests/Fixtures/help`, and the
/// one usage-error style the three commands share.
///
/// To make the goldens again after changing a help text, run
/// `PREP_RECORD_GOLDENS=1 swift test --filter HelpGoldenTests` and review the diff. The number of
/// cores, which the help of prep-photo and prep-bench states, is written `{cores}` in the goldens.
@Suite("Help texts and usage errors of prep-photo, outbox and prep-bench")
struct HelpGoldenTests {
    /// The executables beside the test bundle in the build folder.
    static let buildFolder = BuildProducts.folder

    static let goldens = Fixtures.url("help")
    /// Where a recorded golden goes: the source tree, not the copy in the bundle.
    static let sourceGoldens = Repository.url("Tests/Fixtures/help")
    static let cores = "\(ProcessInfo.processInfo.activeProcessorCount) here"

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = buildFolder.appendingPathComponent(tool)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Help texts are a few KB, far below a pipe's buffer: reading after the exit cannot hang.
        process.waitUntilExit()
        return (
            process.terminationStatus,
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    @Test(
        "--help prints exactly its golden text on stdout and exits 0",
        arguments: [
            ("prep-photo", ["--help"], "prep-photo.txt"),
            ("outbox", ["--help"], "outbox.txt"),
            ("outbox", ["add", "--help"], "outbox-add.txt"),
            ("outbox", ["op", "--help"], "outbox-op.txt"),
            ("outbox", ["list", "--help"], "outbox-list.txt"),
            ("outbox", ["drain", "--help"], "outbox-drain.txt"),
            ("outbox", ["send-now", "--help"], "outbox-send-now.txt"),
            ("outbox", ["discard", "--help"], "outbox-discard.txt"),
            ("outbox", ["keygen", "--help"], "outbox-keygen.txt"),
            ("outbox", ["encrypt", "--help"], "outbox-encrypt.txt"),
            ("prep-bench", ["--help"], "prep-bench.txt"),
        ])
    func helpMatchesGolden(tool: String, arguments: [String], golden: String) throws {
        let result = try Self.run(tool, arguments)
        #expect(result.status == 0)
        #expect(result.error.isEmpty)
        let text = result.output.replacingOccurrences(of: Self.cores, with: "{cores} here")
        if ProcessInfo.processInfo.environment["PREP_RECORD_GOLDENS"] == "1" {
            try FileManager.default.createDirectory(at: Self.sourceGoldens, withIntermediateDirectories: true)
            try text.write(to: Self.sourceGoldens.appendingPathComponent(golden), atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: Self.goldens.appendingPathComponent(golden), encoding: .utf8)
        #expect(text == expected, "\(tool) \(arguments.joined(separator: " ")) differs from \(golden)")
        for line in text.split(separator: "\n") { #expect(line.count <= 100, "too wide: \(line)") }
        #expect(text.hasPrefix("OVERVIEW: ") && text.contains("\n\nUSAGE: "))
    }

    @Test(
        "An unknown option is the same three lines, with a suggestion, and exit status 2, in every command",
        arguments: [
            (
                "prep-photo", ["--jsno", "a.jpg"], "Unknown option '--jsno'. Did you mean '--json'?",
                "prep-photo [--out <folder>] [options] <photo-or-folder> ... | --files-from <file>", "prep-photo"
            ),
            (
                "outbox", ["--store", "s", "list", "--jsno"], "Unknown option '--jsno'. Did you mean '--json'?",
                "outbox --store <folder> list [--json] [--network <kind>]", "outbox list"
            ),
            (
                "outbox", ["--store", "s", "drian"], "Unknown command 'drian'. Did you mean 'drain'?",
                "outbox --store <folder> <command> [options]", "outbox"
            ),
            (
                "outbox", ["--store", "s", "encrypt"],
                "Missing expected option '--key-file <file>' (or OUTBOX_KEY_FILE)",
                "outbox --store <folder> --key-file <file> encrypt", "outbox encrypt"
            ),
            (
                "prep-bench", ["--runs=3", "--bacth-runs", "2", "photos"],
                "Unknown option '--bacth-runs'. Did you mean '--batch-runs'?", "prep-bench [options] <folder-of-jpegs>",
                "prep-bench"
            ),
            (
                "prep-bench", ["-j", "0", "photos"],
                "The value '0' is invalid for '-j <count>': it must be a whole number at least 1",
                "prep-bench [options] <folder-of-jpegs>", "prep-bench"
            ),
        ])
    func usageErrorStyle(tool: String, arguments: [String], message: String, usage: String, command: String) throws {
        let result = try Self.run(tool, arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.error == "Error: \(message)\nUsage: \(usage)\n  See '\(command) --help' for more information.\n")
    }
}

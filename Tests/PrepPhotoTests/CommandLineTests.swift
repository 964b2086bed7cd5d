import Foundation
import Testing

@Suite("prep-photo on the command line")
struct CommandLineTests {
    static let usageLine = "Usage: prep-photo [--out <folder>] [options] <photo-or-folder> ... | --files-from <file>\n"
    static let helpHint = "  See 'prep-photo --help' for more information.\n"

    @Test("--version prints the name and a semantic version on stdout and exits 0")
    func version() throws {
        let result = try PrepPhotoRunner.run(["--version"])
        #expect(result.status == 0)
        #expect(result.standardOutput.wholeMatch(of: #/prep-photo \d+\.\d+\.\d+\n/#) != nil, "\(result.standardOutput)")
        #expect(result.standardError.isEmpty)
    }

    @Test("--help names every option, has sections and examples, and exits 0", arguments: ["--help", "-h"])
    func help(flag: String) throws {
        let result = try PrepPhotoRunner.run([flag, "photo.jpg"])
        #expect(result.status == 0)
        #expect(result.standardError.isEmpty)
        let help = result.standardOutput
        for option in [
            "--out <folder>", "--max-edge <pixels>", "--display-edge <pixels>", "--thumb-edge <pixels>",
            "--quality <1-100>", "--no-display", "--no-thumb", "--jobs <count>", "--json", "--version", "--help",
        ] {
            #expect(help.contains(option), "--help does not mention \(option)")
        }
        for section in ["OVERVIEW:", "ARGUMENTS:", "OPTIONS:", "EXIT STATUS:", "EXAMPLES:"] {
            #expect(help.contains("\n" + section) || help.hasPrefix(section), "--help has no \(section) section")
        }
        let examples = try #require(help.components(separatedBy: "EXAMPLES:").last)
        #expect(examples.split(separator: "\n").filter { $0.hasPrefix("  prep-photo ") }.count >= 2)
        // argument-parser's heading in help; its errors say "Usage:".
        #expect(
            help.contains("USAGE: prep-photo [--out <folder>] [options] <photo-or-folder> ... | --files-from <file>\n"))
    }

    /// The exact text of each usage error, in swift-argument-parser's shape: `Error: ...`, the usage line,
    /// the hint; exit status 2 (the issue's, where argument-parser uses 64), nothing on stdout.
    @Test(
        "A usage error prints exactly the argument-parser-style message and exits 2",
        arguments: [
            (["--bogus", "photo.jpg"], "Error: Unknown option '--bogus'\n"),
            (["photo.jpg", "--quality"], "Error: Missing value for '--quality <1-100>'\n"),
            (
                ["--quality", "0", "photo.jpg"],
                "Error: The value '0' is invalid for '--quality <1-100>': it must be a whole number 1 to 100\n"
            ),
            (
                ["--quality", "abc", "photo.jpg"],
                "Error: The value 'abc' is invalid for '--quality <1-100>': it must be a whole number 1 to 100\n"
            ),
            (
                ["--max-edge", "0", "photo.jpg"],
                "Error: The value '0' is invalid for '--max-edge <pixels>': it must be a whole number 1 to 65535\n"
            ),
            (
                ["--jobs", "0", "photo.jpg"],
                "Error: The value '0' is invalid for '--jobs <count>': it must be a whole number 1 to 1024\n"
            ),
            ([], "Error: Missing expected argument '<photo-or-folder> ...'\n"),
            (["--json", "--no-thumb"], "Error: Missing expected argument '<photo-or-folder> ...'\n"),
        ])
    func usageError(arguments: [String], firstLine: String) throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "photo.jpg")
            let result = try PrepPhotoRunner.run(arguments, in: folder.url)
            #expect(result.status == 2)
            #expect(result.standardError == firstLine + Self.usageLine + Self.helpHint)
            #expect(result.standardOutput.isEmpty)
            #expect(try folder.names(in: ".") == ["photo.jpg"], "a usage error must not write anything")
        }
    }

    @Test(
        "--shard takes <i>/<n> in plain digits, i below n, n at most a million; anything else is a usage error",
        arguments: ["4/4", "+1/2", "0/1000001", "1", "1/2/3", "\u{0663}/4", "0/-0", " 0/2"])
    func shardValue(value: String) throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.run(["--shard", value, "photo.jpg"], in: folder.url)
            #expect(result.status == 2)
            #expect(
                result.standardError
                    == "Error: The value '\(value)' is invalid for '--shard <i/n>': it must be <i>/<n>, a shard from 0 to n-1 of n shards (n at most 1000000)\n"
                    + Self.usageLine + Self.helpHint)
        }
    }

    @Test("An option where --out expects its folder is a missing value, not a folder named after the option")
    func optionTakenAsOutputFolder() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "photo.jpg")
            let result = try PrepPhotoRunner.run(["--out", "--json", "photo.jpg"], in: folder.url)
            #expect(result.status == 2)
            #expect(result.standardError.hasPrefix("Error: Missing value for '--out <folder>'"))
            #expect(!folder.exists("--json"))
        }
    }
}

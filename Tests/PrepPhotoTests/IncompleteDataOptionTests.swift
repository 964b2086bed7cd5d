import Foundation
import Testing

/// A JPEG cut short is prepared by default with a warning that says how much is missing, as every
/// peer writes it; `--refuse-incomplete` refuses it, and `--accept-incomplete`, the old way to
/// ask for the default, still runs (issue 53, item 4).
@Suite("prep-photo prepares a JPEG cut short unless --refuse-incomplete")
struct IncompleteDataOptionTests {
    @Test("by default, and with --accept-incomplete, a cut-short JPEG is written with its warning")
    func preparedByDefault() throws {
        for options in [[], ["--accept-incomplete"]] {
            try TemporaryFolder.with { folder in
                try folder.copy("corpus/truncated-baseline-2725x2225.jpg", to: "cut.jpg")
                let result = try PrepPhotoRunner.run(["--json", "-o", "O"] + options + ["cut.jpg"], in: folder.url)
                #expect(result.status == 0, "\(result.standardError)")
                let report = try #require(try result.reports().first)
                #expect(report.ok && report.upload?.width == 2048)
                #expect(
                    report.warnings.contains { $0.contains("within rows 33 to 48 of 2225: from there down, 99 % of") },
                    "\(report.warnings)")
            }
        }
    }

    @Test("--refuse-incomplete refuses it with the code incomplete; with --accept-incomplete it is a usage error")
    func refused() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/truncated-baseline-2725x2225.jpg", to: "cut.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--refuse-incomplete", "-o", "O", "cut.jpg"], in: folder.url)
            #expect(result.status == 1)
            let report = try #require(try result.reports().first)
            #expect(!report.ok && report.code == "incomplete")
            #expect(report.error?.contains("has missing or damaged image data: the file ends before") == true)
            let both = try PrepPhotoRunner.run(
                ["--refuse-incomplete", "--accept-incomplete", "-o", "O", "cut.jpg"], in: folder.url)
            #expect(both.status == 2 && both.standardError.contains("cannot be used together"), "\(both.standardError)")
        }
    }
}

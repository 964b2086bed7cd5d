import Foundation
import Testing

@Suite("prep-photo progress line")
struct ProgressTests {
    static let inputs = ["no-exif.jpg", "comment-gimp-nikon-d70-xmp-icc.jpg", "not-a-jpeg.txt"]

    static func copyInputs(into folder: TemporaryFolder) throws {
        for input in inputs {
            try folder.copy(input.hasSuffix(".txt") ? "decode/\(input)" : "corpus/\(input)", to: input)
        }
    }

    @Test("When stderr is not a terminal there is no progress line: no carriage return, no escape code")
    func notATerminal() throws {
        try TemporaryFolder.with { folder in
            try Self.copyInputs(into: folder)
            let result = try PrepPhotoRunner.run(["--out", "out"] + Self.inputs, in: folder.url)
            #expect(result.status == 1)
            #expect(!result.standardError.contains("\r"))
            #expect(!result.standardError.contains("\u{1B}"))
            #expect(!result.standardError.contains(" photos/s, ETA "))
            #expect(result.standardError.split(separator: "\n").last?.hasPrefix("Prepared 2 of 3 photos in ") == true)
        }
    }

    @Test(
        "When stderr is a terminal a live line shows done/total, photos per second and the ETA",
        .enabled(if: FileManager.default.isExecutableFile(atPath: PrepPhotoRunner.script), "needs script (util-linux)"))
    func terminal() throws {
        try TemporaryFolder.with { folder in
            try Self.copyInputs(into: folder)
            let result = try PrepPhotoRunner.run(["--out", "out"] + Self.inputs, in: folder.url, launch: .terminal)
            #expect(result.status == 1)
            let terminal = result.standardOutput
            let lines = terminal.matches(of: #/(\d+)/3 photos, \d+\.\d photos/s, ETA \d+:\d\d(, \d+ failed)?/#)
            #expect(!lines.isEmpty, "no progress line in:\n\(terminal.debugDescription)")
            #expect(lines.last?.output.1 == "3", "the last progress line is not 3/3")
            #expect(lines.last?.output.2 == ", 1 failed")
            // The line is redrawn in place and cleared before the summary.
            #expect(terminal.contains("\r\u{1B}[K3/3 photos, "))
            #expect(terminal.contains("\r\u{1B}[KPrepared 2 of 3 photos in "))
            #expect(terminal.contains("prep-photo: error: 'not-a-jpeg.txt' is in no image format"))
        }
    }
}

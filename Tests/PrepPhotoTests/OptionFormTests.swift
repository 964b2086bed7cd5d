import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real command, written every way a user writes it: long and short options, values after `=`
/// or in the next word, flags combined, `--`; and what it says when an option is mistyped.
@Suite("prep-photo's options, every way of writing them")
struct OptionFormTests {
    @Test(
        "Each way of giving the output folder writes there",
        arguments: [["--out", "O"], ["--out=O"], ["-o", "O"], ["-oO"], ["-o=O"], ["-qo", "O"]])
    func outputFolderForms(option: [String]) throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a.jpg")
            let result = try PrepPhotoRunner.run(option + ["a.jpg"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try folder.names(in: "O") == ["a.display.jpg", "a.jpg", "a.thumb.jpg"])
        }
    }

    @Test(
        "Short flags combine: -rq is -r -q, and -j takes its value attached or apart",
        arguments: [
            ["-rq", "-j2"], ["-r", "-q", "-j", "2"], ["--recursive", "--quiet", "--jobs=2"], ["-qrj", "2"],
        ])
    func combinedShortFlags(options: [String]) throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/a/one.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "LIB/b/two.jpg")
            let result = try PrepPhotoRunner.run(options + ["-o", "O", "LIB"], in: folder.url)
            #expect(result.status == 0)
            #expect(result.standardError.isEmpty, "--quiet prints nothing when nothing fails: \(result.standardError)")
            #expect(folder.exists("O/a/one.jpg") && folder.exists("O/b/two.jpg"))
        }
    }

    @Test("-- ends the options, so that a photo whose name starts with a dash can be given")
    func doubleDash() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "-r.jpg")
            let result = try PrepPhotoRunner.run(["-o", "O", "--", "-r.jpg"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(folder.exists("O/-r.jpg"))
        }
    }

    @Test("-0 and --files-from=- combine with a pipe on standard input")
    func nullWithEquals() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a.jpg")
            let result = try PrepPhotoRunner.runShell(
                "printf 'a.jpg\\0' | prep-photo -0o O --files-from=-", in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(folder.exists("O/a.jpg"))
        }
    }

    @Test(
        "A mistyped option is a usage error that suggests the option meant, exit 2",
        arguments: [
            (["--jsn", "a.jpg"], "Error: Unknown option '--jsn'. Did you mean '--json'?"),
            (["--recusive", "a.jpg"], "Error: Unknown option '--recusive'. Did you mean '--recursive'?"),
            (["--skip-exsting", "a.jpg"], "Error: Unknown option '--skip-exsting'. Did you mean '--skip-existing'?"),
            (["-out", "O", "a.jpg"], "Error: Unknown option '-out'. Did you mean '--out'?"),
            (["--files-form", "l", "a.jpg"], "Error: Unknown option '--files-form'. Did you mean '--files-from'?"),
            (["--json=yes", "a.jpg"], "Error: The option '--json' does not take any value, but 'yes' was specified."),
            (
                ["-0", "a.jpg"],
                "Error: '-0' says that --files-from is NUL-separated, but no '--files-from <file>' is given"
            ),
            (["-q", "--verbose", "a.jpg"], "Error: '--quiet' and '--verbose' cannot be used together"),
            (["-o", "", "a.jpg"], "Error: The value '' is invalid for '-o <folder>': it must not be empty"),
        ])
    func suggestion(arguments: [String], firstLine: String) throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.run(arguments, in: folder.url)
            #expect(result.status == 2)
            #expect(result.standardError == firstLine + "\n" + CommandLineTests.usageLine + CommandLineTests.helpHint)
            #expect(try folder.names(in: ".").isEmpty, "a usage error writes nothing")
        }
    }
}

/// The stable `code` of every kind of failed or left-out line, each made happen for real, and
/// the table of them in docs/prep-photo.md.
@Suite("prep-photo's error codes")
struct ErrorCodeTests {
    @Test("Each failure carries its code beside the sentence, and docs/prep-photo.md lists every code")
    func codes() throws {
        try TemporaryFolder.with { folder in
            let inputs: [(path: String, code: String)] = [
                ("not-a-jpeg.txt", "unrecognized_format"),
                ("lossless.jpg", "unsupported_lossless_jpeg"),
                ("twelve-bit.jpg", "unsupported"),
                ("bomb.jpg", "too_many_pixels"),
                ("truncated.jpg", "incomplete"),
                ("corrupt.jpg", "corrupt"),
                ("empty.jpg", "empty"),
                ("chunk-bomb.png", "corrupt_png"),
                ("interlaced.png", "unsupported_png"),
                ("missing.jpg", "unreadable"),
                ("fifo.jpg", "special_file"),
                ("dangling.jpg", "dangling_link"),
                ("nothing-here", "no_photos"),
                ("a/same.jpg", "ok"),
                ("b/same.jpg", "output_clash"),
                ("exists.jpg", "output_exists"),
                ("O/input.jpg", "overwrites_input"),
                ("folder-in-the-way.jpg", "write_failed"),
            ]
            try folder.copy("decode/not-a-jpeg.txt", to: "not-a-jpeg.txt")
            try folder.copy("decode/lossless-sof3-header-only.jpg", to: "lossless.jpg")
            try folder.copy("corpus/12bit-precision-srgb2014.jpg", to: "twelve-bit.jpg")
            try folder.copy("decode/bomb-60000x60000.jpg", to: "bomb.jpg")
            try folder.copy("corpus/truncated-baseline-2725x2225.jpg", to: "truncated.jpg")
            try folder.copy("corpus/corrupt-header.jpg", to: "corrupt.jpg")
            try folder.copy("decode/empty.jpg", to: "empty.jpg")
            try folder.copy("formats/png/hostile/ztxt-inflates-100mb.png", to: "chunk-bomb.png")
            try folder.copy("formats/png/hostile/interlaced-10000x10000-rgba.png", to: "interlaced.png")
            try folder.makeFIFO(at: "fifo.jpg")
            try folder.symlink("nowhere.jpg", at: "dangling.jpg")
            try folder.makeFolder("nothing-here")
            try folder.copy("corpus/no-exif.jpg", to: "a/same.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "b/same.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "exists.jpg")
            try folder.write(Data("made earlier".utf8), to: "O/exists.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "O/input.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "folder-in-the-way.jpg")
            try folder.makeFolder("O/folder-in-the-way.display.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--refuse-incomplete", "-o", "O"] + inputs.map(\.path), in: folder.url)
            #expect(result.status == 1)
            let reports = try result.reports()
            try #require(reports.count == inputs.count, "\(result.standardOutput)")
            for (input, report) in zip(inputs, reports) {
                #expect(report.input == input.path)
                if input.code == "ok" {
                    #expect(report.code == nil && report.ok, "\(input.path): \(report.error ?? "")")
                } else {
                    #expect(report.code == input.code, "\(input.path): \(report.error ?? "")")
                    #expect(
                        !report.ok && !report.skipped && report.error?.contains(input.path) == true, "\(input.path)")
                }
            }
            let listed = try Self.readmeCodes()
            for code in Set(inputs.map(\.code)).subtracting(["ok"]) {
                #expect(listed.contains(code), "docs/prep-photo.md does not list \(code)")
            }
        }
    }

    @Test("The codes of inputs left out are in docs/prep-photo.md too")
    func skipCodesInReadme() throws {
        let listed = try Self.readmeCodes()
        for code in [
            "hidden", "not_image", "dangling_link", "special_file", "subfolder", "linked_folder", "output_folder",
            "earlier_output", "duplicate", "too_much_decoding",
            "too_many_scans", "encoding_failed", "outside_base", "name_too_long",
        ] {
            #expect(listed.contains(code), "docs/prep-photo.md does not list \(code)")
        }
    }

    /// The codes in the table of docs/prep-photo.md: the first column's `code`s.
    static func readmeCodes() throws -> Set<String> {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/prep-photo.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        return Set(text.matches(of: #/\n\| `([a-z_]+)` \|/#).map { String($0.output.1) })
    }
}

/// What is printed and what is not: --quiet, and a warning many photos share.
@Suite("prep-photo's messages: --quiet, repeated warnings")
struct MessageTests {
    /// A photo whose GPS altitude has no reference: prepared, with a warning.
    static let warned = "corpus/gps-north-west-display-p3-nikon.jpg"

    @Test("A warning that several photos share is printed once, at the end, with the count")
    func repeatedWarningOnce() throws {
        try TemporaryFolder.with { folder in
            for name in ["a", "b", "c"] { try folder.copy(Self.warned, to: "in/\(name).jpg") }
            try folder.copy("corpus/no-exif.jpg", to: "in/d.jpg")
            let result = try PrepPhotoRunner.run(["--json", "-o", "O", "in"], in: folder.url)
            #expect(result.status == 0)
            let warnings = result.standardError.split(separator: "\n").filter { $0.hasPrefix("prep-photo: warning: ") }
            #expect(
                warnings == [
                    "prep-photo: warning: 'in/a.jpg' and 2 more photos: GPSAltitude has no GPSAltitudeRef to say whether it is above or below sea level, so the altitude is left out."
                ], "\(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            let warning = try #require(lines.firstIndex { $0.hasPrefix("prep-photo: warning: ") })
            #expect(
                try warning < #require(lines.firstIndex { $0.hasPrefix("Prepared 4 of 4") }),
                "the warning comes before the summary")
            #expect(
                try result.reports().filter { !$0.warnings.isEmpty }.count == 3,
                "the JSON still has each photo's warnings")
        }
    }

    @Test("An HDR HEIC whose gain map is left out is named in its warning, with the cause; its JSON says gainMap null")
    func gainMapWarningNamesTheFile() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("heic/gainmap/no-maker-note.heic", to: "in/IMG_0001.HEIC")
            try folder.copy("heic/gainmap/iphone-hdr-320x240.heic", to: "in/IMG_0002.HEIC")
            let result = try PrepPhotoRunner.run(["--json", "-o", "O", "in"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            let warnings = result.standardError.split(separator: "\n").filter { $0.hasPrefix("prep-photo: warning: ") }
            #expect(
                warnings == [
                    "prep-photo: warning: 'in/IMG_0001.HEIC': the HDR gain map is left out of the upload, which is SDR only, because its headroom cannot be derived from Apple's metadata: the photo's EXIF has no maker note."
                ], "\(result.standardError)")
            let reports = try result.reports()
            #expect(reports.count == 2 && reports[0].warnings.count == 1 && reports[1].warnings.isEmpty)
            #expect(reports.first?.gainMap == nil)
            #expect(reports.last?.gainMap.map { [$0.width, $0.height] } == [160, 120])
        }
    }

    @Test("--verbose prints each photo's warning with it, as it comes")
    func verboseWarnings() throws {
        try TemporaryFolder.with { folder in
            for name in ["a", "b"] { try folder.copy(Self.warned, to: "in/\(name).jpg") }
            let result = try PrepPhotoRunner.run(["--verbose", "-o", "O", "in"], in: folder.url)
            let warnings = result.standardError.split(separator: "\n").filter { $0.hasPrefix("prep-photo: warning: ") }
            #expect(warnings.count == 2 && warnings[0].hasPrefix("prep-photo: warning: 'in/a.jpg': GPSAltitude"))
        }
    }

    @Test("--quiet prints the errors and nothing else: no warning, no summary")
    func quiet() throws {
        try TemporaryFolder.with { folder in
            try folder.copy(Self.warned, to: "in/a.jpg")
            try folder.copy("decode/not-a-jpeg.txt", to: "in/b.png")
            try folder.write(Data("x".utf8), to: "in/notes.txt")
            let result = try PrepPhotoRunner.run(["-q", "-o", "O", "in"], in: folder.url)
            #expect(result.status == 1)
            #expect(
                result.standardError
                    == "prep-photo: error: 'in/b.png' is in no image format ImagePrep prepares: it looks like text.\n")
        }
    }
}

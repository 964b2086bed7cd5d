import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a library run twice needs: hostile files that fail alone, output folders that a later
/// run leaves out, clashes within one folder said as they are, and `--skip-existing` that keeps
/// copies made from the very input, whatever its clock said.
@Suite("prep-photo on a library, run again")
struct RerunTests {
    static let hostile = [
        "ispe-4294967295x4294967295.heic", "grid-4294967295x4294967295.heic", "alpha-identity-loop.heic",
        "grid-alpha-identity-loop.heic", "exif-length-fffffff0.heic", "hevc-sps-error.heic",
        "av1-two-decoding-warnings.avif",
    ]

    @Test(
        "Hostile HEIF files between good photos fail alone: every input has its line, the summary is printed, stderr holds only prep-photo's words, and a rerun finishes"
    )
    func hostileFilesFailAlone() throws {
        try TemporaryFolder.with { folder in
            var inputs: [String] = []
            for (index, name) in Self.hostile.enumerated() {
                try folder.copy("heic/hostile/\(name)", to: "LIB/h\(index)-\(name)")
                try folder.copy("corpus/no-exif.jpg", to: "LIB/g\(index).jpg")
                inputs += ["LIB/g\(index).jpg", "LIB/h\(index)-\(name)"]
            }
            let first = try PrepPhotoRunner.run(["--json", "--jobs", "2", "--out", "O", "LIB"], in: folder.url)
            #expect(first.status == 1, "\(first.standardError)")
            let reports = try first.reports()
            #expect(Set(reports.map(\.input)) == Set(inputs) && reports.count == inputs.count)
            // Refused: the two sizes, the two loops and the SPS libde265 refuses; prepared: the
            // good photos, the one with a damaged Exif item and the one with two warnings.
            #expect(reports.filter { !$0.ok }.count == 5, "\(reports.map { ($0.input, $0.code) })")
            #expect(first.standardError.contains("Prepared 9 of 14 photos in "), "\(first.standardError)")
            for line in first.standardError.split(separator: "\n") {
                #expect(
                    line.hasPrefix("prep-photo: ") || line.hasPrefix("Prepared "),
                    "a line on stderr that is not prep-photo's: \(line)")
            }
            let again = try PrepPhotoRunner.run(
                ["--json", "--skip-existing", "--out", "O", "LIB"], in: folder.url)
            #expect(again.status == 1)
            #expect(try again.reports().filter(\.skipped).count == 9, "the prepared ones are kept")
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test("An --out inside the tree is marked, and a later -r run with another --out leaves it out, counted")
    func outputFoldersAreLeftOut() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/p.jpg")
            let first = try PrepPhotoRunner.run(["-r", "--json", "--out", "LIB/prepared", "LIB"], in: folder.url)
            #expect(first.status == 0, "\(first.standardError)")
            #expect(folder.exists("LIB/prepared/.prep-photo-output"))
            let second = try PrepPhotoRunner.run(["-r", "--json", "--out", "elsewhere", "LIB"], in: folder.url)
            #expect(second.status == 0, "\(second.standardError)")
            #expect(try folder.names(in: "elsewhere") == ["p.display.jpg", "p.jpg", "p.thumb.jpg"])
            let skipped = try second.reports().filter(\.skipped)
            #expect(skipped.map(\.input) == ["LIB/prepared"] && skipped.first?.code == "earlier_output")
            #expect(second.standardError.contains("1 earlier output folder"), "\(second.standardError)")
            // Given by name, a marked folder is read all the same.
            let named = try PrepPhotoRunner.run(["--json", "--out", "third", "LIB/prepared"], in: folder.url)
            #expect(
                try named.reports().filter { $0.code != "hidden" }.map(\.input).sorted()
                    == ["p.display.jpg", "p.jpg", "p.thumb.jpg"].map { "LIB/prepared/" + $0 })
        }
    }

    @Test("Names that clash in one folder (a.jpg, a.JPG, a.heic) are said to, with a remedy that works")
    func clashWithinOneFolder() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/a.jpg")
            try folder.copy("corpus/orientation-landscape-3.jpg", to: "LIB/a.JPG")
            try folder.copy("heic/no-exif.heic", to: "LIB/a.heic")
            let result = try PrepPhotoRunner.run(["-r", "--json", "--out", "O", "LIB"], in: folder.url)
            let clashes = try result.reports().filter { $0.code == "output_clash" }
            #expect(clashes.count == 2)
            for clash in clashes {
                let error = clash.error ?? ""
                #expect(error.contains("rename one of the two to keep both"), "\(error)")
                #expect(!error.contains("-r") && !error.contains("--base"), "\(error)")
            }
            // From two folders, -r or --base keeps both.
            try folder.copy("corpus/no-exif.jpg", to: "X/b.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "Y/b.jpg")
            let apart = try PrepPhotoRunner.run(["--json", "--out", "P", "X/b.jpg", "Y/b.jpg"], in: folder.url)
            #expect(try apart.reports().last?.error?.contains("with -r, or give --base") == true)
        }
    }

    @Test(
        "--skip-existing keeps the copies of a photo whose modification time lies in the future, and not once it changes"
    )
    func futureModificationTime() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/p.jpg")
            // A camera whose clock was a year ahead.
            let future = Date().addingTimeInterval(365 * 86400)
            try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: folder.path("LIB/p.jpg"))
            _ = try PrepPhotoRunner.run(["--out", "O", "LIB"], in: folder.url)
            let copy = try FileManager.default.attributesOfItem(atPath: folder.path("O/p.jpg"))
            #expect((copy[.modificationDate] as? Date).map { abs($0.timeIntervalSince(future)) < 1 } == true)
            let again = try PrepPhotoRunner.run(["--json", "--skip-existing", "--out", "O", "LIB"], in: folder.url)
            #expect(try again.reports().map(\.skipped) == [true], "\(again.standardOutput)")
            // Edited since: prepared again.
            try FileManager.default.setAttributes(
                [.modificationDate: future.addingTimeInterval(60)], ofItemAtPath: folder.path("LIB/p.jpg"))
            let edited = try PrepPhotoRunner.run(["--json", "--skip-existing", "--out", "O", "LIB"], in: folder.url)
            #expect(try edited.reports().map { $0.ok && !$0.skipped } == [true], "\(edited.standardOutput)")
        }
    }
}

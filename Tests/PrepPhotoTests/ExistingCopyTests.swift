import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Copies already in --out: never replaced by surprise, kept with --skip-existing, replaced with
/// --overwrite; and a stopped or crashed job finished by running it again.
@Suite("prep-photo and the copies already there: --skip-existing, --overwrite")
struct ExistingCopyTests {
    static func stamps(in folder: TemporaryFolder, below out: String) -> [[UInt8]: FileStamp] {
        Dictionary(
            uniqueKeysWithValues: folder.rawFiles(below: out).map {
                ($0, folder.fileStamp(Array(out.utf8) + [UInt8(ascii: "/")] + $0)!)
            })
    }

    @Test("--skip-existing on a finished library rewrites nothing: every line says skipped, every file is untouched")
    func skipExistingRewritesNothing() throws {
        try TemporaryFolder.with { folder in
            try LibraryTests.makeLibrary(in: folder)
            let first = try PrepPhotoRunner.run(["-r", "-o", "O", "LIB"], in: folder.url)
            #expect(first.status == 0, "\(first.standardError)")
            let before = Self.stamps(in: folder, below: "O")
            #expect(before.count == LibraryTests.expectedCopies.count)

            let again = try PrepPhotoRunner.run(["-r", "--skip-existing", "--json", "-o", "O", "LIB"], in: folder.url)
            #expect(again.status == 0, "\(again.standardError)")
            #expect(Self.stamps(in: folder, below: "O") == before, "a copy was written again")
            let photos = try again.reports().filter { $0.code == nil }
            #expect(photos.count == 4)
            #expect(photos.allSatisfy { $0.ok && $0.skipped && $0.upload != nil && $0.original != nil })
            #expect(again.standardError.contains("Prepared 0 of 4 photos in "))
            #expect(
                again.standardError.contains("; 4 already prepared, kept (--skip-existing)."), "\(again.standardError)")
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test(
        "A kept photo's line is its first run's, read again without a decode: copies, gain map, time, place, comment, the metadata's warnings"
    )
    func keptLinesSayWhatTheFirstRunSaid() throws {
        try TemporaryFolder.with { folder in
            let sources = [
                "corpus/gps-north-west-display-p3-nikon.jpg", "corpus/offset-plus0300-nokia-8.3-5g.jpg",
                "corpus/comment-gimp-nikon-d70-xmp-icc.jpg", "crafted/ultrahdr-320x240-iso.jpg",
                "heic/display-p3-gps.heic",
            ]
            let inputs = try sources.map { source in
                let input = "in/" + source.split(separator: "/").last!
                try folder.copy(source, to: input)
                return input
            }
            for options in [["--max-edge", "160"], ["--max-edge", "160", "--no-display", "--thumb-edge", "40"]] {
                let first = try PrepPhotoRunner.run(["--json", "-o", "O"] + options + inputs, in: folder.url)
                #expect(first.status == 0, "\(first.standardError)")
                // Kept even where a decode would be refused (`too_many_pixels`): so nothing was decoded.
                let again = try PrepPhotoRunner.run(
                    ["--json", "--skip-existing", "--max-pixels", "1", "-o", "O"] + options + inputs, in: folder.url)
                #expect(again.status == 0, "\(again.standardError)")
                let kept = try again.jsonLines()
                try #require(kept.count == inputs.count)
                for (line, earlier) in zip(kept, try first.jsonLines()) {
                    var expected = earlier
                    expected["skipped"] = true
                    #expect(
                        NSDictionary(dictionary: line) == NSDictionary(dictionary: expected),
                        "\(options): \(line["input"] ?? "?")\nfirst: \(earlier)\nkept:  \(line)")
                }
                let reports = try again.reports()
                #expect(reports.contains { $0.gainMap != nil } && reports.contains { $0.location != nil })
                #expect(reports.contains { !$0.warnings.isEmpty }, "the GPS photo's metadata warning")
                try FileManager.default.removeItem(at: folder.url.appendingPathComponent("O"))
            }
        }
    }

    @Test(
        "A kept photo whose upload copy is not a JPEG any more, and one that is not a photo any more, say null for what cannot be read"
    )
    func keptLinesWithWhatCannotBeRead() throws {
        try TemporaryFolder.with { folder in
            // A time of whole seconds, which the copies carry and a test can put back exactly.
            let taken = Date(timeIntervalSince1970: 1_700_000_000)
            for name in ["a", "b"] {
                try folder.copy("corpus/no-exif.jpg", to: "in/\(name).jpg")
                try FileManager.default.setAttributes(
                    [.modificationDate: taken], ofItemAtPath: folder.path("in/\(name).jpg"))
            }
            #expect(try PrepPhotoRunner.run(["-o", "O", "in"], in: folder.url).status == 0)
            // Someone's text in the upload copy's place, newer than the photo.
            try Data("not a jpeg".utf8).write(to: folder.url.appendingPathComponent("O/a.jpg"))
            // Text in the photo's place, its time put back: its copies are kept, and say so.
            try Data("not a photo any more".utf8).write(to: folder.url.appendingPathComponent("in/b.jpg"))
            try FileManager.default.setAttributes([.modificationDate: taken], ofItemAtPath: folder.path("in/b.jpg"))
            let again = try PrepPhotoRunner.run(["--json", "--skip-existing", "-o", "O", "in"], in: folder.url)
            #expect(again.status == 0, "\(again.standardError)")
            let lines = try again.jsonLines()
            try #require(lines.count == 2)
            #expect(lines.allSatisfy { $0["ok"] as? Bool == true && $0["skipped"] as? Bool == true })
            let upload = try #require(lines[0]["upload"] as? [String: Any])
            #expect(upload["width"] is NSNull && upload["height"] is NSNull && upload["bytes"] as? Int == 10)
            #expect(lines[0]["original"] as? [String: Int] == ["width": 250, "height": 188])
            #expect(lines[1]["original"] is NSNull && lines[1]["capturedAt"] is NSNull)
            #expect((lines[1]["upload"] as? [String: Any])?["width"] as? Int == 250)
            #expect(lines[1]["warnings"] as? [String] == [])
        }
    }

    @Test("--skip-existing prepares again a photo newer than its copies, or missing one of them, and keeps the rest")
    func skipExistingRedoesStaleAndPartial() throws {
        try TemporaryFolder.with { folder in
            for name in ["a", "b", "c"] { try folder.copy("corpus/no-exif.jpg", to: "in/\(name).jpg") }
            #expect(try PrepPhotoRunner.run(["-o", "O", "in"], in: folder.url).status == 0)
            // As a crash between two renames leaves it.
            try FileManager.default.removeItem(atPath: folder.path("O/b.thumb.jpg"))
            let later = Date().addingTimeInterval(60)
            try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: folder.path("in/c.jpg"))
            let kept = folder.fileStamp(Array("O/a.jpg".utf8))

            let result = try PrepPhotoRunner.run(["--skip-existing", "--json", "-o", "O", "in"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try result.reports().map(\.skipped) == [true, false, false])
            #expect(folder.fileStamp(Array("O/a.jpg".utf8)) == kept)
            #expect(try folder.names(in: "O").count == 9)
        }
    }

    @Test("By default a copy already there is not replaced, so a second run of another IMG_0001.jpg fails naming it")
    func existingCopyIsNotReplaced() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "trip/IMG_0001.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "home/IMG_0001.jpg")
            // As `find ... | xargs -n1 prep-photo --out O` runs them: one process per photo.
            #expect(try PrepPhotoRunner.run(["-o", "O", "trip/IMG_0001.jpg"], in: folder.url).status == 0)
            let before = try folder.contents(of: "O/IMG_0001.jpg")
            let second = try PrepPhotoRunner.run(["--json", "-o", "O", "home/IMG_0001.jpg"], in: folder.url)
            #expect(second.status == 1)
            #expect(try second.reports().first?.code == "output_exists")
            #expect(
                second.errorLines == [
                    "prep-photo: error: 'home/IMG_0001.jpg' was not prepared: its copy 'O/IMG_0001.jpg' already exists; pass --skip-existing to keep finished photos, or --overwrite to replace them."
                ])
            #expect(try folder.contents(of: "O/IMG_0001.jpg") == before)

            let replaced = try PrepPhotoRunner.run(["--overwrite", "-o", "O", "home/IMG_0001.jpg"], in: folder.url)
            #expect(replaced.status == 0)
            #expect(try JPEGFile(path: folder.path("O/IMG_0001.jpg")).size == .init(width: 100, height: 66))
        }
    }

    @Test("A job killed (SIGKILL) half-way is finished by running it again with --skip-existing")
    func rerunAfterCrash() throws {
        try TemporaryFolder.with { folder in
            for index in 1...16 { try folder.copy("corpus/orientation-landscape-1.jpg", to: "in/p\(index).jpg") }
            let running = try PrepPhotoRunner.start(["-j", "1", "-o", "O", "in"], in: folder.url)
            // Kill it once some photos are done and others are not.
            let deadline = Date().addingTimeInterval(60)
            while (try? folder.names(in: "O").count) ?? 0 < 6, Date() < deadline { usleep(2_000) }
            running.send(SIGKILL)
            _ = try running.finish()

            let rerun = try PrepPhotoRunner.run(["--skip-existing", "--json", "-o", "O", "in"], in: folder.url)
            #expect(rerun.status == 0, "\(rerun.standardError)")
            let finals = try folder.names(in: "O").filter { !$0.hasPrefix(".") }
            #expect(finals.count == 48)
            for name in finals { #expect(try JPEGFile(path: folder.path("O/\(name)")).isComplete, "\(name)") }
            let reports = try rerun.reports()
            #expect(reports.count == 16 && reports.allSatisfy(\.ok))
            #expect(
                reports.contains(where: \.skipped) && reports.contains { !$0.skipped }, "the kill fell between photos")
            // A kill can leave a temporary file; it is hidden and named so, and a rerun does not trip on it.
            #expect(folder.temporaryFiles().allSatisfy { $0.hasPrefix("O/.prep-") })
        }
    }

    @Test("--skip-existing and --overwrite together are a usage error")
    func exclusive() throws {
        let result = try PrepPhotoRunner.run(["--skip-existing", "--overwrite", "x.jpg"])
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("Error: '--skip-existing' and '--overwrite' cannot be used together\n"))
    }
}

import Foundation
import Testing

@Suite("prep-photo batches: exit status, failures, folders, output names")
struct BatchTests {
    static let copySuffixes = [".jpg", ".display.jpg", ".thumb.jpg"]

    @Test("When every photo is prepared the exit status is 0 and the summary counts them")
    func allPrepared() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "b.jpg")
            let result = try PrepPhotoRunner.run(["--out", "out", "a.jpg", "b.jpg"], in: folder.url)
            #expect(result.status == 0)
            #expect(result.standardError.hasPrefix("Prepared 2 of 2 photos in "), "\(result.standardError)")
            #expect(result.errorLines.isEmpty)
            #expect(result.standardOutput.isEmpty, "without --json nothing goes to stdout")
            #expect(
                try folder.names(in: "out")
                    == ["a", "b"].flatMap { name in Self.copySuffixes.map { name + $0 } }.sorted())
        }
    }

    @Test("Corrupt, truncated and text inputs fail with their file and reason, the others are written, exit 1")
    func someFail() throws {
        try TemporaryFolder.with { folder in
            let good = ["no-exif.jpg", "offset-plus0200-gopro-6digit-subsec-mpf.jpg", "orientation-landscape-3.jpg"]
            let bad = [
                ("corrupt-header.jpg", "is a damaged JPEG: "),
                ("truncated-baseline-2725x2225.jpg", "has missing or damaged image data: "),  // --refuse-incomplete
                ("not-a-jpeg.txt", "is in no image format ImagePrep prepares: it looks like text"),
            ]
            // A good photo after each bad one: a failure must not stop the ones after it.
            let inputs = [good[0], bad[0].0, good[1], bad[1].0, bad[2].0, good[2]]
            for input in inputs {
                try folder.copy(input.hasSuffix(".txt") ? "decode/\(input)" : "corpus/\(input)", to: input)
            }
            let result = try PrepPhotoRunner.run(
                ["--json", "--refuse-incomplete", "--max-edge", "128", "--out", "out"] + inputs, in: folder.url)
            #expect(result.status == 1)
            for name in good {
                let stem = (name as NSString).deletingPathExtension
                for suffix in Self.copySuffixes { #expect(folder.exists("out/\(stem)\(suffix)"), "\(stem)\(suffix)") }
            }
            #expect(try folder.names(in: "out").count == 3 * good.count)
            #expect(result.errorLines.count == bad.count)
            for (name, reason) in bad {
                let lines = result.errorLines.filter { $0.contains("'\(name)'") }
                #expect(lines.count == 1, "\(name) is not named once on stderr:\n\(result.standardError)")
                #expect(lines.first?.contains(reason) == true, "\(lines)")
            }
            #expect(result.standardError.contains("Prepared 3 of 6 photos in "))
            #expect(result.standardError.contains("; 3 failed"))
            #expect(try result.reports().map(\.ok) == [true, false, true, false, false, true])
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test("A folder's images are prepared, a PNG in it fails as not a JPEG, other files are left out and counted")
    func folderArgument() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "photos/b.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "photos/a.JPEG")
            // Text named .png: taken from the folder by its name, refused by its content.
            try folder.copy("decode/not-a-jpeg.txt", to: "photos/c.png")
            try folder.write(Data("notes".utf8), to: "photos/notes.txt")
            try folder.write(Data("x".utf8), to: "photos/README")
            try folder.write(Data("x".utf8), to: "photos/.hidden.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", "photos"], in: folder.url)
            #expect(result.status == 1)
            let reports = try result.reports()
            let photos = reports.filter { !$0.skipped }
            #expect(photos.map(\.input) == ["photos/a.JPEG", "photos/b.jpg", "photos/c.png"])
            #expect(photos.map(\.ok) == [true, true, false])
            #expect(photos.last?.error?.contains("is in no image format") == true)
            #expect(photos.last?.code == "unrecognized_format")
            // What was left out has a line too, in folder order, with its cause.
            let leftOut = reports.filter(\.skipped)
            #expect(leftOut.map(\.input) == ["photos/.hidden.jpg", "photos/README", "photos/notes.txt"])
            #expect(leftOut.map(\.code) == ["hidden", "not_image", "not_image"])
            #expect(leftOut.allSatisfy { !$0.ok && $0.error?.contains($0.input) == true })
            #expect(result.standardError.contains("Prepared 2 of 3 photos"))
            #expect(
                result.standardError.contains("Left out: 1 hidden, 2 not images (--verbose names them)."),
                "\(result.standardError)")
            #expect(
                try folder.names(in: "out")
                    == ["a", "b"].flatMap { name in Self.copySuffixes.map { name + $0 } }.sorted())
        }
    }

    @Test("A phone's folder of HEIC, a HEIC named .jpg and a JPEG are all prepared, each as NAME.jpg, upright")
    func phoneFolderWithHEIC() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("heic/iphone-like-grid-p3-rotated.heic", to: "100APPLE/IMG_0001.HEIC")
            try folder.copy("heic/av1-orientation-6.avif", to: "100APPLE/IMG_0002.avif")
            try folder.copy("heic/time-offset-gps-exiftool.heic", to: "100APPLE/IMG_0003.JPG")
            try folder.copy("corpus/no-exif.jpg", to: "100APPLE/IMG_0004.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", "100APPLE"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            let reports = try result.reports()
            #expect(reports.map(\.ok) == [true, true, true, true])
            #expect(reports.map(\.upload?.path) == (1...4).map { "out/IMG_000\($0).jpg" })
            // Upright: the iPhone-like grid is stored 1000x750 and turned by its irot.
            #expect(reports[0].upload.map { ($0.width, $0.height) } ?? (0, 0) == (750, 1000))
            #expect(reports[0].original == PhotoReport.Size(width: 1000, height: 750) && reports[0].orientation == 6)
            #expect(reports[0].capturedAt?.offset == "-04:00" && reports[0].location != nil)
            #expect(reports[1].upload.map { ($0.width, $0.height) } ?? (0, 0) == (224, 150))
            #expect(reports[2].capturedAt?.local == "2024-11-02T06:15:30.25")
            #expect(
                try folder.names(in: "out")
                    == (1...4).flatMap { number in Self.copySuffixes.map { "IMG_000\(number)" + $0 } }.sorted())
        }
    }

    @Test("A folder with no images in it is reported as a failure, exit 1")
    func emptyFolder() throws {
        try TemporaryFolder.with { folder in
            try folder.write(Data("notes".utf8), to: "photos/notes.txt")
            let result = try PrepPhotoRunner.run(["--out", "out", "photos"], in: folder.url)
            #expect(result.status == 1)
            #expect(result.errorLines == ["prep-photo: error: 'photos' is a folder with no photos in it."])
        }
    }

    @Test("Without --out the copies go to ./prepared/ in the working folder")
    func defaultOutputFolder() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "in/IMG_1025.jpg")
            let result = try PrepPhotoRunner.run(["in/IMG_1025.jpg"], in: folder.url)
            #expect(result.status == 0)
            #expect(try folder.names(in: "prepared") == ["IMG_1025.display.jpg", "IMG_1025.jpg", "IMG_1025.thumb.jpg"])
            #expect(try folder.names(in: ".") == ["in", "prepared"])
            #expect(result.standardError.contains(" into prepared/"))
        }
    }

    @Test("Two inputs named alike: the second is refused naming both, the first is written, exit 1")
    func nameCollision() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a/IMG.jpg")  // 250x188
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "b/IMG.jpg")  // 100x66
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", "a/IMG.jpg", "b/IMG.jpg"], in: folder.url)
            #expect(result.status == 1)
            let message = try #require(result.errorLines.first)
            #expect(result.errorLines.count == 1)
            #expect(message.contains("'a/IMG.jpg'") && message.contains("'b/IMG.jpg'"), "\(message)")
            let reports = try result.reports()
            #expect(reports.map(\.ok) == [true, false])
            #expect(try JPEGFile(path: folder.path("out/IMG.jpg")).size == PhotoReport.Size(width: 250, height: 188))
            #expect(try folder.names(in: "out") == ["IMG.display.jpg", "IMG.jpg", "IMG.thumb.jpg"])
            try JSONReportTests.expectCopiesMatchFiles(reports[0], in: folder.url.appendingPathComponent("out"))
        }
    }

    @Test("An input whose upload copy would be another input's display copy is refused like a name collision")
    func suffixCollision() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a/IMG.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "b/IMG.display.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "out", "a/IMG.jpg", "b/IMG.display.jpg"], in: folder.url)
            let reports = try result.reports()
            #expect(result.status == 1)
            #expect(result.errorLines.first?.contains("'a/IMG.jpg'") == true)
            #expect(result.errorLines.first?.contains("'b/IMG.display.jpg'") == true)
            #expect(reports.map(\.ok) == [true, false])
            // What is reported must be what is on disk: nothing replaced a's copies.
            for report in reports {
                for (_, copy) in report.copies {
                    #expect(
                        (try? JPEGFile(path: folder.path(copy.path)))?.byteCount == copy.bytes,
                        "\(report.input): \(copy.path)")
                }
            }
        }
    }

    @Test("Copies that would land on the input itself are refused and the input is left as it was")
    func neverOverwritesInput() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "photos/keep.jpg")
            let before = try folder.contents(of: "photos/keep.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "photos", "photos/keep.jpg"], in: folder.url)
            #expect(result.status == 1)
            let message = try #require(result.errorLines.first)
            #expect(message.contains("'photos/keep.jpg'") && message.contains("would overwrite an input"), "\(message)")
            #expect(try folder.contents(of: "photos/keep.jpg") == before)
            #expect(try folder.names(in: "photos") == ["keep.jpg"], "nothing else is written for a refused photo")
        }
    }

    @Test("An input named like another input's display copy, in the output folder, is not overwritten")
    func neverOverwritesInputNamedLikeACopy() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a/IMG.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "out/IMG.display.jpg")
            let before = try folder.contents(of: "out/IMG.display.jpg")
            let result = try PrepPhotoRunner.run(["--out", "out", "a/IMG.jpg", "out/IMG.display.jpg"], in: folder.url)
            #expect(result.status == 1)
            #expect(
                result.errorLines.contains { $0.contains("'a/IMG.jpg'") && $0.contains("would overwrite an input") })
            #expect(try folder.contents(of: "out/IMG.display.jpg") == before)
        }
    }
}

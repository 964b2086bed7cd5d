import Foundation
import Testing

/// `--files-from`, `-0` and `--base`: lists of paths, from a file or a pipe, as find, GNU parallel
/// or a cluster job hands them over.
@Suite("prep-photo --files-from, -0 and --base")
struct FileListTests {
    @Test("find -print0 | prep-photo -0 --files-from - --base LIB mirrors every path, odd names included")
    func findPrint0() throws {
        try TemporaryFolder.with { folder in
            try LibraryTests.makeLibrary(in: folder)
            // A newline in a name: only a NUL-separated list can carry it.
            try folder.copy("corpus/orientation-landscape-6.jpg", to: "LIB/2025/two\nlines.jpg")
            let result = try PrepPhotoRunner.runShell(
                "find LIB -type f -name '*.jp*g' ! -name '.*' ! -path '*/.*' -print0 | prep-photo -0 --files-from - --base LIB --out O --json",
                in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            let expected =
                (LibraryTests.expectedCopies + LibraryTests.suffixes.map { rawBytes("2025/two\nlines" + $0) })
                .sorted { $0.lexicographicallyPrecedes($1) }
            #expect(folder.rawFiles(below: "O") == expected)
            let reports = try result.reports()
            #expect(reports.count == 5 && reports.allSatisfy { $0.ok && !$0.skipped })
            #expect(
                reports.contains {
                    $0.input == "LIB/2025/two\\x0Alines.jpg" && $0.upload?.path == "O/2025/two\\x0Alines.jpg"
                })
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test(
        "A newline list from a file, with absolute paths and blank lines, is read line by line; --base given relative")
    func newlineList() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "photos/a/IMG.jpg")
            try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "photos/b/IMG.jpg")
            let list = "\(folder.path("photos/a/IMG.jpg"))\n\n./photos/b/../b/IMG.jpg\n"
            try folder.write(Data(list.utf8), to: "list.txt")
            let result = try PrepPhotoRunner.run(
                ["--files-from", "list.txt", "--base", "photos", "-o", "O", "--json"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(
                folder.rawFiles(below: "O").map { String(decoding: $0, as: UTF8.self) }.sorted() == [
                    "a/IMG.display.jpg", "a/IMG.jpg", "a/IMG.thumb.jpg", "b/IMG.display.jpg", "b/IMG.jpg",
                    "b/IMG.thumb.jpg",
                ])
            #expect(try result.reports().count == 2)
        }
    }

    @Test("--base with -r keeps the path below the base, not below the folder given")
    func baseWithRecursion() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/2024/trip/IMG_0001.jpg")
            let result = try PrepPhotoRunner.run(["-r", "--base", "LIB", "-o", "O", "LIB/2024"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(folder.exists("O/2024/trip/IMG_0001.jpg"))
        }
    }

    @Test("A path outside --base fails with its code, and the others are prepared")
    func outsideBase() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/in.jpg")
            try folder.copy("corpus/no-exif.jpg", to: "other/out.jpg")
            let result = try PrepPhotoRunner.run(
                ["--base", "LIB", "-o", "O", "--json", "LIB/in.jpg", "other/out.jpg"], in: folder.url)
            #expect(result.status == 1)
            #expect(try result.reports().map(\.code) == [nil, "outside_base"])
            #expect(
                result.errorLines == [
                    "prep-photo: error: 'other/out.jpg' is not inside --base 'LIB', so it has no place under --out."
                ])
        }
    }

    @Test("A list that cannot be read stops the run before anything is written, naming the list and the reason")
    func missingList() throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.run(["--files-from", "nope.txt", "-o", "O"], in: folder.url)
            #expect(result.status == 1)
            #expect(
                result.standardError
                    == "prep-photo: error: could not read the file list 'nope.txt': No such file or directory.\n")
        }
    }

    @Test("A NUL-separated list read without -0 is named as such; an endless line is refused, not kept in memory")
    func malformedLists() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "a.jpg")
            try folder.write(Data("a.jpg\u{0}a.jpg\u{0}".utf8), to: "nul.list")
            let withoutNull = try PrepPhotoRunner.run(
                ["--files-from", "nul.list", "-o", "O", "--json"], in: folder.url)
            #expect(withoutNull.status == 1)
            #expect(withoutNull.errorLines.first?.contains("is read with -0") == true, "\(withoutNull.standardError)")

            try folder.write(
                Data(repeating: UInt8(ascii: "x"), count: 100_000) + Data("\na.jpg\n".utf8), to: "long.list")
            let long = try PrepPhotoRunner.run(["--files-from", "long.list", "-o", "O2", "--json"], in: folder.url)
            #expect(long.status == 1)
            #expect(try long.reports().map(\.code) == ["name_too_long", nil])
            #expect(folder.exists("O2/a.jpg"), "the line after the long one is still read")
        }
    }

    @Test("An empty list is an empty batch: nothing to do is not a failure (a shard can be empty)")
    func emptyList() throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.runShell("printf '' | prep-photo -0 --files-from - -o O", in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.hasPrefix("Prepared 0 of 0 photos in "))
        }
    }

    @Test("A path that is not UTF-8 given as an argument is opened by its bytes")
    func argumentThatIsNotUTF8() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", toRaw: rawBytes("caf\\xE9.jpg"))
            let result = try PrepPhotoRunner.runShell(
                "prep-photo --json -o O \"$(printf 'caf\\351.jpg')\"", in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try result.reports().first?.input == "caf\\xE9.jpg")
            #expect(try folder.jpeg(raw: rawBytes("O/caf\\xE9.jpg")).isComplete)
        }
    }
}

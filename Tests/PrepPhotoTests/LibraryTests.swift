import Foundation
import Testing

/// Photo libraries as people have them: year folders, the same camera names in several of them,
/// names from old cards that are not UTF-8, and the clutter around them.
@Suite("prep-photo on photo libraries: -r, mirrored paths, what is left out")
struct LibraryTests {
    static let suffixes = [".jpg", ".display.jpg", ".thumb.jpg"]

    /// A library: two IMG_0001.jpg in different folders, a name that is not UTF-8 (é in Latin-1),
    /// a deep folder, and one of each kind of clutter.
    static func makeLibrary(in folder: TemporaryFolder) throws {
        try folder.copy("corpus/no-exif.jpg", to: "LIB/2024/trip/IMG_0001.jpg")  // 250x188
        try folder.copy("corpus/comment-gimp-nikon-d70-xmp-icc.jpg", to: "LIB/2024/home/IMG_0001.jpg")  // 100x66
        try folder.copy("corpus/orientation-landscape-3.jpg", toRaw: rawBytes("LIB/2025/caf\\xE9.jpg"))
        try folder.copy("corpus/offset-plus0200-pixel8pro-8x8.jpg", to: "LIB/2025/deep/er/still/x.jpeg")
        try folder.copy("corpus/no-exif.jpg", to: "LIB/.hidden.jpg")
        try folder.copy("corpus/no-exif.jpg", to: "LIB/.thumbnails/t.jpg")
        try folder.write(Data("shopping".utf8), to: "LIB/notes.txt")
        try folder.symlink("nowhere.jpg", at: "LIB/dangling.jpg")
        try folder.symlink("2024/trip/IMG_0001.jpg", at: "LIB/zz-link-to-trip.jpg")
        try folder.makeFIFO(at: "LIB/2025/fifo.jpg")
        // A link to a folder out of the tree, and one back up into it (a loop): neither is followed.
        try folder.copy("corpus/no-exif.jpg", to: "elsewhere/outside.jpg")
        try folder.symlink("../../elsewhere", at: "LIB/2025/outside")
        try folder.symlink("..", at: "LIB/2024/loop")
    }

    /// The copies of the library's four photos, mirrored below `out`.
    static let expectedCopies: [[UInt8]] = [
        "2024/home/IMG_0001", "2024/trip/IMG_0001", "2025/caf\\xE9", "2025/deep/er/still/x",
    ]
    .flatMap { stem in suffixes.map { rawBytes(stem + $0) } }.sorted { $0.lexicographicallyPrecedes($1) }

    @Test("-r prepares every photo of a library into its own folder under --out: same names, a name that is not UTF-8")
    func recursiveMirrorsTheLibrary() throws {
        try TemporaryFolder.with { folder in
            try Self.makeLibrary(in: folder)
            let result = try PrepPhotoRunner.run(["-r", "--json", "--out", "O", "LIB"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(
                folder.rawFiles(below: "O") == Self.expectedCopies,
                "\(folder.rawFiles(below: "O").map { String(decoding: $0, as: UTF8.self) })")
            // Each copy is its own photo's: the two IMG_0001 did not replace each other.
            #expect(try folder.jpeg(raw: rawBytes("O/2024/trip/IMG_0001.jpg")).size == .init(width: 250, height: 188))
            #expect(try folder.jpeg(raw: rawBytes("O/2024/home/IMG_0001.jpg")).size == .init(width: 100, height: 66))
            #expect(try folder.jpeg(raw: rawBytes("O/2025/caf\\xE9.jpg")).isComplete)

            let reports = try result.reports()
            let prepared = reports.filter { $0.ok && !$0.skipped }
            #expect(
                Set(prepared.map(\.input))
                    == [
                        "LIB/2024/home/IMG_0001.jpg", "LIB/2024/trip/IMG_0001.jpg", "LIB/2025/caf\\xE9.jpg",
                        "LIB/2025/deep/er/still/x.jpeg",
                    ])
            #expect(prepared.first { $0.input.hasPrefix("LIB/2025/caf") }?.upload?.path == "O/2025/caf\\xE9.jpg")
            let leftOut = Dictionary(grouping: reports.filter(\.skipped), by: { $0.code ?? "" }).mapValues {
                $0.map(\.input).sorted()
            }
            #expect(
                leftOut == [
                    "hidden": ["LIB/.hidden.jpg", "LIB/.thumbnails"],
                    "not_image": ["LIB/notes.txt"],
                    "dangling_link": ["LIB/dangling.jpg"],
                    "special_file": ["LIB/2025/fifo.jpg"],
                    "linked_folder": ["LIB/2024/loop", "LIB/2025/outside"],
                    "duplicate": ["LIB/zz-link-to-trip.jpg"],
                ])
            #expect(reports.allSatisfy { $0.ok || $0.skipped }, "nothing failed")
            #expect(result.standardError.contains("Prepared 4 of 4 photos in "))
            #expect(
                result.standardError.contains(
                    "Left out: 2 hidden, 1 not an image, 1 dangling link, 1 special file, 2 linked folders, 1 duplicate (--verbose names them)."
                ), "\(result.standardError)")
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test("Without -r a folder's subfolders are counted and named in the summary, with the hint to use -r")
    func subfoldersWithoutRecursion() throws {
        try TemporaryFolder.with { folder in
            try Self.makeLibrary(in: folder)
            let result = try PrepPhotoRunner.run(["--json", "--out", "O", "LIB"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            // Only the link at the top is a photo there; it is prepared under its own name.
            #expect(
                folder.rawFiles(below: "O")
                    == Self.suffixes.map { rawBytes("zz-link-to-trip" + $0) }.sorted {
                        $0.lexicographicallyPrecedes($1)
                    })
            #expect(result.standardError.contains("Prepared 1 of 1 photo in "))
            #expect(result.standardError.contains("2 subfolders without -r"))
            #expect(
                result.standardError.contains(
                    "Subfolders not entered: 'LIB/2024', 'LIB/2025'; -r prepares the photos in them too."),
                "\(result.standardError)")
            let subfolders = try result.reports().filter { $0.code == "subfolder" }
            #expect(subfolders.map(\.input) == ["LIB/2024", "LIB/2025"] && subfolders.allSatisfy(\.skipped))
        }
    }

    @Test("A folder holding only subfolders fails without -r, saying -r reads them")
    func onlySubfolders() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/2024/a.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "O", "LIB"], in: folder.url)
            #expect(result.status == 1)
            #expect(
                result.errorLines == [
                    "prep-photo: error: 'LIB' is a folder with no photos in it (its subfolders are read with -r)."
                ])
            #expect(try result.reports().last?.code == "no_photos")
        }
    }

    @Test("--verbose names every input left out, with its reason, in order")
    func verboseNamesWhatIsLeftOut() throws {
        try TemporaryFolder.with { folder in
            try Self.makeLibrary(in: folder)
            let result = try PrepPhotoRunner.run(["-r", "--verbose", "--out", "O", "LIB"], in: folder.url)
            #expect(result.status == 0)
            let skipped = result.standardError.split(separator: "\n").filter { $0.hasPrefix("prep-photo: skipped: ") }
            #expect(
                skipped == [
                    "prep-photo: skipped: 'LIB/.hidden.jpg' is hidden (its name starts with a dot).",
                    "prep-photo: skipped: 'LIB/.thumbnails' is hidden (its name starts with a dot).",
                    "prep-photo: skipped: 'LIB/2024/loop' is a symbolic link to a folder, which is not followed.",
                    "prep-photo: skipped: 'LIB/2025/fifo.jpg' is a FIFO (named pipe), not a file.",
                    "prep-photo: skipped: 'LIB/2025/outside' is a symbolic link to a folder, which is not followed.",
                    "prep-photo: skipped: 'LIB/dangling.jpg' is a symbolic link to something that does not exist.",
                    "prep-photo: skipped: 'LIB/notes.txt' is not an image (by its name).",
                    "prep-photo: skipped: 'LIB/zz-link-to-trip.jpg' is the same file as 'LIB/2024/trip/IMG_0001.jpg'; it is prepared once, as 'LIB/2024/trip/IMG_0001.jpg'.",
                ], "\(result.standardError)")
        }
    }

    @Test("A symlink given beside its target is one photo, prepared once under the target's name, and no failure")
    func linkBesideTarget() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "in/real.jpg")
            try folder.symlink("real.jpg", at: "in/alias.jpg")
            // The link first: the name that is not a link is the one kept.
            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "O", "in/alias.jpg", "in/real.jpg"], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.errorLines.isEmpty)
            #expect(try folder.names(in: "O") == Self.suffixes.map { "real" + $0 }.sorted())
            let reports = try result.reports()
            #expect(reports.map(\.input) == ["in/alias.jpg", "in/real.jpg"])
            #expect(reports.map(\.code) == ["duplicate", nil])
            #expect(reports.map(\.skipped) == [true, false])
            #expect(result.standardError.contains("Prepared 1 of 1 photo in "))
        }
    }

    @Test("-r never enters the output folder inside the library, so a rerun does not prepare its own copies")
    func outputInsideTheLibrary() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "LIB/a/one.jpg")
            for _ in 0..<2 {
                let result = try PrepPhotoRunner.run(
                    ["-r", "--skip-existing", "--out", "LIB/prepared", "LIB"], in: folder.url)
                #expect(result.status == 0, "\(result.standardError)")
                #expect(result.standardError.contains("1 of 1 photo") || result.standardError.contains("0 of 1 photo"))
            }
            #expect(folder.rawFiles(below: "LIB/prepared").count == 3)
        }
    }

    @Test("Names with control characters are shown escaped, never sent to the terminal raw")
    func controlCharactersAreEscaped() throws {
        try TemporaryFolder.with { folder in
            try folder.write(Data("not a photo".utf8), to: "in/bad\u{1B}[31mred\n.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "O", "in"], in: folder.url)
            #expect(result.status == 1)
            #expect(!result.standardError.contains("\u{1B}"))
            #expect(
                result.errorLines.first?.contains("'in/bad\\x1B[31mred\\x0A.jpg' is in no image format") == true,
                "\(result.standardError)")
            #expect(try result.reports().first?.input == "in/bad\\x1B[31mred\\x0A.jpg")
        }
    }
}

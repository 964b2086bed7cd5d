import Foundation
import Testing

/// Each copy appears under its final name complete or not at all, and an error leaves no temporary file.
@Suite("prep-photo writes: errors leave no temporary file and no partial JPEG")
struct OutputWriterTests {
    static let inputs = ["no-exif.jpg", "comment-gimp-nikon-d70-xmp-icc.jpg"]

    static func systemReason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Every JPEG under `folder`'s `out` is complete and no temporary file is left anywhere.
    static func expectNoLeftovers(in folder: TemporaryFolder, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        #expect(
            folder.temporaryFiles().isEmpty, "left behind: \(folder.temporaryFiles())", sourceLocation: sourceLocation)
        for path in folder.allPaths() where path.hasPrefix("out/") && path.hasSuffix(".jpg") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path(path), isDirectory: &isFolder), !isFolder.boolValue
            else { continue }
            #expect(
                try JPEGFile(path: folder.path(path)).isComplete, "\(path) is cut off", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "In a read-only output folder every photo fails naming the path and the system's reason, exit 1, nothing left")
    func readOnlyOutputFolder() throws {
        if PrepPhotoRunner.isRoot {
            // Root writes into a 0555 folder anyway; the test is only worth something as another user.
            try #require(
                FileManager.default.isExecutableFile(atPath: PrepPhotoRunner.setpriv),
                "running as root, and \(PrepPhotoRunner.setpriv) (util-linux) is missing to drop privileges")
        }
        try TemporaryFolder.with { folder in
            for input in Self.inputs { try folder.copy("corpus/\(input)", to: input) }
            try folder.makeFolder("out")
            try folder.setMode(0o555, of: "out")
            let probe = try PrepPhotoRunner.run(["--version"], in: folder.url, launch: .unprivileged)
            try #require(
                probe.status == 0,
                "user 65534 cannot run \(PrepPhotoRunner.executable.path) (the build folder must be world-readable): \(probe.standardError)"
            )

            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "out"] + Self.inputs, in: folder.url, launch: .unprivileged)
            #expect(result.status == 1)
            #expect(result.errorLines.count == Self.inputs.count, "\(result.standardError)")
            for input in Self.inputs {
                let upload = "out/\(input)"
                #expect(
                    result.errorLines.contains {
                        $0.contains("'\(upload)'") && $0.hasSuffix(": \(Self.systemReason(EACCES)).")
                    },
                    "no error names \(upload) and the reason:\n\(result.standardError)")
            }
            #expect(try result.reports().allSatisfy { !$0.ok })
            #expect(try folder.names(in: "out").isEmpty)
            try Self.expectNoLeftovers(in: folder)
        }
    }

    @Test("When the output folder cannot be made, the run fails naming it, and --json still reports each input")
    func outputFolderCannotBeMade() throws {
        try TemporaryFolder.with { folder in
            for input in Self.inputs { try folder.copy("corpus/\(input)", to: input) }
            try folder.write(Data("not a folder".utf8), to: "out")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out"] + Self.inputs, in: folder.url)
            #expect(result.status == 1)
            #expect(result.standardError.hasPrefix("prep-photo: error: could not create the output folder 'out': "))
            #expect(try folder.contents(of: "out") == Data("not a folder".utf8))
            let reports = try result.reports()
            #expect(reports.map(\.ok) == [false, false])
        }
    }

    @Test(
        "When a folder stands where a copy goes, that photo fails naming the path, the others are written, nothing left",
        arguments: [".jpg", ".display.jpg", ".thumb.jpg"])
    func folderInTheWay(suffix: String) throws {
        try TemporaryFolder.with { folder in
            for input in Self.inputs { try folder.copy("corpus/\(input)", to: input) }
            try folder.makeFolder("out/no-exif\(suffix)")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out"] + Self.inputs, in: folder.url)
            #expect(result.status == 1)
            let message = try #require(result.errorLines.first)
            #expect(result.errorLines.count == 1)
            #expect(message.contains("'no-exif.jpg'"), "\(message)")
            #expect(message.contains("'out/no-exif\(suffix)'"), "\(message)")
            #expect(message.hasSuffix(": \(Self.systemReason(EISDIR))."), "\(message)")
            #expect(try result.reports().map(\.ok) == [false, true])
            for copySuffix in [".jpg", ".display.jpg", ".thumb.jpg"] {
                #expect(folder.exists("out/comment-gimp-nikon-d70-xmp-icc\(copySuffix)"))
            }
            try Self.expectNoLeftovers(in: folder)
            // The report says no copy of the failed photo was written; the folder should agree.
            let strays = try folder.names(in: "out").filter { $0.hasPrefix("no-exif.") && $0 != "no-exif\(suffix)" }
            #expect(strays.isEmpty, "copies of the failed photo: \(strays)")
        }
    }

    @Test("A write that fails halfway, as on a full disk, leaves no temporary file and no partial JPEG, exit 1")
    func writeFailsHalfway() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: PrepPhotoRunner.prlimit), "prlimit (util-linux) is missing")
        try TemporaryFolder.with { folder in
            // Every copy of the 8x8 photo is under 4 KB; the upload copy of no-exif.jpg is about 12 KB.
            let inputs = ["offset-plus0200-pixel8pro-8x8.jpg", "no-exif.jpg"]
            for input in inputs { try folder.copy("corpus/\(input)", to: input) }
            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "out"] + inputs, in: folder.url, launch: .fileSizeLimit(4096))
            #expect(result.status == 1, "\(result.standardError)")
            let message = try #require(result.errorLines.first)
            #expect(message.contains("'out/no-exif.jpg'") && message.hasSuffix(": \(Self.systemReason(EFBIG))."))
            let reports = try result.reports()
            #expect(reports.map(\.ok) == [true, false])
            try JSONReportTests.expectCopiesMatchFiles(reports[0], in: folder.url.appendingPathComponent("out"))
            #expect(!folder.exists("out/no-exif.jpg"))
            try Self.expectNoLeftovers(in: folder)
        }
    }
}

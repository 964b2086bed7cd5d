import Foundation
import Testing

/// Inputs that are not regular files are refused at once, and any name the file system takes
/// can be written.
@Suite("prep-photo and special files: FIFOs, devices, long names")
struct SpecialFileTests {
    /// Long enough to notice a hang, short enough that a hang fails the test rather than the run.
    static let timeLimit = Duration.seconds(60)

    @Test("a FIFO named like a photo is refused at once as not a regular file; the photo beside it is prepared")
    func fifo() throws {
        try TemporaryFolder.with { folder in
            try #require(mkfifo(folder.path("waiting.jpg"), 0o644) == 0, "mkfifo: \(String(cString: strerror(errno)))")
            try folder.copy("corpus/no-exif.jpg", to: "no-exif.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "out", "waiting.jpg", "no-exif.jpg"], in: folder.url, timeLimit: Self.timeLimit)
            #expect(!result.timedOut, "prep-photo waited on the FIFO")
            #expect(result.status == 1)
            // prep-photo refuses it from its plan, before ImagePrep (which refuses it too) would open it.
            #expect(result.errorLines.count == 1, "\(result.standardError)")
            #expect(
                result.errorLines.first.map {
                    $0.hasPrefix("prep-photo: error: 'waiting.jpg' ") && $0.contains("is not a regular file")
                        && $0.contains("FIFO")
                } == true, "\(result.errorLines)")
            #expect(try result.reports().map(\.ok) == [false, true])
            #expect(folder.temporaryFiles().isEmpty)
        }
    }

    @Test("a character device is refused as not a regular file")
    func characterDevice() throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.run(
                ["--out", "out", "/dev/zero"], in: folder.url, timeLimit: Self.timeLimit)
            #expect(!result.timedOut)
            #expect(result.status == 1)
            #expect(result.errorLines.count == 1, "\(result.standardError)")
            #expect(
                result.errorLines.first.map {
                    $0.hasPrefix("prep-photo: error: '/dev/zero' ") && $0.contains("is not a regular file")
                } == true, "\(result.errorLines)")
        }
    }

    @Test("a file larger than any photo is refused by its size, and the photo beside it is prepared")
    func fileLargerThanAnyPhoto() throws {
        try TemporaryFolder.with { folder in
            let descriptor = open(folder.path("huge.jpg"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            try #require(descriptor >= 0)
            // Sparse: a gigabyte and a megabyte on the books, nothing on the disk.
            try #require(ftruncate(descriptor, off_t((1 << 30) + (1 << 20))) == 0)
            close(descriptor)
            try folder.copy("corpus/no-exif.jpg", to: "no-exif.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--out", "out", "huge.jpg", "no-exif.jpg"], in: folder.url, timeLimit: Self.timeLimit)
            #expect(!result.timedOut)
            #expect(result.status == 1)
            #expect(
                result.errorLines == [
                    "prep-photo: error: 'huge.jpg' could not be read: it is 1025 MB, more than the 1024 MB a photo file may be."
                ], "\(result.standardError)")
            #expect(try result.reports().map(\.ok) == [false, true])
        }
    }

    @Test("a photo with a 240-byte name gets all three copies under their full names, and no temporary file is left")
    func longName() throws {
        try TemporaryFolder.with { folder in
            // 240 bytes in, 248 for the display copy: both fit the 255 of NAME_MAX, and so must
            // every temporary name on the way.
            let stem = String(repeating: "long-name-", count: 23) + "photo0"
            let name = stem + ".jpg"
            try #require(name.utf8.count == 240)
            try folder.copy("corpus/no-exif.jpg", to: name)
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", name], in: folder.url)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try folder.names(in: "out") == [stem + ".display.jpg", stem + ".jpg", stem + ".thumb.jpg"])
            for copy in try folder.names(in: "out") {
                #expect(try JPEGFile(path: folder.path("out/" + copy)).isComplete)
            }
            #expect(folder.temporaryFiles().isEmpty)
        }
    }
}

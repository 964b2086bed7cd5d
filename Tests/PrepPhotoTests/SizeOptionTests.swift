import Foundation
import Testing

@Suite("prep-photo size, quality and copy options")
struct SizeOptionTests {
    /// A 1800x1200 photo with orientation 1, so that every copy's long edge is its width.
    static let photo = "orientation-landscape-1.jpg"

    /// Runs prep-photo on `photo` with `options` and returns its report, after checking it against the files.
    static func report(_ options: [String], in folder: TemporaryFolder, out: String = "out") throws -> PhotoReport {
        if !folder.exists(photo) { try folder.copy("corpus/\(photo)", to: photo) }
        let result = try PrepPhotoRunner.run(["--json", "--out", out] + options + [photo], in: folder.url)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try result.reports().first)
        try JSONReportTests.expectCopiesMatchFiles(report, in: folder.url.appendingPathComponent(out))
        return report
    }

    @Test("Without options the upload keeps 1800x1200 (under 2048), the display copy too, the thumbnail is 400 wide")
    func defaults() throws {
        try TemporaryFolder.with { folder in
            let report = try Self.report([], in: folder)
            #expect(report.upload.map { [$0.width, $0.height] } == [1800, 1200])
            #expect(report.display.map { [$0.width, $0.height] } == [1800, 1200])
            #expect(report.thumbnail?.width == 400)
        }
    }

    @Test("--max-edge, --display-edge and --thumb-edge set each copy's long edge")
    func edges() throws {
        try TemporaryFolder.with { folder in
            let report = try Self.report(
                ["--max-edge", "300", "--display-edge", "150", "--thumb-edge", "60"], in: folder)
            #expect(report.upload?.width == 300 && report.upload?.height == 200)
            #expect(report.display?.width == 150 && report.display?.height == 100)
            #expect(report.thumbnail?.width == 60 && report.thumbnail?.height == 40)
        }
    }

    @Test(
        "--no-display and --no-thumb leave out that copy's file and report it as null; the others are written",
        arguments: [("--no-display", ".display.jpg"), ("--no-thumb", ".thumb.jpg")])
    func leaveOut(option: String, suffix: String) throws {
        try TemporaryFolder.with { folder in
            let report = try Self.report(["--max-edge", "128", option], in: folder)
            #expect(report.copies.map(\.suffix) == [".jpg", ".display.jpg", ".thumb.jpg"].filter { $0 != suffix })
            let written = [".jpg", ".display.jpg", ".thumb.jpg"].filter { $0 != suffix }.map {
                "orientation-landscape-1" + $0
            }
            #expect(try folder.names(in: "out") == written.sorted())
        }
    }

    @Test("A higher --quality gives more bytes for every copy at the same size")
    func quality() throws {
        try TemporaryFolder.with { folder in
            let options = ["--max-edge", "256", "--thumb-edge", "128"]
            let low = try Self.report(options + ["--quality", "30"], in: folder, out: "low")
            let high = try Self.report(options + ["--quality", "95"], in: folder, out: "high")
            for (lowCopy, highCopy) in zip(low.copies.map(\.copy), high.copies.map(\.copy)) {
                #expect(lowCopy.width == highCopy.width && lowCopy.height == highCopy.height)
                #expect(highCopy.bytes > lowCopy.bytes, "\(highCopy.path): \(highCopy.bytes) vs \(lowCopy.bytes)")
            }
            #expect(low.copies.count == 3 && high.copies.count == 3)
        }
    }
}

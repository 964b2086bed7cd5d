import Foundation
import Testing

/// libheif is loaded at the first HEIF file, never at start: a process that meets only JPEGs
/// does not pay for mapping it and the codecs it needs (issue 19's one photo per process).
@Suite("prep-photo loads libheif only for a HEIF file")
struct LibheifLoadingTests {
    #if os(Linux)
    /// Runs `prep-photo -q --out O` on copies of `photos` through `/bin/sh`, with `environment`.
    static func prepare(
        _ photos: [String], arguments: [String] = ["-q"], environment: [String: String],
        setUp: (TemporaryFolder) throws -> Void = { _ in }
    ) throws -> PrepPhotoRunner.FinishedRun {
        try TemporaryFolder.with { folder in
            try setUp(folder)
            let names = photos.map { ($0 as NSString).lastPathComponent }
            for (photo, name) in zip(photos, names) { try folder.copy(photo, to: name) }
            let words = (arguments + ["--out", "O"] + names).map { "'\($0)'" }.joined(separator: " ")
            return try PrepPhotoRunner.runShell("prep-photo \(words)", in: folder.url, environment: environment)
        }
    }

    /// The lines of glibc's dynamic loader about libheif: with `LD_DEBUG=files` it reports each
    /// library it maps on standard error, and whether a library needed it at start or a `dlopen`
    /// loaded it.
    ///
    /// They go to files (`LD_DEBUG_OUTPUT`, one per process), since prep-photo points descriptor 2
    /// at /dev/null, away from what the C libraries print.
    static func libheifLines(preparing photos: [String]) throws -> (status: Int32, lines: [Substring]) {
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("ld-debug-\(UUID())")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let result = try prepare(
            photos, environment: ["LD_DEBUG": "files", "LD_DEBUG_OUTPUT": logs.appendingPathComponent("ld").path])
        let text = try FileManager.default.contentsOfDirectory(atPath: logs.path).map {
            try String(contentsOf: logs.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        return (result.status, text.split(separator: "\n").filter { $0.contains("libheif") })
    }

    @Test("a JPEG-only run never maps libheif; a HEIF file dlopens it, after the JPEG before it is prepared")
    func libheifIsLoadedAtTheFirstHEIFFile() throws {
        let jpegOnly = try Self.libheifLines(preparing: [
            "corpus/offset-plus0200-pixel8pro-8x8.jpg", "corpus/no-exif.jpg",
        ])
        #expect(jpegOnly.status == 0)
        #expect(jpegOnly.lines.isEmpty, "\(jpegOnly.lines)")

        // The same check sees libheif when it is there: mapped by dlopen, needed by nothing at start.
        let mixed = try Self.libheifLines(preparing: ["corpus/no-exif.jpg", "heic/display-p3-gps.heic"])
        #expect(mixed.status == 0)
        #expect(mixed.lines.contains { $0.contains("file=libheif.so.1") && $0.contains("dynamically loaded by") })
        #expect(!mixed.lines.contains { $0.contains("file=libheif") && $0.contains("needed by") })
    }

    @Test(
        "without a loadable libheif, each HEIF file fails naming itself, the package and the loader's reason; JPEGs are prepared"
    )
    func withoutLibheif() throws {
        // The loader searches LD_LIBRARY_PATH first, and there finds no library under either name.
        let result = try Self.prepare(
            ["corpus/no-exif.jpg", "heic/display-p3-gps.heic", "heic/gray.heic"], arguments: ["--json"],
            environment: ["LD_LIBRARY_PATH": "fake"],
            setUp: { folder in
                for name in ["libheif.so.1", "libheif.so"] {
                    try folder.write(Data("not a library".utf8), to: "fake/\(name)")
                }
            })
        #expect(result.status == 1)
        let reports = try result.jsonLines()
        try #require(reports.count == 3)
        #expect(reports[0]["ok"] as? Bool == true)
        for (report, name) in zip(reports.dropFirst(), ["display-p3-gps.heic", "gray.heic"]) {
            #expect(report["code"] as? String == "heif_unavailable")
            let error = try #require(report["error"] as? String)
            #expect(
                error.hasPrefix(
                    "'\(name)' is a HEIF file, and HEIF support needs libheif (Debian package libheif1), which could not be loaded: "
                ))
            #expect(error.contains("fake/libheif.so.1: file too short; "))
            #expect(error.contains("fake/libheif.so: file too short."))
        }
        #expect(result.errorLines.count == 2)
    }
    #endif
}

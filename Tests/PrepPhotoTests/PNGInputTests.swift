import Foundation
import Testing

/// prep-photo on PNGs: found in folders by their names (`.png`, `.apng`), read by their content,
/// reported in `--json` like any photo, composited on `--background`.
@Suite("prep-photo: PNG input")
struct PNGInputTests {
    @Test("a folder's .png and .apng files are photos; text named .png is refused by its content")
    func folderDiscovery() throws {
        try TemporaryFolder.with { folder in
            try folder.makeFolder("in")
            try folder.copy("formats/png/im-exif-after-idat-gps-offset-nokia.png", to: "in/a.png")
            try folder.copy("formats/png/png-apng-animated-iss634-pillow.apng", to: "in/b.apng")
            try folder.copy("decode/not-a-jpeg.txt", to: "in/c.png")
            let result = try PrepPhotoRunner.run(["--json", "--max-edge", "64", "--out", "out", "in"], in: folder.url)
            #expect(result.status == 1)
            let reports = try result.reports()
            #expect(reports.map(\.input) == ["in/a.png", "in/b.apng", "in/c.png"])
            #expect(reports.map(\.ok) == [true, true, false])
            #expect(reports.last?.code == "unrecognized_format")
            // The PNG's EXIF, read as a JPEG's is.
            #expect(reports.first?.capturedAt?.offset == "+03:00" && reports.first?.location != nil)
            #expect(reports[1].warnings.contains { $0.contains("animated PNG") })
            #expect(
                try folder.names(in: "out").sorted() == [
                    "a.display.jpg", "a.jpg", "a.thumb.jpg", "b.display.jpg", "b.jpg", "b.thumb.jpg",
                ])
        }
    }

    @Test("--background sets what transparent pixels show: the same PNG on black and on white differ")
    func background() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("formats/png/png-palette-trns-thumbor.png", to: "p.png")
            let white = try PrepPhotoRunner.run(["--out", "white", "p.png"], in: folder.url)
            let black = try PrepPhotoRunner.run(["--background", "000000", "--out", "black", "p.png"], in: folder.url)
            #expect(white.status == 0 && black.status == 0)
            let onWhite = try Data(contentsOf: folder.url.appendingPathComponent("white/p.jpg"))
            let onBlack = try Data(contentsOf: folder.url.appendingPathComponent("black/p.jpg"))
            // The same copy unless the option reaches the library (PNGSourceTests checks the pixels).
            #expect(onWhite != onBlack)
        }
    }

    @Test(
        "--background takes RRGGBB only: anything else is a usage error, exit 2",
        arguments: ["white", "FFF", "GGGGGG", "#12345", ""])
    func backgroundUsage(value: String) throws {
        try TemporaryFolder.with { folder in
            let result = try PrepPhotoRunner.run(["--background", value, "a.png"], in: folder.url)
            #expect(result.status == 2)
            #expect(
                result.standardError.contains("it must be six hexadecimal digits, RRGGBB"), "\(result.standardError)")
        }
    }
}

import Foundation
import Testing

@Suite("prep-photo --json")
struct JSONReportTests {
    @Test("Every line has exactly the issue's keys, for prepared and failed inputs, with null for what is absent")
    func keys() throws {
        try TemporaryFolder.with { folder in
            let inputs = [
                "offset-plus0200-gopro-6digit-subsec-mpf.jpg", "comment-gimp-nikon-d70-xmp-icc.jpg", "no-exif.jpg",
                "mpf-ultrahdr-gainmap-3840x2160.jpg", "not-a-jpeg.txt", "corrupt-header.jpg",
            ]
            for input in inputs {
                try folder.copy(input.hasSuffix(".txt") ? "decode/\(input)" : "corpus/\(input)", to: input)
            }
            let result = try PrepPhotoRunner.run(
                ["--json", "--max-edge", "64", "--out", "out"] + inputs, in: folder.url)
            #expect(result.status == 1)
            let lines = try result.jsonLines()
            try #require(lines.count == inputs.count)
            var nestedSeen: Set<String> = []
            for (input, line) in zip(inputs, lines) {
                #expect(Set(line.keys) == PhotoReport.Keys.line, "\(input)")
                for (key, keys) in PhotoReport.Keys.nested {
                    guard let object = line[key], !(object is NSNull) else { continue }
                    #expect(Set((object as? [String: Any] ?? [:]).keys) == keys, "\(input): \(key)")
                    nestedSeen.insert(key)
                }
                #expect(line["warnings"] is [Any], "\(input)")
            }
            #expect(nestedSeen == Set(PhotoReport.Keys.nested.keys), "some nested object was never checked")

            let reports = try result.reports()
            for report in reports.prefix(4) {
                #expect(report.ok && report.error == nil, "\(report.input)")
                #expect(
                    report.upload != nil && report.display != nil && report.thumbnail != nil && report.original != nil)
            }
            #expect(reports.map(\.code) == [nil, nil, nil, nil, "unrecognized_format", "corrupt"])
            #expect(reports.allSatisfy { !$0.skipped })
            for (report, line) in zip(reports, lines).suffix(2) {
                #expect(!report.ok)
                let error = try #require(report.error)
                #expect(error.contains(report.input), "the error does not name the file: \(error)")
                let others = PhotoReport.Keys.line.subtracting(["input", "ok", "skipped", "code", "error", "warnings"])
                for key in others { #expect(line[key] is NSNull, "\(report.input): \(key) is not null") }
                #expect(report.warnings.isEmpty)
            }
        }
    }

    @Test("An Ultra HDR upload's gain map is reported with its size and length; --no-gain-map leaves it out")
    func gainMap() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("crafted/ultrahdr-320x240-iso.jpg", to: "hdr.jpg")
            let result = try PrepPhotoRunner.run(
                ["--json", "--max-edge", "160", "--out", "out", "hdr.jpg"], in: folder.url)
            #expect(result.status == 0)
            let report = try #require(try result.reports().first)
            let gainMap = try #require(report.gainMap)
            #expect(gainMap.width == 40 && gainMap.height == 30 && gainMap.bytes > 0)
            let upload = try Data(contentsOf: folder.url.appendingPathComponent("out/hdr.jpg"))
            #expect(report.upload?.bytes == upload.count)
            #expect(upload.suffix(2) == Data([0xFF, 0xD9]) && upload.firstRange(of: Data("MPF\0".utf8)) != nil)

            let plain = try PrepPhotoRunner.run(
                ["--json", "--no-gain-map", "--max-edge", "160", "--out", "plain", "hdr.jpg"], in: folder.url)
            #expect(plain.status == 0)
            let plainReport = try #require(try plain.reports().first)
            #expect(plainReport.gainMap == nil && plainReport.warnings.isEmpty)
            let sdr = try Data(contentsOf: folder.url.appendingPathComponent("plain/hdr.jpg"))
            #expect(sdr.firstRange(of: Data("MPF\0".utf8)) == nil && sdr.count < upload.count - gainMap.bytes)
        }
    }

    @Test("A photo without EXIF or comment has null orientation, capturedAt, location and comment, not missing keys")
    func photoWithoutMetadata() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/no-exif.jpg", to: "no-exif.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", "no-exif.jpg"], in: folder.url)
            #expect(result.status == 0)
            let line = try #require(try result.jsonLines().first)
            for key in ["orientation", "capturedAt", "location", "comment", "error"] {
                #expect(line.keys.contains(key), "\(key) is missing")
                #expect(line[key] is NSNull, "\(key) is not null")
            }
            let report = try #require(try result.reports().first)
            #expect(report.original == PhotoReport.Size(width: 250, height: 188))
            #expect(report.warnings.isEmpty)
        }
    }

    /// Files whose capture time, if any, comes from DateTimeOriginal, so that it can be read off expected.json.
    static let exiftoolFiles = [
        "offset-plus0200-gopro-6digit-subsec-mpf.jpg",  // +02:00 recorded, six sub-second digits, N/W GPS
        "offset-minus0400-iphone14promax-p3-mpf.jpg",  // -04:00 recorded
        "gps-north-east-pixel-4048x3036-gps-offset-only.jpg",  // offset only from the GPS clock: inferred
        "gps-north-west-display-p3-nikon.jpg",  // no offset at all; altitude without a reference
        "gps-south-east-australia.jpg",  // south latitude; no date
        "comment-gimp-nikon-d70-xmp-icc.jpg",  // COM segment
        "orientation-landscape-6.jpg",  // orientation 6: the display copy turns upright
        "no-exif.jpg",
    ]

    @Test("The reported metadata and sizes agree with exiftool's reading of the file", arguments: exiftoolFiles)
    func agreesWithExiftool(file: String) throws {
        let expected = try Fixtures.expected(file)
        try TemporaryFolder.with { folder in
            try folder.copy("corpus/\(file)", to: file)
            let maxEdge = 128
            let result = try PrepPhotoRunner.run(
                ["--json", "--max-edge", "\(maxEdge)", "--out", "out", file], in: folder.url)
            #expect(result.status == 0)
            let report = try #require(try result.reports().first)

            #expect(report.original?.width == expected["width"] as? Int)
            #expect(report.original?.height == expected["height"] as? Int)
            #expect(report.orientation == expected["orientation"] as? Int)
            #expect(report.comment == expected["Comment"] as? String)

            if let dateTimeOriginal = expected["DateTimeOriginal"] as? String {
                let recordedOffset = expected["OffsetTimeOriginal"] as? String
                let inferredOffset = expected["inferred_offset_from_gps"] as? String
                let subSecond = (expected["SubSecTimeOriginal"] as? String).map { "." + $0 } ?? ""
                #expect(
                    report.capturedAt
                        == PhotoReport.CapturedAt(
                            local: Self.iso8601(exif: dateTimeOriginal) + subSecond,
                            offset: recordedOffset ?? inferredOffset,
                            inferred: recordedOffset == nil && inferredOffset != nil, source: "DateTimeOriginal"))
            } else {
                try #require(expected["CreateDate"] is NSNull && expected["ModifyDate"] is NSNull, "pick another file")
                #expect(report.capturedAt == nil)
            }

            if let latitude = expected["GPSLatitude"] as? Double, let longitude = expected["GPSLongitude"] as? Double {
                let location = try #require(report.location)
                #expect(abs(location.latitude - latitude) < 1e-6, "\(location.latitude) for \(latitude)")
                #expect(abs(location.longitude - longitude) < 1e-6, "\(location.longitude) for \(longitude)")
                #expect(location.latitude.sign == latitude.sign && location.longitude.sign == longitude.sign)
                if let altitude = expected["GPSAltitude"] as? Double {
                    #expect(
                        abs((location.altitude ?? .nan) - altitude) < 1e-6, "\(String(describing: location.altitude))")
                } else {
                    #expect(location.altitude == nil)
                }
            } else {
                #expect(report.location == nil)
            }

            try Self.expectCopiesMatchFiles(report, in: folder.url.appendingPathComponent("out"))
            // The upload keeps the stored orientation; the display copy and thumbnail are upright.
            let stored = try #require(report.original)
            let oriented = (
                try #require(expected["oriented_width"] as? Int), try #require(expected["oriented_height"] as? Int)
            )
            let upload = try #require(report.upload)
            #expect(max(upload.width, upload.height) == min(maxEdge, max(stored.width, stored.height)))
            #expect((upload.width > upload.height) == (stored.width > stored.height))
            for copy in [report.display, report.thumbnail].compactMap({ $0 }) {
                #expect((copy.width > copy.height) == (oriented.0 > oriented.1), "\(copy.path) is not upright")
            }
        }
    }

    @Test("A camera raw's line says whether its preview or its sensor data was prepared, with the raw's EXIF")
    func rawPixels() throws {
        try TemporaryFolder.with { folder in
            let inputs = ["dng-preview-2048.dng", "dng-cfa-bayer-480x360.dng", "raw-orf-olympus-made.orf"]
            for input in inputs { try folder.copy("formats/\(input)", to: input) }
            let result = try PrepPhotoRunner.run(["--json", "--out", "out"] + inputs, in: folder.url)
            #expect(result.status == 0, "\(result)")
            let reports = try result.reports()
            #expect(reports.map(\.rawPixels) == ["embedded_preview", "raw_data", "raw_data"])
            #expect(reports.map { $0.capturedAt?.offset } == ["+02:00", "+02:00", "-07:00"])
            #expect(reports.map(\.orientation) == [6, 6, 8])
        }
    }

    @Test("An offset worked out from the GPS clock is reported as inferred")
    func inferredOffset() throws {
        try TemporaryFolder.with { folder in
            let file = "gps-north-east-pixel-4048x3036-gps-offset-only.jpg"
            try folder.copy("corpus/\(file)", to: file)
            let result = try PrepPhotoRunner.run(["--json", "--max-edge", "64", "--out", "out", file], in: folder.url)
            let report = try #require(try result.reports().first)
            #expect(
                report.capturedAt
                    == PhotoReport.CapturedAt(
                        local: "2018-07-25T16:34:23.935476", offset: "+02:00", inferred: true,
                        source: "DateTimeOriginal"))
            let location = try #require(report.location)
            #expect(location.latitude > 50.29 && location.longitude > 14.82)
        }
    }

    @Test("A two-line Latin-1 comment comes through the JSON line intact, on one line")
    func multilineComment() throws {
        try TemporaryFolder.with { folder in
            try folder.copy("crafted/comment-latin1-nul.jpg", to: "comment.jpg")
            let result = try PrepPhotoRunner.run(["--json", "--out", "out", "comment.jpg"], in: folder.url)
            let reports = try result.reports()
            #expect(reports.count == 1)
            #expect(reports.first?.comment == "Caf\u{E9} au lait\nsecond line")
        }
    }

    @Test("With --jobs 4, a dozen results come out in input order, failures included")
    func inputOrder() throws {
        try TemporaryFolder.with { folder in
            // The largest photo first, so that smaller ones after it finish before it does.
            let inputs =
                ["gps-north-east-pixel-4048x3036-gps-offset-only.jpg"]
                + (1...8).reversed().map { "orientation-landscape-\($0).jpg" }
                + ["no-exif.jpg", "not-a-jpeg.txt", "comment-gimp-nikon-d70-xmp-icc.jpg"]
            for input in inputs {
                try folder.copy(input.hasSuffix(".txt") ? "decode/\(input)" : "corpus/\(input)", to: "in/\(input)")
            }
            let paths = inputs.map { "in/\($0)" }
            let result = try PrepPhotoRunner.run(
                ["--json", "--jobs", "4", "--max-edge", "64", "--out", "out"] + paths, in: folder.url)
            #expect(result.status == 1)
            let reports = try result.reports()
            #expect(reports.map(\.input) == paths)
            #expect(reports.map(\.ok) == inputs.map { !$0.hasSuffix(".txt") })
        }
    }

    /// Each copy the report names is in `out`, is named after the input, and has the reported byte
    /// count and pixel size; it is a complete JPEG. Reported paths are written as the user wrote
    /// `--out`, so they are relative to the run's working folder, `out`'s parent here.
    static func expectCopiesMatchFiles(
        _ report: PhotoReport, in out: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let name = ((report.input as NSString).lastPathComponent as NSString).deletingPathExtension
        for (suffix, expected) in report.copies {
            var copy = expected
            copy.path =
                URL(fileURLWithPath: expected.path, relativeTo: out.deletingLastPathComponent()).standardizedFileURL
                .path
            #expect(
                copy.path == out.appendingPathComponent(name + suffix).standardizedFileURL.path,
                sourceLocation: sourceLocation)
            let file = try JPEGFile(path: copy.path)
            #expect(file.byteCount == copy.bytes, "\(copy.path)", sourceLocation: sourceLocation)
            #expect(
                file.size == PhotoReport.Size(width: copy.width, height: copy.height), "\(copy.path)",
                sourceLocation: sourceLocation)
            #expect(file.isComplete, "\(copy.path)", sourceLocation: sourceLocation)
        }
    }

    /// EXIF's `2024:04:30 18:36:42` as ISO 8601: `2024-04-30T18:36:42`.
    static func iso8601(exif: String) -> String {
        let parts = exif.split(separator: " ")
        return parts[0].replacingOccurrences(of: ":", with: "-") + "T" + parts[1]
    }
}

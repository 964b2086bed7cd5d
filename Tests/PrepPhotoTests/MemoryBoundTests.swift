import Foundation
import Testing

/// prep-photo's peak memory for one photo stays within the defaults' whatever the edges, as the
/// README states: no buffer grows with how much a copy is reduced.
@Suite("prep-photo's memory is bounded for every edge")
struct MemoryBoundTests {
    static let time = "/usr/bin/time"

    /// A 10000x10000 frame header (100 million pixels) and no image data: a 625-byte file that,
    /// with `--accept-incomplete`, libjpeg decodes as all grey. Made from
    /// `decode/ycc420-224x150.jpg`: its SOF0 size set to 10000x10000, everything after its scan
    /// header dropped, then EOI.
    static func header10000() throws -> Data {
        var bytes = [UInt8](try Data(contentsOf: Fixtures.url("decode/ycc420-224x150.jpg")))
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xC0 {
                bytes.replaceSubrange((offset + 5)..<(offset + 9), with: [0x27, 0x10, 0x27, 0x10])
            }
            if marker == 0xDA { return Data(bytes[..<(offset + 2 + length)] + [0xFF, 0xD9]) }
            offset += 2 + length
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// `prep-photo` on `input` with `options`, under `/usr/bin/time -v`: its peak resident set in MB.
    static func peakMegabytes(_ options: [String], input: String, in folder: TemporaryFolder) throws -> Double {
        let output = "out-\(UUID().uuidString)"
        let result = try PrepPhotoRunner.run(
            [time, "-v", PrepPhotoRunner.executable.path, "--accept-incomplete", "--out", output] + options + [input],
            in: folder.url, launch: .command)
        try #require(result.status == 0, "\(options): \(result.standardError)")
        let line = try #require(
            result.standardError.split(separator: "\n").first { $0.contains("Maximum resident set size (kbytes):") })
        let kilobytes = try #require(
            Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""))
        return kilobytes / 1024
    }

    /// The defaults' peak on the same photo, plus what one process's peak varies by from run to
    /// run (the allocator, the threads' stacks); measured 31 MB for the defaults, and 17-32 MB for
    /// every edge below (1.2 GB at --max-edge 1 and 3.2 GB at --thumb-edge 1 before the box stage).
    static let slackMegabytes = 8.0

    @Test(
        "a 10000x10000 photo at --max-edge, --display-edge and --thumb-edge 1, 2, 16 and 400 peaks no higher than with the defaults",
        arguments: [1, 2, 16, 400])
    func smallEdges(edge: Int) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.time), "\(Self.time) (Debian package time) is missing")
        try TemporaryFolder.with { folder in
            try folder.write(try Self.header10000(), to: "header.jpg")
            let defaults = try Self.peakMegabytes([], input: "header.jpg", in: folder)
            let all = try Self.peakMegabytes(
                ["--max-edge", "\(edge)", "--display-edge", "\(edge)", "--thumb-edge", "\(edge)"], input: "header.jpg",
                in: folder)
            let copies = try Self.peakMegabytes(
                ["--display-edge", "\(edge)", "--thumb-edge", "\(edge)"], input: "header.jpg", in: folder)
            #expect(all <= defaults + Self.slackMegabytes, "every edge \(edge): \(all) MB, the defaults \(defaults) MB")
            #expect(
                copies <= defaults + Self.slackMegabytes,
                "display and thumbnail \(edge): \(copies) MB, the defaults \(defaults) MB")
            // The README's bound for a photo at the pixel limit with the defaults.
            #expect(defaults <= 100, "the defaults: \(defaults) MB")
        }
    }
}

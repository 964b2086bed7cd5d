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
        try measure("Maximum resident set size (kbytes):", options, input: input, in: folder) / 1024
    }

    /// `prep-photo` on `input` with `options`, under `/usr/bin/time -v`: the figure of its report
    /// line that starts with `label`.
    static func measure(_ label: String, _ options: [String], input: String, in folder: TemporaryFolder) throws
        -> Double
    {
        let output = "out-\(UUID().uuidString)"
        let result = try PrepPhotoRunner.run(
            [time, "-v", PrepPhotoRunner.executable.path, "--accept-incomplete", "--out", output] + options + [input],
            in: folder.url, launch: .command)
        try #require(result.status == 0, "\(options): \(result.standardError)")
        let line = try #require(result.standardError.split(separator: "\n").first { $0.contains(label) })
        return try #require(Double(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""))
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

    /// A 16320x12240 baseline JPEG (the size of a 200 MP phone sensor's photo) of mid grey, made
    /// here: under Huffman tables of one 1-bit code each, every block is a zero DC difference and
    /// an end of block, one bit each, so its 780,300 MCUs of four luma and two chroma blocks are
    /// 1.2 MB of zero bytes, which libjpeg decodes strip by strip like any photo's data.
    static func gray200MegapixelJPEG() -> Data {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        let (width, height) = (16320, 12240)
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))  // table 0: every step 1
        bytes += segment(
            0xC0,
            [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
                + [1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0])  // Y 2x2, Cb and Cr 1x1 (4:2:0)
        // DC table 0 and AC table 0, each one code of one bit: symbol 0 (DC: no difference; AC:
        // end of block).
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0]
        bytes += segment(0xC4, [0x00] + oneCode + [0x10] + oneCode)
        bytes += segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0])
        let mcus = (width / 16) * ((height + 15) / 16)
        bytes += [UInt8](repeating: 0, count: mcus * 6 * 2 / 8)  // six blocks of two bits an MCU
        return Data(bytes + [0xFF, 0xD9])
    }

    /// What a 200 MP photo may take: the bound, a sixth of its pixels' 1.2 GB as RGB.
    static let bound200Megapixels = 400.0

    @Test("a 200 MP JPEG and a 200 MP HEIC each prepare within 400 MB, decoded a strip or a row of tiles at a time")
    func twoHundredMegapixels() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.time), "\(Self.time) (Debian package time) is missing")
        try TemporaryFolder.with { folder in
            try folder.write(Self.gray200MegapixelJPEG(), to: "grey.jpg")
            let limit = ["--max-pixels", "200000000"]
            let jpeg = try Self.peakMegabytes(limit, input: "grey.jpg", in: folder)
            let heic = try Self.peakMegabytes(
                limit, input: Fixtures.url("heic/large/mosaic-16320x12240.heic").path, in: folder)
            #expect(jpeg <= Self.bound200Megapixels, "the 200 MP JPEG: \(jpeg) MB")
            #expect(heic <= Self.bound200Megapixels, "the 200 MP HEIC: \(heic) MB")
        }
    }

    /// The 200 MP HEIC's 768 tiles each get a fresh libde265 decoder, which allocates and frees
    /// the same blocks. prep-photo keeps freed blocks for the next (`keepFreedMemoryForReuse`):
    /// 3,300 page faults here (Debian 12, transparent huge pages on), where glibc's defaults gave
    /// each tile's blocks back to the kernel and took fresh zeroed pages, 153,000 faults and 0.9 s
    /// of system time. The bound leaves room for a kernel without huge pages.
    @Test(
        "prep-photo reuses the memory each HEIC tile's decoder frees: the 200 MP HEIC's 768 tiles in under 30,000 page faults"
    )
    func freedMemoryIsReused() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.time), "\(Self.time) (Debian package time) is missing")
        try TemporaryFolder.with { folder in
            let faults = try Self.measure(
                "Minor (reclaiming a frame) page faults:", ["--max-pixels", "200000000"],
                input: Fixtures.url("heic/large/mosaic-16320x12240.heic").path, in: folder)
            #expect(faults < 30_000, "\(faults) page faults")
        }
    }
}

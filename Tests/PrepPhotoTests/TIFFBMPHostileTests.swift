import Foundation
import Testing

@testable import ImagePrep

/// The hostile TIFFs and BMPs that libtiff's CVEs and BMP readers' bugs were made of, each named
/// and made from a real fixture by the fuzz test's mutators, prepared by `prep-photo` under a
/// 1 GB address-space cap (glibc's per-thread arenas reserve address space far beyond what is
/// used; each of these peaks under 30 MB resident) and alone: each is prepared or refused in our words, none crashes,
/// hangs or prints a C library's line.
@Suite("Hostile TIFF and BMP files")
struct TIFFBMPHostileTests {
    static let strips = "formats/tiff-lzw-rgb-galaxy-twelvemonkeys.tif"
    static let deflate = "formats/tiff-16bit-rgb-deflate-tiled-pillow.tiff"
    static let rle = "formats/bmp-rle8-imagemagick-twelvemonkeys.bmp"

    /// Each hostile file: its name, its seed and how it is made from it.
    static let cases: [(name: String, seed: String, make: @Sendable ([UInt8]) -> [UInt8])] = [
        (
            "ifd0-loop.tif", strips,
            {
                edit($0, "IFD0 linking to itself") { layout, _ in
                    [(layout.nextLink, layout.encode(layout.ifd0, size: 4))]
                }
            }
        ),
        ("million-pages.tif", strips, { pages($0, 1_000_000) }),
        (
            "strip-offsets-past-end.tif", strips,
            { edit($0) { layout, bytes in layout.fill(layout.entry(273)!, with: bytes.count + 1) } }
        ),
        (
            "strip-counts-huge.tif", strips,
            { edit($0) { layout, _ in layout.fill(layout.entry(279)!, with: 0xFFFF_FFFF) } }
        ),
        ("width-huge.tif", strips, { edit($0) { layout, _ in layout.fill(layout.entry(256)!, with: 0xFFFF_FFFF) } }),
        (
            "rows-per-strip-huge.tif", strips,
            { edit($0) { layout, _ in layout.fill(layout.entry(278)!, with: 0x7FFF_FFFF) } }
        ),
        ("endless-deflate.tiff", deflate, { endlessDeflate($0) }),
        (
            "tile-side-huge.tiff", deflate,
            { edit($0) { layout, _ in layout.fill(layout.entry(322)!, with: 0x7FFF_0000) } }
        ),
        (
            "entry-count-65535.tif", strips,
            { edit($0) { layout, _ in [(layout.ifd0, layout.encode(0xFFFF, size: 2))] } }
        ),
        (
            "row-100-million-wide.tif", strips,
            {
                // ImageWidth as a LONG (a SHORT cannot say 100 million), ImageLength 1.
                edit($0) { layout, _ in
                    let width = layout.entry(256)!
                    return [
                        (width.offset + 2, layout.encode(4, size: 2)),
                        (width.offset + 8, layout.encode(100_000_000, size: 4)),
                    ]
                        + layout.fill(layout.entry(257)!, with: 1)
                }
            }
        ),
        ("bmp-row-100-million-wide.bmp", rle, { field(field($0, 18, 100_000_000), 22, 1) }),
        ("rle-delta-far.bmp", rle, { plant($0, [0, 2, 255, 255, 0, 2, 255, 255]) }),
        (
            "rle-run-past-row.bmp", rle,
            { plant($0, [255, 7, 255, 7, 255, 7, 0, 255] + [UInt8](repeating: 1, count: 8)) }
        ),
        ("bmp-height-huge.bmp", rle, { field($0, 22, 0x7FFF_FFFF) }),
        ("bmp-palette-count-huge.bmp", rle, { field($0, 46, 0xFFFF_FFFF) }),
        ("bmp-header-size-lies.bmp", rle, { field($0, 14, 124) }),
    ]

    @Test("each is prepared or refused, under a memory cap, in a batch as alone")
    func hostileFiles() throws {
        try TemporaryFolder.with { folder in
            try folder.makeFolder("in")
            var alone: [String: Result<PreparedPhoto, ImagePrepError>] = [:]
            for item in Self.cases {
                let bytes = Data(item.make([UInt8](try Data(contentsOf: Fixtures.url(item.seed)))))
                try bytes.write(to: folder.url.appendingPathComponent("in/" + item.name))
                if let keep = ProcessInfo.processInfo.environment["KEEP_HOSTILE"] {
                    try bytes.write(to: URL(fileURLWithPath: keep).appendingPathComponent(item.name))
                }
                alone[item.name] = Result { () throws(ImagePrepError) in
                    try PhotoPreparer().prepareBlocking(bytes, name: item.name)
                }
            }
            let result = try PrepPhotoRunner.run(
                ["--json", "--jobs", "1", "--out", "out", "in"], in: folder.url, launch: .memoryLimit(1 << 30),
                timeLimit: .seconds(120))
            try #require(!result.timedOut && (result.status == 0 || result.status == 1), "prep-photo: \(result)")
            for line in result.standardError.split(separator: "\n")
            where !["prep-photo: ", "Prepared ", "Left out: "].contains(where: line.hasPrefix) {
                Issue.record("a line on stderr that is not prep-photo's: \(line)")
            }
            let reports = try result.reports()
            #expect(reports.count == Self.cases.count)
            for report in reports {
                let name = (report.input as NSString).lastPathComponent
                switch alone[name] {
                case .failure(let error)?:
                    #expect(
                        !report.ok
                            && report.error?.hasSuffix(error.description.components(separatedBy: "' ").last!) == true,
                        "\(name): \(report.error ?? "") / \(error)")
                case .success?:
                    #expect(report.ok, "\(name): \(report.error ?? "")")
                case nil:
                    Issue.record("\(name): not made")
                }
            }
            // The ones that must be refused are; a far delta or a run past its row only loses pixels,
            // and libtiff inflates a Deflate stream that never ends only to its tile's size.
            for name in [
                "strip-offsets-past-end.tif", "bmp-height-huge.bmp", "row-100-million-wide.tif",
                "bmp-row-100-million-wide.bmp",
            ] {
                #expect(throws: (any Error).self, "\(name)") { try alone[name]!.get() }
            }
            // A width that no longer matches the strips' data decodes as damage: prepared, as
            // a damaged JPEG is, with a warning that says which rows are made up.
            let wide = try alone["width-huge.tif"]!.get()
            #expect(wide.warnings.contains { $0.kind == .incompleteImageData }, "\(wide.warnings)")
            #expect(try alone["endless-deflate.tiff"]!.get().metadata.originalSize == PixelSize(width: 100, height: 40))
            let pages = try alone["million-pages.tif"]!.get()
            #expect(pages.warnings.map(\.message) == ["the file holds more than one page; only the first is prepared."])
        }
    }

    static func edit(
        _ bytes: [UInt8], _ what: String = "", _ writes: (TIFFLayout, [UInt8]) -> [(offset: Int, bytes: [UInt8])]
    ) -> [UInt8] {
        TIFFMutation.edit(what: what, writes: writes(TIFFLayout(bytes), bytes), appended: []).apply(to: bytes)
    }

    static func pages(_ bytes: [UInt8], _ count: Int) -> [UInt8] {
        let layout = TIFFLayout(bytes)
        var chain = [UInt8]()
        for page in 0..<count {
            chain += layout.encode(0, size: 2)
            chain += layout.encode(page == count - 1 ? 0 : bytes.count + (page + 1) * 6, size: 4)
        }
        return TIFFMutation.edit(
            what: "pages", writes: [(layout.nextLink, layout.encode(bytes.count, size: 4))], appended: chain
        ).apply(to: bytes)
    }

    static func endlessDeflate(_ bytes: [UInt8]) -> [UInt8] {
        let layout = TIFFLayout(bytes)
        let bomb = TIFFMutation.endlessDeflate(kilobytes: 64)
        let writes =
            layout.fill(layout.entry(259)!, with: 8) + layout.fill(layout.entry(324)!, with: bytes.count)
            + layout.fill(layout.entry(325)!, with: bomb.count)
        return TIFFMutation.edit(what: "bomb", writes: writes, appended: bomb).apply(to: bytes)
    }

    static func plant(_ bytes: [UInt8], _ escapes: [UInt8]) -> [UInt8] {
        let pixels = Int(bytes[10]) | Int(bytes[11]) << 8
        return BMPMutation.runs(at: pixels + 40, bytes: escapes).apply(to: bytes)
    }

    static func field(_ bytes: [UInt8], _ offset: Int, _ value: UInt32) -> [UInt8] {
        BMPMutation.field(name: "", offset: offset, bytes: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
            .apply(to: bytes)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Each kind of bad HEIF file gets its own error, before libheif decodes anything where that is
/// what keeps it safe: libheif 1.15 believes a grid's declared size and an HEVC stream's own
/// size over `ispe` (`heif-convert` took 4.7 GB and crashed on one), and crashes on an image
/// derived from itself.
@Suite("Bad HEIF files are refused with typed errors")
struct HEIFBadInputTests {
    static func refusal(
        _ path: String, configuration: PhotoPreparer.Configuration = .init(),
        workspace: PreparationWorkspace = PreparationWorkspace()
    ) throws -> ImagePrepError {
        try BadInputTests.refusal(path, configuration: configuration, workspace: workspace)
    }

    /// Whether no plane of the workspace was ever sized: refused before any decode.
    static func nothingAllocated(_ workspace: PreparationWorkspace) -> Bool {
        workspace.inspectKeptBuffers { buffers in
            buffers.images.allSatisfy { $0.size == PixelSize(width: 0, height: 0) }
        } == true
    }

    @Test("a file that names no primary image is .heifWithoutImage")
    func noPrimaryItem() throws {
        #expect(
            try Self.refusal("heic/bad-no-primary-item.heic") == .heifWithoutImage(file: "bad-no-primary-item.heic"))
    }

    @Test(
        "a grid over the pixel limit is .tooManyPixels before any decode: by its ispe, by its grid data behind a small ispe, by its HEVC stream's own size behind a small ispe",
        arguments: [
            ("heic/bad-grid-40000x40000.heic", PixelSize(width: 40000, height: 40000)),
            ("heic/bad-grid-30000x30000-behind-small-ispe.heic", PixelSize(width: 30000, height: 30000)),
            ("heic/bad-sps-30000x30000-behind-small-ispe.heic", PixelSize(width: 30000, height: 30000)),
        ])
    func overThePixelLimit(path: String, size: PixelSize) throws {
        let workspace = PreparationWorkspace()
        let error = try Self.refusal(path, workspace: workspace)
        #expect(error == .tooManyPixels(file: Fixtures.HEIF.name(path), size: size, limit: 210_000_000))
        #expect(Self.nothingAllocated(workspace))
    }

    @Test("maxPixels holds for HEIF as for JPEG: one pixel under the image is refused, exactly its pixels prepare")
    func configuredPixelLimit() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxPixels = 1000 * 750 - 1
        #expect(
            try Self.refusal("heic/iphone-like-grid-p3-rotated.heic", configuration: configuration)
                == .tooManyPixels(
                    file: "iphone-like-grid-p3-rotated.heic", size: PixelSize(width: 1000, height: 750),
                    limit: 1000 * 750 - 1))
        configuration.maxPixels = 1000 * 750
        #expect(
            try Fixtures.prepared("heic/iphone-like-grid-p3-rotated.heic", configuration: configuration).upload.size
                .height == 1000)
    }

    /// The iPhone-like grid with its tiles' `ispe` (one property, which all twelve share) set
    /// to `width` by 256.
    static func gridWithTileWidth(_ width: UInt16) throws -> Data {
        var bytes = [UInt8](try Fixtures.data("heic/iphone-like-grid-p3-rotated.heic"))
        var patched = 0
        for offset in 0..<(bytes.count - 16) where bytes[offset..<(offset + 4)].elementsEqual("ispe".utf8) {
            // After the type, the version and flags: width then height, 32 bits each.
            let field = offset + 8
            guard bytes[field..<(field + 8)].elementsEqual([0, 0, 1, 0, 0, 0, 1, 0]) else { continue }
            bytes[field + 2] = UInt8(width >> 8)
            bytes[field + 3] = UInt8(width & 0xFF)
            patched += 1
        }
        #expect(patched == 1)
        return Data(bytes)
    }

    @Test(
        "a grid whose tiles leave part of it uncovered is .corruptHEIF before libheif decodes it: tiles too narrow for the grid, or wider than their coded pictures",
        arguments: [0, 128, 512])
    func tilesDoNotCover(width: UInt16) throws {
        // libheif 1.15 leaves the canvas it allocates uninitialised where no tile lands.
        let workspace = PreparationWorkspace()
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(Self.gridWithTileWidth(width), name: "grid.heic", workspace: workspace)
        }
        #expect(error == .corruptHEIF(file: "grid.heic", detail: "its grid's tiles do not cover its image"))
        #expect(Self.nothingAllocated(workspace))
        // The tiles' own size prepares.
        #expect(
            try PhotoPreparer().prepareBlocking(Self.gridWithTileWidth(256), name: "grid.heic").upload.size.height
                == 1000)
    }

    @Test("an image derived from itself is .corruptHEIF, and libheif never sees it")
    func identityLoop() throws {
        let error = try Self.refusal("heic/bad-identity-loop.heic")
        guard case .corruptHEIF(_, let detail) = error else {
            Issue.record("expected .corruptHEIF, got \(error)")
            return
        }
        #expect(detail.contains("loop"))
    }

    @Test("an image coded as VVC is .unsupportedHEIF, naming the codec")
    func unsupportedCodec() throws {
        #expect(
            try Self.refusal("heic/bad-vvc-codec.heic")
                == .unsupportedHEIF(file: "bad-vvc-codec.heic", reason: "its image is coded as VVC (H.266)"))
    }

    @Test("AVIF where libheif has no AV1 decoder is .unsupportedHEIF before decoding; HEVC alone passes")
    func noAV1Decoder() {
        let noAV1 = { (codec: HEIFContainer.Codec) in codec != .av1 }
        #expect(
            throws: ImagePrepError.unsupportedHEIF(
                file: "x.avif", reason: "its image is coded as AV1, and this libheif has no AV1 decoder")
        ) {
            try HEIFDecoder.checkDecoders(for: [.av1], file: "x.avif", hasDecoder: noAV1)
        }
        #expect(throws: Never.self) { try HEIFDecoder.checkDecoders(for: [.hevc], file: "x.heic", hasDecoder: noAV1) }
        // This machine's libheif (Debian 12) has both.
        #expect(throws: Never.self) {
            try HEIFDecoder.checkDecoders(
                for: [.hevc, .av1], file: "x", hasDecoder: try Libheif.shared(for: "x").hasDecoder)
        }
    }

    @Test(
        "a HEIF file cut short anywhere is refused, even when incomplete data is accepted; never prepared, never a crash"
    )
    func truncated() throws {
        let data = try Fixtures.data("heic/iphone-like-grid-p3-rotated.heic")
        let cuts = [12, 36, 100, 400, 1000, 2000, data.count / 4, data.count / 2, data.count - 1000, data.count - 1]
        for cut in cuts {
            for configuration in [PhotoPreparer.Configuration(), BadInputTests.acceptingIncompleteData] {
                let error = try #require(throws: ImagePrepError.self, "cut at \(cut)") {
                    try PhotoPreparer(configuration: configuration).prepareBlocking(data.prefix(cut), name: "cut")
                }
                switch error {
                case .incompleteImageData, .corruptHEIF: break
                default: Issue.record("cut at \(cut): \(error)")
                }
                #expect(error.file == "cut")
            }
        }
        // A file type box and an empty meta box, which holds no image.
        #expect(try Self.refusal("decode/not-a-jpeg-heic.heic") == .heifWithoutImage(file: "not-a-jpeg-heic.heic"))
    }

    @Test(
        "a grid whose data declares more than its one 256x256 tile covers, within the limit, is .corruptHEIF before any decode"
    )
    func gridLargerThanItsTiles() throws {
        let workspace = PreparationWorkspace()
        let error = try Self.refusal("heic/bad-grid-512x512-behind-256-ispe.heic", workspace: workspace)
        #expect(
            error
                == .corruptHEIF(
                    file: "bad-grid-512x512-behind-256-ispe.heic", detail: "its grid's tiles do not cover its image"))
        #expect(Self.nothingAllocated(workspace))
    }

    @Test("ISO media that is not HEIF (an MP4) is .unrecognizedFormat, saying what it looks like")
    func otherISOMedia() throws {
        var mp4 = Data([0, 0, 0, 24] + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
        mp4.append(contentsOf: [0, 0, 0, 8] + Array("free".utf8))
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(mp4, name: "clip.mp4")
        }
        #expect(error == .unrecognizedFormat(file: "clip.mp4", detected: "an ISO media file ('isom')"))
        #expect(
            error.description
                == "'clip.mp4' is in no image format ImagePrep prepares: it looks like an ISO media file ('isom').")
    }

    @Test("a HEIF brand among the compatible ones is enough: a file whose major brand is unknown is still read as HEIF")
    func compatibleBrand() throws {
        var data = try Fixtures.data("heic/no-exif.heic")
        data.replaceSubrange(8..<12, with: Array("xxxx".utf8))
        #expect(
            try PhotoPreparer().prepareBlocking(data, name: "brand").upload.size == PixelSize(width: 250, height: 188))
    }
}

extension WorkspaceBuffers {
    /// Every image a photo's preparation may size, for tests of what was (never) allocated.
    var images: [PlanarImage] { [decoded, upload] + lanes.flatMap { [$0.resized, $0.oriented] } }
}

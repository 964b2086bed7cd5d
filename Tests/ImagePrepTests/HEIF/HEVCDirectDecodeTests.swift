import Foundation
import TestSupport
import Testing

@testable import ImagePrep

/// The HEVC tiles that ImagePrep decodes itself with libde265 (`directHEVCUpload`): their pixels
/// are libde265's own decode of each tile, placed on the canvas; what the direct decode does not
/// cover, and every tile it cannot decode, goes to libheif as before.
@Suite("HEIC decoded by libde265 directly")
struct HEVCDirectDecodeTests {
    /// libde265's own command (Debian's libde265-examples names it libde265-dec265).
    static let dec265 = ["/usr/bin/libde265-dec265", "/usr/bin/dec265", "/usr/local/bin/dec265"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The fixtures the direct decode covers: a grid as an iPhone writes it before iOS 18 (4x3
    /// tiles of 256, turned), one image, and the real iOS 18 and Samsung files (a grid of 9x5
    /// tiles of 640x896 for 5712x4284; 4000x1848).
    static let covered = [
        "heic/iphone-like-grid-p3-rotated.heic", "heic/display-p3-gps.heic", "heic/orientation-6.heic",
        "phones/iphone15plus-ios18.2-hdr-tmap.heic", "phones/galaxy-s25ultra-hdr-gainmap.heic",
    ]

    /// The primary's layout in `bytes`, and the direct decode at full size: its Y, Cb and Cr planes.
    static func directPlanes(_ bytes: UnsafeRawBufferPointer) throws -> (HEVCTileLayout, [[UInt8]]) {
        let container = try HEIFContainer(bytes)
        let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
        let run = HEIFSource(
            context: PreparationContext(
                configuration: .init(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false), file: "direct"))
        let upload = try #require(try run.directHEVCUpload(layout, uploadSize: layout.canvas, reduction: 1))
        #expect(upload.size == layout.canvas && upload.decodedSize == layout.canvas)
        let planes = (0..<3).map { index in
            let size = index == 0 ? layout.canvas : chromaSize(of: layout.canvas)
            let plane = upload.image.planes[index]
            return (0..<size.height).flatMap { y in Array(UnsafeBufferPointer(start: plane.row(y), count: size.width)) }
        }
        return (layout, planes)
    }

    static func chromaSize(of size: PixelSize) -> PixelSize {
        PixelSize(width: (size.width + 1) / 2, height: (size.height + 1) / 2)
    }

    /// libde265's command decoding every tile of `path` (`heifcraft.py annexb`), each frame
    /// placed at its tile's place and cut to the canvas: Y, Cb and Cr.
    static func dec265Planes(of path: String, layout: HEVCTileLayout, in folder: URL) throws -> [[UInt8]] {
        let dec265 = try #require(dec265, "libde265's dec265 (apt-get install libde265-examples) decodes the reference")
        let stream = folder.appendingPathComponent("tiles.hevc").path
        let frames = folder.appendingPathComponent("tiles.yuv").path
        let (made, log) = try runToEnd(
            "/usr/bin/env",
            ["python3", "-B", Fixtures.url("heic/heifcraft.py").path, "annexb", Fixtures.url(path).path, stream])
        try #require(made == 0, "\(log)")
        let (decoded, output) = try runToEnd(dec265, ["-q", "-t", "0", "-o", frames, stream])
        try #require(decoded == 0, "\(output)")
        let yuv = [UInt8](try Data(contentsOf: URL(fileURLWithPath: frames)))
        let tile = layout.tileSize
        let tileChroma = chromaSize(of: tile)
        let frameBytes = tile.pixelCount + 2 * tileChroma.pixelCount
        try #require(yuv.count == frameBytes * layout.tiles.count, "one frame per tile")
        return (0..<3).map { index in
            let size = index == 0 ? layout.canvas : chromaSize(of: layout.canvas)
            let tileSize = index == 0 ? tile : tileChroma
            let planeStart = index == 0 ? 0 : tile.pixelCount + (index - 1) * tileChroma.pixelCount
            var plane = [UInt8](repeating: 0, count: size.pixelCount)
            for y in 0..<size.height {
                for x in 0..<size.width {
                    let frame = (y / tileSize.height) * layout.columns + x / tileSize.width
                    let offset = (y % tileSize.height) * tileSize.width + x % tileSize.width
                    plane[y * size.width + x] = yuv[frame * frameBytes + planeStart + offset]
                }
            }
            return plane
        }
    }

    @Test("every sample is libde265's own decode of its tile, placed on the canvas", arguments: covered)
    func samplesAreLibde265s(path: String) async throws {
        let data = try Fixtures.data(path)
        try await withTemporaryFolder(label: "direct-hevc") { folder in
            try data.withUnsafeBytes { bytes in
                let (layout, planes) = try Self.directPlanes(bytes)
                let reference = try Self.dec265Planes(of: path, layout: layout, in: folder)
                for (index, (ours, theirs)) in zip(planes, reference).enumerated() {
                    let differing = zip(ours, theirs).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(path), plane \(index): \(differing) samples differ")
                }
            }
        }
    }

    @Test("a photo the direct decode covers is decoded by it, and matches heif-convert's decode", arguments: covered)
    func coveredPhotos(path: String) throws {
        let workspace = PreparationWorkspace()
        for splits in [false, true] {
            var configuration = PhotoPreparer.Configuration()
            configuration.splitsWorkAcrossCores = splits
            configuration.carriesGainMap = false
            let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
                Fixtures.data(path), name: "photo.heic", workspace: workspace)
            #expect(workspace.lastDecode.isStripWise, "\(path): decoded directly")
            #expect(photo.upload.size.longEdge == min(2048, photo.metadata.originalSize.longEdge))
        }
    }

    @Test(
        "what the direct decode does not cover goes to libheif: gray, a gray grid; AVIF to dav1d",
        arguments: [
            "heic/gray.heic", "heic/monochrome/gray-grid.heic",
            "heic/av1-orientation-6.avif",
        ])
    func libheifDecodesTheRest(path: String) throws {
        let workspace = PreparationWorkspace()
        _ = try PhotoPreparer().prepareBlocking(Fixtures.data(path), name: "photo.heic", workspace: workspace)
        // A single AV1 image is decoded by dav1d directly (`AV1DirectDecodeTests`), row by row.
        #expect(workspace.lastDecode.isStripWise == path.hasSuffix(".avif"), "\(path): through libheif")
        let data = try Fixtures.data(path)
        try data.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            #expect(container.hevcTileLayout(plan: try container.decodePlan()) == nil)
        }
    }

    @Test("libde265 is loaded by the names it goes by, and a library without its functions is refused")
    func loading() {
        #expect(Libde265.shared != nil)
        #expect(Libde265.loadFailure(name: "libde265.so.0") == nil)
        #expect(Libde265.loadFailure(name: "libm.so.6") == "libm.so.6 has no de265_init (libde265 1.0.7 has it)")
    }

    /// `heic/iphone-like-grid-p3-rotated.heic` with the data of its fifth tile overwritten by
    /// `fill` from `offset` bytes in.
    static func damagedGrid(from offset: Int, with fill: [UInt8]) throws -> Data {
        var bytes = [UInt8](try Fixtures.data("heic/iphone-like-grid-p3-rotated.heic"))
        let tileData = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            return try #require(layout.tiles[4].data.first)
        }
        let start = tileData.lowerBound + offset
        bytes.replaceSubrange(start..<min(start + fill.count, tileData.upperBound), with: fill)
        return Data(bytes)
    }

    @Test("a tile whose NAL length runs past its data is refused, in libheif's words")
    func overlongNALLength() throws {
        let damaged = try Self.damagedGrid(from: 0, with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(
            throws: ImagePrepError.incompleteImageData(
                file: "photo.heic", detail: "the file ends before the data it points to")
        ) {
            try PhotoPreparer().prepareBlocking(damaged, name: "photo.heic")
        }
    }

    /// The fifth tile with 60 % of its slice zeroed, from a fifth of the way in: libde265 gives a
    /// picture (grey where it could not decode) and says it met damage.
    static func damagedSlice() throws -> Data {
        let count = try [UInt8](Fixtures.data("heic/iphone-like-grid-p3-rotated.heic")).withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            return try #require(layout.tiles[4].data.first).count
        }
        return try damagedGrid(from: count / 5, with: [UInt8](repeating: 0, count: count * 6 / 10))
    }

    @Test("a damaged slice is prepared with a warning as a damaged JPEG is, or refused without acceptsIncompleteData")
    func damagedSliceIsNeverSilent() throws {
        try Self.expectNeverSilent(damaged: Self.damagedSlice())
        // The file intact: no warning.
        let intact = try PhotoPreparer().prepareBlocking(
            Fixtures.data("heic/iphone-like-grid-p3-rotated.heic"), name: "photo.heic")
        #expect(!intact.warnings.contains { $0.kind == .incompleteImageData })
    }

    /// `damaged`, decoded directly, is prepared with a warning of incomplete data by default and
    /// refused as incomplete without `acceptsIncompleteData`.
    static func expectNeverSilent(damaged: Data) throws {
        var refusing = PhotoPreparer()
        refusing.configuration.acceptsIncompleteData = false
        #expect {
            try refusing.prepareBlocking(damaged, name: "photo.heic")
        } throws: { error in
            guard case .incompleteImageData(let file, _)? = error as? ImagePrepError else { return false }
            return file == "photo.heic"
        }
        let workspace = PreparationWorkspace()
        let photo = try PhotoPreparer().prepareBlocking(damaged, name: "photo.heic", workspace: workspace)
        #expect(workspace.lastDecode.isStripWise, "decoded directly")
        #expect(photo.warnings.contains { $0.kind == .incompleteImageData }, "\(photo.warnings)")
    }

    @Test("a tile that gives no picture is refused, in libheif's words")
    func tileWithoutPicture() throws {
        // Its first NAL unit, the slice, becomes zeros: no picture comes out of the tile.
        let damaged = try Self.damagedGrid(from: 4, with: [UInt8](repeating: 0, count: 64))
        #expect(throws: ImagePrepError.corruptHEIF(file: "photo.heic", detail: "the image data does not decode")) {
            try PhotoPreparer().prepareBlocking(damaged, name: "photo.heic")
        }
    }
}

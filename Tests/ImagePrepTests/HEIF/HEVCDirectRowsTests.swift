import Foundation
import TestSupport
import Testing

@testable import ImagePrep

/// A single coded HEVC image of more than 8 bits, or in a matrix or range other than JPEG's, is
/// decoded by libde265 directly and converted a row at a time while libde265 holds the picture
/// (`directHEVCRowUpload`): the upload libheif's planes give (`HEIFBandUpload`), within a level
/// of rounding, without libheif's copy of the picture and its RGB planes.
@Suite("HEIC: 10-bit and non-JPEG-colour single images decoded by libde265 directly")
struct HEVCDirectRowsTests {
    static let covered = [
        "heic/ten-bit/heic-10-bit.heic", "heic/ten-bit/heic-10-bit-bt709-limited.heic",
        "heic/ten-bit/heic-10-bit-4000x3000.heic", "heic/bt709-limited-range.heic",
    ]

    /// The Y, Cb and Cr planes of `image`, `size` of them.
    static func planes(of image: PlanarImage, size: PixelSize) -> [[UInt8]] {
        (0..<3).map { index in
            let plane = image.planes[index]
            let planeSize = index == 0 ? size : PixelSize(width: (size.width + 1) / 2, height: (size.height + 1) / 2)
            return (0..<planeSize.height).flatMap { y in
                Array(UnsafeBufferPointer(start: plane.row(y), count: planeSize.width))
            }
        }
    }

    static func context(_ file: String) -> PreparationContext {
        PreparationContext(
            configuration: .init(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false), file: file)
    }

    @Test("libde265's picture converted a row at a time is libheif's, within a level of rounding", arguments: covered)
    func sameAsLibheif(path: String) throws {
        let data = try Fixtures.data(path)
        try data.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let plan = try container.decodePlan()
            let layout = try #require(container.hevcTileLayout(plan: plan), "\(path): covered by the direct decode")
            #expect(layout.isSingleImage && layout.convertsRows)
            let size = layout.canvas
            let direct = try #require(
                try HEIFSource(context: Self.context(path)).directHEVCRowUpload(layout, uploadSize: size))
            let ours = Self.planes(of: direct, size: size)

            let libheif = try Libheif.shared(for: path)
            let heifContext = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: path)
            let handle = try heifContext.primaryImage(file: path)
            let banded = try #require(
                try HEIFBandUpload.decode(
                    handle, plan: plan, nclx: handle.nclx, context: Self.context(path), uploadSize: size))
            let theirs = Self.planes(of: banded.image, size: size)
            for (index, (mine, reference)) in zip(ours, theirs).enumerated() {
                let differences = zip(mine, reference).map { abs(Int($0) - Int($1)) }
                let mean = Double(differences.reduce(0, +)) / Double(differences.count)
                // libheif rounds to RGB at the samples' depth first: a level here and there (at
                // 8 bits, in BT.709 video range, 0.44 a sample on average).
                #expect(
                    differences.max()! <= 2 && mean < 0.5,
                    "\(path), plane \(index): max \(differences.max()!), mean \(mean)")
            }
        }
    }

    @Test("prepare decodes them directly, and an 8-bit image in JPEG's YCbCr keeps its planes", arguments: covered)
    func preparedDirectly(path: String) throws {
        let workspace = PreparationWorkspace()
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(path), name: "photo.heic", workspace: workspace)
        #expect(workspace.lastDecode.isStripWise, "\(path): decoded directly")
        #expect(!photo.warnings.contains { $0.kind == .incompleteImageData })
        try Fixtures.data("heic/no-exif.heic").withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            #expect(layout.isSingleImage && !layout.convertsRows)
        }
    }

    /// `heic/ten-bit/heic-10-bit.heic` with 60 % of its slice zeroed from a fifth of the way in.
    static func damagedTenBit() throws -> Data {
        var bytes = [UInt8](try Fixtures.data("heic/ten-bit/heic-10-bit.heic"))
        let data = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            return try #require(layout.tiles[0].data.first)
        }
        let start = data.lowerBound + data.count / 5
        bytes.replaceSubrange(start..<(start + data.count * 6 / 10), with: repeatElement(0, count: data.count * 6 / 10))
        return Data(bytes)
    }

    @Test("a damaged 10-bit slice is prepared with a warning, or refused without acceptsIncompleteData")
    func damagedSlice() throws {
        try HEVCDirectDecodeTests.expectNeverSilent(damaged: Self.damagedTenBit())
    }

    @Test(
        "a 50 MP 10-bit picture libde265 would hold within the budget but libheif not is refused when it goes to libheif after all"
    )
    func libheifHeldToTheBudget() throws {
        // Its NAL units retyped as unspecified (48), libde265 gives no picture, so the photo goes
        // to libheif, whose decode of 50 MP at 10 bits would hold more than the budget counted
        // for libde265.
        var bytes = [UInt8](try Fixtures.data("heic/large/heic-10-bit-8640x5760.heic"))
        let data = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            return try #require(layout.tiles[0].data.first)
        }
        var unit = data.lowerBound
        while unit + 5 <= data.upperBound {
            let length = bytes[unit..<(unit + 4)].reduce(0) { $0 << 8 | Int($1) }
            bytes[unit + 4] = bytes[unit + 4] & 0x81 | 48 << 1
            unit += 4 + length
        }
        let refusal = Result { () throws(ImagePrepError) in
            try PhotoPreparer().prepareBlocking(Data(bytes), name: "photo.heic")
        }
        guard case .failure(let error) = refusal, case .tooMuchMemory = error else {
            Issue.record("\(refusal)")
            return
        }
    }

    /// The fuzz's find (`PREP_FUZZ_SEED=hevc10-a`, #595 and #1280): an `iloc` whose item has no
    /// extent at all, its declared length 0, reached the direct decode, which read a first extent.
    @Test(
        "an image whose iloc gives it no extent is refused, not read past",
        arguments: ["heic/ten-bit/heic-10-bit-bt709-limited.heic", "heic/no-exif.heic"])
    func itemWithoutExtents(path: String) throws {
        var bytes = [UInt8](try Fixtures.data(path))
        let item = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            return try #require(container.primary)
        }
        // The iloc's entry for the primary: item_ID (2 bytes), then (version 0) data reference
        // index (2), base offset, and the extent count (2), set to 0.
        let iloc = try #require(bytes.firstRange(of: Array("iloc".utf8))).upperBound
        let version = bytes[iloc]
        try #require(version == 0, "heif-enc writes version 0")
        let sizes = (
            offset: Int(bytes[iloc + 4] >> 4), length: Int(bytes[iloc + 4] & 15), base: Int(bytes[iloc + 5] >> 4)
        )
        var entry = iloc + 8
        let count = Int(bytes[iloc + 6]) << 8 | Int(bytes[iloc + 7])
        for _ in 0..<count {
            let id = Int(bytes[entry]) << 8 | Int(bytes[entry + 1])
            let extentsAt = entry + 4 + sizes.base
            let extents = Int(bytes[extentsAt]) << 8 | Int(bytes[extentsAt + 1])
            if id == Int(item) {
                bytes[extentsAt] = 0
                bytes[extentsAt + 1] = 0
                break
            }
            entry = extentsAt + 2 + extents * (sizes.offset + sizes.length)
        }
        let damaged = Data(bytes)
        #expect(throws: ImagePrepError.self, "\(path)") {
            try PhotoPreparer().prepareBlocking(damaged, name: "photo.heic")
        }
    }
}

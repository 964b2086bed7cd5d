import Foundation
import Testing

@testable import ImagePrep

/// The direct HEVC decode reads the file's tiles with libde265 itself, out of reach of libheif's
/// own checks; so each refusal that libheif 1.15.1-1+deb12u2 added is checked before a byte is
/// decoded, and such a file goes to libheif, which refuses it in our words (deb12u2) or decodes
/// it as it did before the update (deb12u1, `LD_LIBRARY_PATH=/work/notes/libheif-deb12u1`).
@Suite("the direct HEVC decode keeps libheif's security limits")
struct HEVCDirectDecodeHostileTests {
    /// Whether the direct decode covers the primary image of `bytes`.
    static func isCovered(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        let container = try HEIFContainer(bytes)
        return container.hevcTileLayout(plan: try container.decodePlan()) != nil
    }

    static func isCovered(_ path: String) throws -> Bool {
        try Fixtures.data(path).withUnsafeBytes { try isCovered($0) }
    }

    /// What libheif 1.15.1-1+deb12u1, before the update, does with a file deb12u2 refuses.
    enum Older {
        case prepared
        case refused(ImagePrepError)
    }

    static let refusedByTheUpdate: [(path: String, limit: HEIFSecurityLimit, older: Older)] = [
        // ispe 250x188, SPS 40000x100: libde265 would allocate the SPS's picture.
        (
            "heic/hostile/sps-40000x100.heic", .codedSizeBeyondImage,
            .refused(.corruptHEIF(file: "photo.heic", detail: "the image data does not decode"))
        ),
        // hvcC 10 bits, stream 8; and the reverse, hvcC and pixi 8 bits, stream 10.
        ("heic/hostile/hvcc-says-10-bits.heic", .bitDepthChanged, .prepared),
        ("heic/hostile/stream-10-bits-hvcc-says-8.heic", .bitDepthChanged, .prepared),
        // One tile named 2000 times.
        ("heic/hostile/grid-2000-tiles.heic", .tooManyImagesComposed, .prepared),
        // 40000x100 in its ispe and its SPS alike: refused by both, at 32768 a side.
        (
            "heic/hostile/ispe-40000x100.heic", .imageTooLarge,
            .refused(.heifSecurityLimit(file: "photo.heic", limit: .imageTooLarge))
        ),
    ]

    @Test(
        "what libheif's security update refuses never reaches libde265 directly, and libheif refuses it in our words",
        arguments: refusedByTheUpdate.indices)
    func refusedBeforeTheDirectDecode(index: Int) throws {
        let (path, limit, older) = Self.refusedByTheUpdate[index]
        #expect(try !Self.isCovered(path), "\(path): left to libheif")
        let workspace = PreparationWorkspace()
        do {
            let photo = try PhotoPreparer().prepareBlocking(
                Fixtures.data(path), name: "photo.heic", workspace: workspace)
            guard case .prepared = older else {
                Issue.record("\(path): prepared, where no libheif decodes it")
                return
            }
            #expect(!workspace.lastDecode.isStripWise && photo.upload.size.longEdge > 0, "\(path)")
        } catch let error as ImagePrepError {
            let isOlderRefusal = if case .refused(let refusal) = older { error == refusal } else { false }
            #expect(
                error == .heifSecurityLimit(file: "photo.heic", limit: limit) || isOlderRefusal, "\(path): \(error)")
            #expect(error.code == limit.code || isOlderRefusal)
        }
    }

    @Test("a grid of 1998 tiles, the most libheif's update composes, is still decoded directly")
    func mostTilesLibheifComposes() throws {
        let path = "heic/hostile/grid-1998-tiles.heic"
        #expect(try Self.isCovered(path))
        let workspace = PreparationWorkspace()
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(path), name: "photo.heic", workspace: workspace)
        #expect(workspace.lastDecode.isStripWise)
        #expect(photo.metadata.originalSize == PixelSize(width: 3456, height: 2368))
    }

    /// An `hvcC` with no NAL units that says 4-byte lengths (lengthSizeMinusOne 3), for data alone.
    static let lengthsOnly = [UInt8](repeating: 0, count: 21) + [3, 0]

    /// What every SPS of `data`, NAL units behind 4-byte lengths, declares.
    static func declarations(_ data: [UInt8]) -> [HEVCParameterSets.SequenceDeclaration]? {
        lengthsOnly.withUnsafeBytes { configuration in
            data.withUnsafeBytes { HEVCParameterSets.declarations(configuration: configuration, data: $0) }
        }
    }

    /// The NAL units of `sps-40000x100.heic`'s `hvcC`, each with its 4-byte length before it.
    static func hostileParameterSets() throws -> [UInt8] {
        let bytes = [UInt8](try Fixtures.data("heic/hostile/sps-40000x100.heic"))
        let start = try #require(bytes.indices.first { Array(bytes[$0..<($0 + 4)]) == Array("hvcC".utf8) }) + 4
        var offset = start + 23
        var units: [UInt8] = []
        for _ in 0..<bytes[start + 22] {
            let count = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            for _ in 0..<count {
                let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
                units += [0, 0, UInt8(length >> 8), UInt8(length & 0xFF)] + bytes[(offset + 2)..<(offset + 2 + length)]
                offset += 2 + length
            }
        }
        return units
    }

    @Test("a tile whose data carries an SPS of another size is left to libheif before any decode")
    func parameterSetInTileData() throws {
        var bytes = [UInt8](try Fixtures.data("heic/iphone-like-grid-p3-rotated.heic"))
        let tileData = try bytes.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let layout = try #require(container.hevcTileLayout(plan: try container.decodePlan()))
            return try #require(layout.tiles[4].data.first)
        }
        // The fifth tile's data: the hostile parameter sets, then the rest as one NAL unit.
        let inserted = try Self.hostileParameterSets()
        let rest = tileData.count - inserted.count - 4
        try #require(rest > 2)
        let fill =
            inserted + [UInt8(rest >> 24), UInt8(rest >> 16 & 0xFF), UInt8(rest >> 8 & 0xFF), UInt8(rest & 0xFF)]
        bytes.replaceSubrange(tileData.lowerBound..<(tileData.lowerBound + fill.count), with: fill)
        #expect(Self.declarations(Array(bytes[tileData]))?.map(\.codedSize) == [PixelSize(width: 40000, height: 100)])
        #expect(try bytes.withUnsafeBytes { try !Self.isCovered($0) })
        let workspace = PreparationWorkspace()
        #expect(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(Data(bytes), name: "photo.heic", workspace: workspace)
        }
        #expect(!workspace.lastDecode.isStripWise)
    }

    @Test("each SPS is read to its bit depths, and one cut short is not vouched for")
    func declarations() throws {
        let units = try Self.hostileParameterSets()
        let read = Self.declarations(units)
        let declaration = try #require(read?.first)
        #expect(read?.count == 1)
        #expect(declaration.codedSize == PixelSize(width: 40000, height: 100))
        #expect(declaration.chromaFormat == 1 && declaration.lumaBitDepth == 8 && declaration.chromaBitDepth == 8)
        #expect(!HEVCTileLayout.declares(PixelSize(width: 250, height: 188), in: declaration))
        var fitting = declaration
        fitting.codedSize = PixelSize(width: 256, height: 192)
        fitting.outputSize = PixelSize(width: 250, height: 188)
        #expect(HEVCTileLayout.declares(PixelSize(width: 250, height: 188), in: fitting))
        fitting.lumaBitDepth = 10
        #expect(!HEVCTileLayout.declares(PixelSize(width: 250, height: 188), in: fitting))
        // The SPS (the second unit, after the VPS) cut to its first 24 bytes, 19 of payload once its
        // three emulation prevention bytes are out: its size is there, its bit depths are not.
        var offset = 0
        var cut: [UInt8] = []
        while offset + 4 <= units.count {
            let length = units[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let unit = Array(units[(offset + 4)..<(offset + 4 + length)])
            if Int(unit[0] >> 1 & 0x3F) == HEVCParameterSets.sequenceParameterSet {
                cut = [0, 0, 0, 24] + unit.prefix(24)
            }
            offset += 4 + length
        }
        try #require(!cut.isEmpty)
        let cutSize = cut.dropFirst(4).withUnsafeBytes { HEVCParameterSets.size(ofNALUnit: $0) }
        #expect(cutSize == PixelSize(width: 40000, height: 100))
        #expect(Self.declarations(cut) == nil)
    }

    @Test("a photo over the pixel limit is refused before the direct decode allocates anything")
    func pixelLimit() throws {
        let path = "heic/iphone-like-grid-p3-rotated.heic"
        #expect(try Self.isCovered(path))
        var configuration = PhotoPreparer.Configuration()
        configuration.maxPixels = 1000 * 750 - 1
        let workspace = PreparationWorkspace()
        #expect(
            throws: ImagePrepError.tooManyPixels(
                file: "photo.heic", size: PixelSize(width: 1000, height: 750), limit: 1000 * 750 - 1)
        ) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(
                Fixtures.data(path), name: "photo.heic", workspace: workspace)
        }
        #expect(HEIFBadInputTests.nothingAllocated(workspace))
    }
}

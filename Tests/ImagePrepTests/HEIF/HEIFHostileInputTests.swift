import Foundation
import Testing

@testable import ImagePrep

/// The files of `Tests/Fixtures/heic/hostile`, each one of the ways a mutated phone file once
/// crashed the process, made libheif recurse, or cost the whole photo for damaged metadata. Each
/// is refused with its own error before libheif decodes anything, or prepared without what is
/// damaged; none may trap (a trap fails the whole test run).
@Suite("Hostile HEIF files fail alone, in our words, before libheif decodes them")
struct HEIFHostileInputTests {
    @Test(
        "a size of 0xFFFFFFFF x 0xFFFFFFFF, in the ispe or a grid's 32-bit description, is .tooManyPixels, not a trap",
        arguments: ["heic/hostile/ispe-4294967295x4294967295.heic", "heic/hostile/grid-4294967295x4294967295.heic"])
    func largestSizes(path: String) throws {
        let workspace = PreparationWorkspace()
        let error = try HEIFBadInputTests.refusal(path, workspace: workspace)
        #expect(
            error
                == .tooManyPixels(
                    file: Fixtures.HEIF.name(path), size: PixelSize(width: 4_294_967_295, height: 4_294_967_295),
                    limit: 210_000_000))
        #expect(error.description.contains("9223372036854775807 pixels"), "the count saturates: \(error)")
        #expect(HEIFBadInputTests.nothingAllocated(workspace))
    }

    @Test("a pixel count saturates at Int.max instead of trapping")
    func saturatedPixelCount() {
        #expect(PixelSize(width: 4_294_967_295, height: 4_294_967_295).pixelCount == Int.max)
        #expect(PixelSize(width: Int.max, height: 2).pixelCount == Int.max)
        #expect(PixelSize(width: 65535, height: 65535).pixelCount == 4_294_836_225)
    }

    @Test(
        "an alpha image that is an identity of the primary is a loop, on a coded primary and on a grid",
        arguments: ["heic/hostile/alpha-identity-loop.heic", "heic/hostile/grid-alpha-identity-loop.heic"])
    func alphaIdentityLoop(path: String) throws {
        let workspace = PreparationWorkspace()
        let error = try HEIFBadInputTests.refusal(path, workspace: workspace)
        #expect(
            error == .corruptHEIF(file: Fixtures.HEIF.name(path), detail: "its images refer to each other in a loop"))
        #expect(error.code == "corrupt_heif")
        #expect(HEIFBadInputTests.nothingAllocated(workspace))
        // Reading its metadata does not hand it to libheif either.
        let (_, warnings) = try PhotoMetadata.read(from: Fixtures.data(path))
        #expect(
            warnings.map(\.message) == [
                "the HEIF file cannot be read, so it gives no metadata: its images refer to each other in a loop."
            ])
    }

    @Test("a loop through any kind of reference is found, however the items are numbered")
    func loopsOfEveryKind() throws {
        // Item 1 is the primary, hvc1; item 2 hangs on it by `kind` and derives from it (dimg).
        for kind in ["auxl", "thmb", "cdsc", "prem", "zzzz"] {
            let references = [("dimg", 2, [1]), (kind, 2, [1])]
            #expect(throws: HEIFContainer.Problem.malformed("its images refer to each other in a loop")) {
                try Self.refuseLoops(references: references)
            }
        }
        // A chain far longer than a thread's stack could recurse through, closed at its end.
        let chain = (1..<5000).map { ("dimg", $0, [$0 + 1]) } + [("dimg", 5000, [1])]
        #expect(throws: HEIFContainer.Problem.malformed("its images refer to each other in a loop")) {
            try Self.refuseLoops(references: chain)
        }
        // A thumbnail, an Exif item and an alpha image of one primary are no loop; nor is a tile
        // that a grid names twice.
        let photo = [("thmb", 2, [1]), ("cdsc", 3, [1]), ("auxl", 4, [1]), ("dimg", 1, [5, 5])]
        try Self.refuseLoops(references: photo)
    }

    @Test("an image with two rotations is refused, as libheif's security update refuses it, not composed")
    func twoRotations() throws {
        #expect(
            throws: ImagePrepError.corruptHEIF(
                file: "photo.heic", detail: "an image has two rotations, mirrors or crops of one kind")
        ) {
            try PhotoPreparer().prepareBlocking(Fixtures.data("heic/hostile/two-rotations.heic"), name: "photo.heic")
        }
        // One of each kind is a photo's orientation, as `orientation-5.heic` has it.
        _ = try Fixtures.prepared("heic/orientation-5.heic")
    }

    @Test("an overlay that decodes one image 50 times is counted 50 times against twice maxPixels")
    func repeatedLayers() throws {
        let path = "heic/hostile/overlay-50-layers.heic"
        // Within our budget it is libheif's to compose: 1.15.1-1+deb12u1 does, and deb12u2's
        // bound on composed images refuses it. Either is our contract, said in our words.
        do {
            _ = try Fixtures.prepared(path)
        } catch let error as ImagePrepError {
            #expect(error == .heifSecurityLimit(file: "overlay-50-layers.heic", limit: .tooManyImagesComposed))
            #expect(error.code == "heif_too_many_images")
            #expect(!error.description.contains("pixels a side"), "\(error)")
        }
        let plan = try Fixtures.data(path).withUnsafeBytes { try HEIFContainer($0).decodePlan() }
        #expect(plan.decodedPixels == 50 * plan.largest.pixelCount && plan.decodedPixels > 2_000_000)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxPixels = 1_000_000
        let workspace = PreparationWorkspace()
        let error = try HEIFBadInputTests.refusal(path, configuration: configuration, workspace: workspace)
        #expect(error == .tooMuchDecoding(file: "overlay-50-layers.heic", pixels: plan.decodedPixels, limit: 2_000_000))
        #expect(error.code == "too_much_decoding")
        #expect(HEIFBadInputTests.nothingAllocated(workspace))
    }

    @Test(
        "what a libheif security update refuses is refused in our words, or prepared where an older one decodes it",
        arguments: [
            ("heic/hostile/sps-40000x100.heic", HEIFSecurityLimit.codedSizeBeyondImage),
            ("heic/hostile/hvcc-says-10-bits.heic", .bitDepthChanged),
        ])
    func refusedByLibheifUpdates(path: String, limit: HEIFSecurityLimit) throws {
        // libheif 1.15.1-1+deb12u2 refuses both at a limit of its own; deb12u1's libde265 finds
        // the first's stream malformed and decodes the second.
        do {
            let photo = try Fixtures.prepared(path)
            #expect(photo.upload.size == PixelSize(width: 250, height: 188))
        } catch let error as ImagePrepError {
            let older = ImagePrepError.corruptHEIF(
                file: Fixtures.HEIF.name(path), detail: "the image data does not decode")
            #expect(error == .heifSecurityLimit(file: Fixtures.HEIF.name(path), limit: limit) || error == older)
        }
    }

    @Test("an Exif item whose length is 0xFFFFFFF0 costs only the metadata, with a warning")
    func oversizedExifItem() throws {
        let photo = try Fixtures.prepared("heic/hostile/exif-length-fffffff0.heic")
        #expect(photo.upload.size == PixelSize(width: 250, height: 188))
        #expect(photo.metadata.location == nil && photo.metadata.captureTime == nil)
        #expect(photo.warnings == [HEIFMetadata.unreadableItemWarning])
        #expect(UploadSegments.exifSegment(of: photo.upload.data) == nil)
        let (metadata, warnings) = try PhotoMetadata.read(from: Fixtures.data("heic/hostile/exif-length-fffffff0.heic"))
        #expect(metadata.originalSize == PixelSize(width: 250, height: 188))
        #expect(warnings == [HEIFMetadata.unreadableItemWarning])
    }

    @Test("a decode with two warnings gives both, once each, where libheif 1.15 overran a buffer of one")
    func severalDecodingWarnings() throws {
        let photo = try Fixtures.prepared("heic/hostile/av1-two-decoding-warnings.avif")
        let messages = photo.warnings.map(\.message)
        #expect(messages.count == 2 && Set(messages).count == 2, "\(messages)")
        #expect(messages.allSatisfy { $0.hasPrefix("libheif met a problem and decoded the image all the same: ") })
    }

    @Test(
        "an XMP item stored deflated (16 KB that inflate to 16 MB) is inflated by no one: the photo, with a warning",
        arguments: ["heic/hostile/xmp-deflated-to-16mb.heic", "heic/hostile/xmp-deflated-listed-twice.heic"])
    func deflatedXMPItem(path: String) throws {
        let photo = try Fixtures.prepared(path)
        #expect(photo.upload.size == PixelSize(width: 250, height: 188))
        #expect(photo.warnings == [HEIFMetadata.encodedItemWarning])
        let (metadata, warnings) = try PhotoMetadata.read(from: Fixtures.data(path))
        #expect(metadata.originalSize == PixelSize(width: 250, height: 188))
        #expect(warnings == [HEIFMetadata.encodedItemWarning])
        // libheif 1.15 inflates a `mime` item that says `deflate` as it opens the file: it is given
        // none, the item listed twice included (it keeps the first `infe`, which says it).
        let readable = try #require(try Fixtures.data(path).withUnsafeBytes { try HEIFContainer($0).bytesForLibheif() })
        let types = try readable.withUnsafeBytes { try HEIFContainer($0).items.values.map(\.type) }
        #expect(
            types.contains(FourCC.hvc1) && !types.contains(FourCC.mime), "\(types)")
    }

    @Test(
        "of a box, an item entry, a location or an association given twice, the walk reads the first, as libheif does")
    func firstOfTwice() throws {
        let infe = { (type: String) in
            Self.box("infe", [2, 0, 0, 0] + Self.uint16(1) + [0, 0] + Array(type.utf8) + [0])
        }
        let iinf = { (types: [String]) in
            Self.box("iinf", [0, 0, 0, 0] + Self.uint16(types.count) + types.flatMap { infe($0) })
        }
        // Version 0, 4-byte offsets and lengths: item 1, one extent of each (offset, length).
        let iloc = { (extents: [(Int, Int)]) in
            Self.box(
                "iloc",
                [0, 0, 0, 0, 0x44, 0x00] + Self.uint16(extents.count)
                    + extents.flatMap {
                        Self.uint16(1) + [0, 0] + Self.uint16(1) + Self.uint32($0.0) + Self.uint32($0.1)
                    })
        }
        let ipma = { (indexes: [Int]) in
            Self.box(
                "ipma",
                [0, 0, 0, 0] + Self.uint32(indexes.count) + indexes.flatMap { Self.uint16(1) + [1, UInt8($0)] })
        }
        let ipco = { (types: [String]) in Self.box("ipco", types.flatMap { Self.box($0, []) }) }
        let meta = Self.box(
            "meta",
            [0, 0, 0, 0] + Self.box("pitm", [0, 0, 0, 0] + Self.uint16(1))
                + iinf(["hvc1", "mime"]) + iinf(["av01"])
                + iloc([(0, 4), (4, 8)]) + iloc([(8, 2)])
                + Self.box("iprp", ipco(["aaaa", "bbbb"]) + ipco(["cccc"]) + ipma([1, 2]))
                + Self.box("iprp", ipco(["dddd"]) + ipma([1])))
        let file = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)) + meta
        try file.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let item = try #require(container.items[1])
            #expect(container.items.count == 1)
            #expect(item.type == FourCC.hvc1)
            #expect(item.extents == [0..<4])
            #expect(container.properties.map(\.type) == [FourCC("aaaa"), FourCC("bbbb")])
            #expect(item.properties == [0])
        }
    }

    /// The loop search from item 1, a primary hvc1 item, in a file with `references` (kind, from, to).
    static func refuseLoops(references: [(String, Int, [Int])]) throws {
        var iref = [UInt8]()
        for (kind, from, to) in references {
            var entry = Self.uint16(from) + Self.uint16(to.count)
            for target in to { entry += Self.uint16(target) }
            iref += Self.box(kind, entry)
        }
        let meta = Self.box(
            "meta",
            [0, 0, 0, 0] + Self.box("pitm", [0, 0, 0, 0] + Self.uint16(1))
                + Self.box(
                    "iinf",
                    [0, 0, 0, 0] + Self.uint16(1) + Self.box("infe", [2, 0, 0, 0, 0, 1, 0, 0] + Array("hvc1".utf8)))
                + Self.box("iref", [0, 0, 0, 0] + iref))
        let file = Self.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)) + meta
        try file.withUnsafeBytes { try HEIFContainer($0).refuseLoops(from: 1) }
    }

    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let size = 8 + payload.count
        return [UInt8(size >> 24 & 255), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)]
            + Array(type.utf8) + payload
    }

    static func uint16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 255), UInt8(value & 255)] }

    static func uint32(_ value: Int) -> [UInt8] { uint16(value >> 16) + uint16(value) }
}

import Foundation
import Testing

@testable import ImagePrep

/// What libheif 1.15 is given of a HEIF file (`HEIFContainer.bytesForLibheif`): the files today's
/// phones write, which libheif refuses as they are, opened once the items and references it
/// cannot handle are hidden or rewritten; and the primary's pixels unchanged by it.
@Suite("libheif 1.15 is given what it can read")
struct LibheifInputTests {
    static let iPhone = "phones/iphone15plus-ios18.2-hdr-tmap.heic"
    static let samsung = "phones/galaxy-s25ultra-hdr-gainmap.heic"

    /// Runs `body` on the container of `file`'s bytes.
    static func withContainer<R>(_ file: String, _ body: (HEIFContainer) throws -> R) throws -> R {
        let data = try Fixtures.data(file)
        return try data.withUnsafeBytes { bytes in try body(try HEIFContainer(bytes)) }
    }

    /// libheif's refusal of `bytes` as our own words give it; nil when it opens them and gives
    /// their primary image.
    static func libheifRefusal(_ bytes: [UInt8]) throws -> ImagePrepError? {
        let libheif = try Libheif.shared(for: "x.heic")
        return bytes.withUnsafeBytes { bytes -> ImagePrepError? in
            do throws(ImagePrepError) {
                let context = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: "x.heic")
                _ = try context.primaryImage(file: "x.heic")
                return nil
            } catch {
                return error
            }
        }
    }

    /// The TIFF block of the Exif item libheif gives for the primary of `bytes`.
    static func exifThroughLibheif(_ bytes: [UInt8]) throws -> [UInt8]? {
        let libheif = try Libheif.shared(for: "x.heic")
        return try bytes.withUnsafeBytes { bytes in
            let context = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: "x.heic")
            return HEIFMetadata.exif(of: try context.primaryImage(file: "x.heic")).tiff
        }
    }

    @Test(
        "libheif 1.15 refuses today's layouts as they are (heif-info: \"Metadata not correctly assigned to image\", \"Too many auxiliary image references\"), and opens what it is given, the Exif item still the photo's",
        arguments: [
            iPhone, "heic/gainmap/iphone-hdr-tmap.heic", "heic/gainmap/iphone-ios26-like.heic",
            "heic/gainmap/cdsc-primary-and-thumbnail.heic",
        ])
    func refusedAsTheyAre(file: String) throws {
        let original = try [UInt8](Fixtures.data(file))
        // "Too many auxiliary image references" is one of libheif's limits in our words (issue 40).
        let refusal = try Self.libheifRefusal(original)
        #expect(
            refusal == .corruptHEIF(file: "x.heic", detail: "libheif finds it malformed")
                || refusal == .heifSecurityLimit(file: "x.heic", limit: .tooManyEntries),
            "\(String(describing: refusal))")
        let readable = try #require(try Self.withContainer(file) { $0.bytesForLibheif() })
        #expect(readable.count == original.count, "rewritten in place")
        #expect(try Self.libheifRefusal(readable) == nil)
        #expect(try Self.exifThroughLibheif(readable) != nil, "the Exif item is still linked to the photo")
    }

    @Test("iOS 18's tmap is hidden and its Exif and XMP describe the primary alone; nothing else changes")
    func iPhoneLayout() throws {
        try Self.withContainer(Self.iPhone) { container in
            #expect(container.primary == 46)
            #expect(container.toneMapItem == 66 && container.gainMapItem == 63)
            #expect(container.itemsHiddenFromLibheif() == [66])
            let references = try #require(container.referencesForLibheif(hiding: [66]))
            let said = references.map {
                "\($0.type) \($0.from) \($0.to.count > 4 ? [$0.to.count] : $0.to.map(Int.init))"
            }
            #expect(
                said == [
                    "dimg 46 [45]", "thmb 47 [46]", "dimg 63 [15]", "auxl 63 [46]", "cdsc 64 [63]", "cdsc 67 [46]",
                    "cdsc 68 [46]",
                ])
            let plan = try container.decodePlan()
            #expect(plan.storedSize == PixelSize(width: 5712, height: 4284) && plan.codedImageCount == 45)
            #expect(try container.gainMapPlan().storedSize == PixelSize(width: 2856, height: 2142))
        }
    }

    @Test("Samsung's layout: its tmap is hidden, its own gain map type found as the tmap's second source")
    func samsungLayout() throws {
        try Self.withContainer(Self.samsung) { container throws in
            #expect(container.primary == 33 && container.toneMapItem == 38 && container.gainMapItem == 37)
            #expect(container.auxiliaryTypeName(of: 37) == HEIFContainer.samsungGainMapType)
            #expect(container.itemsHiddenFromLibheif() == [38])
            #expect(try container.gainMapPlan().storedSize == PixelSize(width: 1000, height: 462))
        }
    }

    @Test(
        "iOS 26's mattes, style delta map and linear thumbnail are hidden with the tmap; the gain map is kept, its auxl to the photo alone"
    )
    func iOS26Layout() throws {
        try Self.withContainer("heic/gainmap/iphone-ios26-like.heic") { container in
            let gainMap = try #require(container.gainMapItem)
            let toneMap = try #require(container.toneMapItem)
            let auxiliary = container.references.filter { $0.type == FourCC.auxl }.map(\.from)
            #expect(auxiliary.count == 4 && auxiliary.contains(gainMap))
            let hidden = container.itemsHiddenFromLibheif()
            #expect(hidden == Set(auxiliary.filter { $0 != gainMap } + [toneMap]))
            let references = try #require(container.referencesForLibheif(hiding: hidden))
            #expect(!references.contains { hidden.contains($0.from) })
            #expect(references.filter { $0.type == FourCC.auxl }.map(\.to) == [[container.primary!]])
        }
    }

    @Test("A refused gain map is hidden with the images only it is made of; the primary's are kept")
    func refusedGainMapHidden() throws {
        try Self.withContainer("heic/gainmap/iphone-hdr-grid.heic") { container in
            let gainMap = try #require(container.gainMapItem)
            let tiles = try #require(container.derivedImageSources()[gainMap])
            #expect(container.itemsHiddenFromLibheif() == [])
            #expect(container.itemsHiddenFromLibheif(also: [gainMap]) == Set(tiles + [gainMap]))
        }
    }

    @Test(
        "An Exif item that names the photo twice: too few bytes freed for a free box, so its reference is renamed and the Exif item no longer linked (no phone writes one)"
    )
    func tooFewBytesFreed() throws {
        let file = "heic/gainmap/cdsc-primary-twice.heic"
        let readable = try #require(try Self.withContainer(file) { $0.bytesForLibheif() })
        #expect(try Self.libheifRefusal(readable) == nil)
        #expect(try Self.exifThroughLibheif(readable) == nil)
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(file), name: "twice.heic")
        #expect(photo.metadata.captureTime == nil)
    }

    @Test(
        "The primary's pixels are those libheif decodes from the original, where libheif reads the original (Samsung's)"
    )
    func primaryPixelsUnchanged() throws {
        let original = try [UInt8](Fixtures.data(Self.samsung))
        #expect(try Self.libheifRefusal(original) == nil)
        let (readable, plan) = try Self.withContainer(Self.samsung) { ($0.bytesForLibheif(), try $0.decodePlan()) }
        let rewritten = try #require(readable)
        #expect(rewritten != original)
        func decoded(_ bytes: [UInt8]) throws -> [[UInt8]] {
            let libheif = try Libheif.shared(for: "x.heic")
            let image = PlanarImage()
            try bytes.withUnsafeBytes { bytes in
                let context = try HEIFContext(bytes, libheif: libheif, decodingThreads: 0, file: "x.heic")
                let handle = try context.primaryImage(file: "x.heic")
                _ = try HEIFDecoder.decode(handle, plan: plan, nclx: handle.nclx, reduction: 1, into: image, file: "x")
            }
            return image.activePlanes.map { plane in
                (0..<plane.height).flatMap { Array(UnsafeBufferPointer(start: plane.row($0), count: plane.width)) }
            }
        }
        let expected = try decoded(original)
        #expect(expected.first?.count == 4000 * 1848)
        #expect(try decoded(rewritten) == expected)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Ultra HDR JPEGs in, Ultra HDR JPEGs up: the gain map resized by the photo's ratio, its MPF
/// index and XMP rewritten, its hdrgm and ISO 21496-1 metadata carried; and every way the gain
/// map can be broken gives the SDR upload with one warning, never a failure.
@Suite("HDR gain maps: Ultra HDR JPEG uploads")
struct GainMapTests {
    static let corpus = "corpus/mpf-ultrahdr-gainmap-3840x2160.jpg"
    static let crafted = "crafted/ultrahdr-320x240.jpg"
    static let craftedISO = "crafted/ultrahdr-320x240-iso.jpg"

    static func preparer(maxEdge: Int = 2048, carriesGainMap: Bool = true) -> PhotoPreparer {
        var preparer = PhotoPreparer()
        preparer.configuration.maxEdge = maxEdge
        preparer.configuration.carriesGainMap = carriesGainMap
        return preparer
    }

    /// The gain map bytes of an Ultra HDR file, by its MPF index as our reader finds it.
    static func gainMap(of file: Data) throws -> Data {
        let range = try file.withUnsafeBytes { bytes in
            let found = UltraHDRSource.find(in: bytes, layout: SegmentWalker.walk(bytes))
            return try #require(found).get().range
        }
        return file.subdata(in: range)
    }

    /// The ISO 21496-1 APP2 segments of a JPEG, whole, in order.
    static func isoSegments(_ file: Data) -> [Data] {
        file.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).segments.filter {
                $0.marker == JPEGSegment.app2 && bytes.hasPrefix(UltraHDRSource.isoSignature, at: $0.payload)
            }.map { bytes.data(in: $0.bytes) }
        }
    }

    @Test("The corpus's 3840x2160 Ultra HDR photo is uploaded at 2048x1152 with its 960x540 gain map at 512x288")
    func corpusPhoto() throws {
        let original = try Fixtures.data(Self.corpus)
        let photo = try Self.preparer().prepareBlocking(original, name: "ultrahdr.jpg")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        #expect(photo.upload.size == PixelSize(width: 2048, height: 1152))
        let gainMap = try #require(photo.uploadGainMap)
        #expect(gainMap.size == PixelSize(width: 512, height: 288))
        #expect(photo.upload.data.suffix(gainMap.data.count) == gainMap.data)
        // What exiftool sees: two MPF images, the second where it is and as long as it is, and
        // the original's hdrgm values in the gain map's own XMP.
        let tags = try Exiftool.tags(of: photo.upload.data)
        #expect(tags["MPF0:NumberOfImages"] as? Int == 2)
        #expect(tags["MPImage2:MPImageLength"] as? Int == gainMap.data.count)
        #expect(tags["MPImage2:MPImageStart"] as? Int == photo.upload.data.count - gainMap.data.count)
        #expect(tags["MPImage1:MPImageLength"] as? Int == photo.upload.data.count - gainMap.data.count)
        #expect(tags["XMP-Container:DirectoryItemLength"] as? Int == gainMap.data.count)
        let extracted = try Exiftool.run(["-b", "-MPImage2", "-"], input: photo.upload.data)
        #expect(extracted == gainMap.data, "exiftool -b -MPImage2 gives the gain map we appended")
        let gainMapTags = try Exiftool.tags(of: extracted)
        let originalGainMapTags = try Exiftool.tags(of: Self.gainMap(of: original))
        for name in [
            "Version", "GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR", "HDRCapacityMin",
            "HDRCapacityMax", "BaseRenditionIsHDR",
        ] {
            let key = "XMP-hdrgm:\(name)"
            #expect(
                gainMapTags[key] != nil && "\(gainMapTags[key]!)" == "\(originalGainMapTags[key] ?? "absent")", "\(key)"
            )
        }
        // Its pixels: the original's gain map, shrunk to the same size by an area average that
        // shares no code with the pipeline.
        let reference = try DecodedJPEG(Self.gainMap(of: original)).luma.areaResized(to: gainMap.size)
        let carried = try DecodedJPEG(extracted).luma
        let ssim = lumaSSIM(reference, carried)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
    }

    @Test("The display copy and the thumbnail of an Ultra HDR photo stay SDR: no MPF, no XMP, no gain map after EOI")
    func strippedCopiesStaySDR() throws {
        let photo = try Self.preparer().prepareBlocking(Fixtures.data(Self.corpus), name: "ultrahdr.jpg")
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            let markers = copy.data.withUnsafeBytes { SegmentWalker.walk($0).segments.map(\.marker) }
            #expect(!markers.contains(JPEGSegment.app1) && !markers.contains(JPEGSegment.app2), "\(markers)")
            #expect(
                copy.data.firstRange(of: Data([0xFF, JPEGSegment.endOfImage])) == copy.data.count - 2..<copy.data.count)
            #expect(copy.data.firstRange(of: Data("hdrgm".utf8)) == nil)
        }
    }

    @Test("ISO 21496-1 segments are carried byte for byte, in the primary and the gain map, and the EXIF as today")
    func isoMetadataAndEXIF() throws {
        let original = try Fixtures.data(Self.craftedISO)
        let photo = try Self.preparer(maxEdge: 160).prepareBlocking(original, name: "iso.jpg")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        let gainMap = try #require(photo.uploadGainMap)
        #expect(photo.upload.size == PixelSize(width: 160, height: 120))
        #expect(gainMap.size == PixelSize(width: 40, height: 30), "a quarter of the upload, as in the original")
        let originalGainMap = try Self.gainMap(of: original)
        #expect(
            Self.isoSegments(photo.upload.data) == Self.isoSegments(original) && Self.isoSegments(original).count == 1)
        #expect(
            Self.isoSegments(gainMap.data) == Self.isoSegments(originalGainMap)
                && Self.isoSegments(originalGainMap).count == 1)
        #expect(photo.metadata.location != nil)
        let uploadEXIF = photo.upload.data.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).exifSegment(in: bytes).map { bytes[$0.bytes].count }
        }
        let originalEXIF = original.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).exifSegment(in: bytes).map { bytes[$0.bytes].count }
        }
        #expect(uploadEXIF != nil && uploadEXIF == originalEXIF)
    }

    @Test("An Ultra HDR upload prepared again is Ultra HDR again: our MPF index and XMP read back by our own reader")
    func roundTrip() throws {
        let first = try Self.preparer().prepareBlocking(Fixtures.data(Self.craftedISO), name: "iso.jpg")
        let again = try Self.preparer().prepareBlocking(first.upload.data, name: "again.jpg")
        #expect(again.warnings.isEmpty, "\(again.warnings)")
        #expect(again.uploadGainMap?.size == first.uploadGainMap?.size)
    }

    @Test("carriesGainMap off: the upload is the SDR photo alone, with no MPF and no XMP, and no warning")
    func optOut() throws {
        let photo = try Self.preparer(carriesGainMap: false).prepareBlocking(
            Fixtures.data(Self.crafted), name: "sdr.jpg")
        #expect(photo.uploadGainMap == nil && photo.warnings.isEmpty)
        let markers = photo.upload.data.withUnsafeBytes { SegmentWalker.walk($0).segments.map(\.marker) }
        #expect(markers.filter { $0 == JPEGSegment.app2 }.isEmpty)
        #expect(photo.upload.data.firstRange(of: Data("hdrgm".utf8)) == nil)
    }

    @Test(
        "A JPEG with MPF but no gain map (a GoPro's), or with Ultra HDR XMP but no MPF (a Pixel's cut down), is uploaded as before, without a warning"
    )
    func otherMPFPhotos() throws {
        var withoutIndex = try [UInt8](Fixtures.data(Self.crafted))
        withoutIndex[try UltraHDRLayout(withoutIndex).mpfSegment + 4] = UInt8(ascii: "X")
        let sdr = try Self.preparer(carriesGainMap: false).prepareBlocking(Data(withoutIndex), name: "no-mpf.jpg")
        #expect(try Self.preparer().prepareBlocking(Data(withoutIndex), name: "no-mpf.jpg") == sdr)
        for name in ["corpus/offset-plus0200-gopro-6digit-subsec-mpf.jpg", "corpus/offset-plus0200-pixel8pro-8x8.jpg"] {
            let photo = try Self.preparer().prepareBlocking(Fixtures.data(name), name: name)
            #expect(photo.uploadGainMap == nil, "\(name)")
            #expect(!photo.warnings.contains { $0.kind == .gainMap }, "\(name): \(photo.warnings)")
        }
    }

    @Test(
        "The corpus's iPhone 14 Pro Max JPEG holds Apple's gain map at 349x434, larger than its 56x70 photo (Pillow shrank the photo alone): left out, and said"
    )
    func appleGainMapLargerThanPhoto() throws {
        let name = "corpus/offset-minus0400-iphone14promax-p3-mpf.jpg"
        let photo = try Self.preparer().prepareBlocking(Fixtures.data(name), name: name)
        #expect(photo.uploadGainMap == nil)
        #expect(
            photo.warnings.filter { $0.kind == .gainMap }.map(\.message) == [
                GainMapProblem.tooLarge(PixelSize(width: 349, height: 434), base: PixelSize(width: 56, height: 70))
                    .warning.message
            ])
    }

    /// A byte edit of the crafted Ultra HDR file that breaks its gain map in one way.
    struct Breakage: CustomStringConvertible, Sendable {
        let description: String
        let edit: @Sendable (inout [UInt8], UltraHDRLayout) -> Void
    }

    static let breakages: [Breakage] = [
        Breakage(description: "a gain map whose frame claims 60000x60000") { bytes, layout in
            let frame = layout.gainMapFrame
            bytes.replaceSubrange((frame + 5)..<(frame + 9), with: [0xEA, 0x60, 0xEA, 0x60])
        },
        Breakage(description: "an MPF entry pointing past the end") { bytes, layout in
            layout.write(UInt32(bytes.count), atEntryField: 2, in: &bytes)
        },
        Breakage(description: "an MPF entry whose length runs past the end") { bytes, layout in
            layout.write(UInt32.max, atEntryField: 1, in: &bytes)
        },
        Breakage(description: "an MPF entry pointing into the primary, at its own MPF segment (a loop)") {
            bytes, layout in
            layout.write(0, atEntryField: 2, in: &bytes)
        },
        Breakage(description: "an MPF index claiming 5000 images") { bytes, layout in
            layout.writeBigEndian(5000, at: layout.imageCountValue, in: &bytes)
        },
        Breakage(description: "a gain map that is a PNG") { bytes, layout in
            bytes.replaceSubrange(
                layout.gainMapStart..<(layout.gainMapStart + 8), with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        },
        Breakage(description: "a gain map whose image data ends early") { bytes, layout in
            let scanData = layout.gainMapScanData
            bytes.replaceSubrange((scanData + 8)..<(scanData + 10), with: [0xFF, 0xD9])
        },
        Breakage(description: "a gain map whose GainMapMax is not a number") { bytes, _ in
            let key = Array("hdrgm:GainMapMax=\"2".utf8)
            let at = bytes.firstRange(of: key)!.upperBound - 1
            bytes[at] = UInt8(ascii: "x")
        },
        Breakage(description: "a gain map without its hdrgm XMP") { bytes, _ in
            let key = Array("hdrgm:Version=\"1.0\" hdrgm:GainMapMin".utf8)
            let at = bytes.firstRange(of: key)!.lowerBound
            bytes[at] = UInt8(ascii: "X")
        },
    ]

    @Test("A broken gain map gives the SDR upload, byte for byte, with one gain-map warning", arguments: breakages)
    func brokenGainMap(_ breakage: Breakage) throws {
        let original = try [UInt8](Fixtures.data(Self.crafted))
        var bytes = original
        breakage.edit(&bytes, try UltraHDRLayout(original))
        let photo = try Self.preparer().prepareBlocking(Data(bytes), name: "broken.jpg")
        let sdr = try Self.preparer(carriesGainMap: false).prepareBlocking(Data(bytes), name: "broken.jpg")
        #expect(photo.uploadGainMap == nil)
        #expect(photo.warnings.filter { $0.kind == .gainMap }.count == 1, "\(photo.warnings)")
        #expect(photo.warnings.filter { $0.kind != .gainMap } == sdr.warnings)
        #expect(photo.upload == sdr.upload, "the upload is exactly the SDR one")
        #expect(photo.display == sdr.display && photo.thumbnail == sdr.thumbnail)
        let warning = photo.warnings.first { $0.kind == .gainMap }?.message ?? ""
        #expect(warning.hasPrefix("the HDR gain map is left out of the upload"), "\(warning)")
        #expect(!warning.contains("35.6") && !warning.contains("139.7"), "no coordinate in \(warning)")
    }

    @Test("A multichannel gain map's hdrgm values, as rdf:Seq elements, are read and written back as three")
    func multichannelMetadata() throws {
        let xmp = Array(
            """
            <rdf:Description hdrgm:Version="1.0" hdrgm:HDRCapacityMax="3" hdrgm:BaseRenditionIsHDR="True">
            <hdrgm:GainMapMax><rdf:Seq><rdf:li>3</rdf:li><rdf:li>2.5</rdf:li><rdf:li>2</rdf:li></rdf:Seq></hdrgm:GainMapMax>
            <hdrgm:Gamma> 1.2 </hdrgm:Gamma></rdf:Description>
            """.utf8)
        let metadata = try GainMapMetadata.read(xmp: xmp).get()
        #expect(metadata.gainMapMax == ["3", "2.5", "2"] && metadata.gamma == ["1.2"] && metadata.baseRenditionIsHDR)
        #expect(metadata.offsetSDR == ["0.015625"] && metadata.hdrCapacityMin == "0")
        let written = [UInt8](metadata.segment.dropFirst(4 + GainMapMetadata.xmpSignature.count))
        #expect(try GainMapMetadata.read(xmp: written).get() == metadata)
        for bad in ["nan", "inf", "0x1p3", "1e999", "", String(repeating: "1", count: 40)] {
            let text = Array("hdrgm:Version=\"1.0\" hdrgm:GainMapMax=\"\(bad)\" hdrgm:HDRCapacityMax=\"1\"".utf8)
            #expect(throws: GainMapProblem.self, "\(bad)") { try GainMapMetadata.read(xmp: text).get() }
        }
    }

    static let craftedISOOnly = "crafted/ultrahdr-320x240-iso-only.jpg"

    @Test(
        "An ISO 21496-1-only Ultra HDR JPEG is carried: its ISO segments byte for byte, its values said again as hdrgm XMP"
    )
    func isoOnly() throws {
        let original = try Fixtures.data(Self.craftedISOOnly)
        // At its own size: the 80x60 gain map's texture is finer than a 40x30 one holds.
        let photo = try Self.preparer().prepareBlocking(original, name: "iso-only.jpg")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        let gainMap = try #require(photo.uploadGainMap)
        #expect(gainMap.size == PixelSize(width: 80, height: 60))
        let originalGainMap = try Self.gainMap(of: original)
        #expect(originalGainMap.firstRange(of: Data("hdrgm".utf8)) == nil, "the original says no hdrgm")
        #expect(Self.isoSegments(photo.upload.data) == Self.isoSegments(original))
        #expect(
            Self.isoSegments(gainMap.data) == Self.isoSegments(originalGainMap)
                && Self.isoSegments(gainMap.data).count == 1)
        // exiftool reads the hdrgm values we derived as the -iso file's own XMP says them: its
        // ISO block is the same (headrooms 0 and 5/2, minimum 0, maximum 5/2, gamma 1, offsets 1/64).
        let extracted = try Exiftool.run(["-b", "-MPImage2", "-"], input: photo.upload.data)
        #expect(extracted == gainMap.data)
        let ours = try Exiftool.tags(of: extracted)
        let theirs = try Exiftool.tags(of: Self.gainMap(of: Fixtures.data(Self.craftedISO)))
        for name in [
            "GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR", "HDRCapacityMin", "HDRCapacityMax",
        ] {
            let (a, b) = (ours["XMP-hdrgm:\(name)"] as? Double, theirs["XMP-hdrgm:\(name)"] as? Double)
            #expect(a != nil && a == b, "\(name): \(String(describing: a)) against \(String(describing: b))")
        }
        let reference = try DecodedJPEG(originalGainMap).luma.areaResized(to: gainMap.size)
        let ssim = lumaSSIM(reference, try DecodedJPEG(extracted).luma)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
        let again = try Self.preparer().prepareBlocking(photo.upload.data, name: "again.jpg")
        #expect(again.warnings.isEmpty && again.uploadGainMap != nil, "\(again.warnings)")
    }

    /// A byte edit of the ISO-only file's gain map ISO 21496-1 block (after its signature).
    static let isoBreakages: [(String, @Sendable (inout [UInt8], Int) -> Void)] = [
        ("a minimum version of 1", { bytes, block in bytes[block + 1] = 1 }),
        ("the backward direction (an HDR base)", { bytes, block in bytes[block + 4] |= 0x04 }),
        ("three channels in a block that holds one", { bytes, block in bytes[block + 4] |= 0x80 }),
        ("a headroom's denominator of 0", { bytes, block in bytes[(block + 9)..<(block + 13)] = [0, 0, 0, 0] }),
        (
            "a maximum below its minimum",
            { bytes, block in bytes[(block + 29)..<(block + 33)] = [0xFF, 0xFF, 0xFF, 0xFF] }
        ),
    ]

    @Test("A broken ISO 21496-1 block gives the SDR upload, byte for byte, with one gain-map warning")
    func brokenISOBlock() throws {
        let original = try [UInt8](Fixtures.data(Self.craftedISOOnly))
        let signature = UltraHDRSource.isoSignature
        let block = try #require(original.ranges(of: signature).last).upperBound
        for (description, edit) in Self.isoBreakages {
            var bytes = original
            edit(&bytes, block)
            let photo = try Self.preparer().prepareBlocking(Data(bytes), name: "broken.jpg")
            let sdr = try Self.preparer(carriesGainMap: false).prepareBlocking(Data(bytes), name: "broken.jpg")
            #expect(photo.uploadGainMap == nil, "\(description)")
            let warnings = photo.warnings.filter { $0.kind == .gainMap }
            #expect(warnings.count == 1 && warnings[0].message.contains("ISO 21496-1"), "\(description): \(warnings)")
            #expect(photo.upload == sdr.upload, "\(description): the upload is exactly the SDR one")
        }
    }

    @Test("ISO 21496-1 with one common denominator reads as the same values")
    func isoCommonDenominator() throws {
        // Version 0/0, flags: common denominator; denominator 2; headrooms 0 and 5/2; then
        // minimum 0, maximum 5/2, gamma 2/2, offsets 1/2 and 1/2.
        var block: [UInt8] = [0, 0, 0, 0, 0x08]
        for value: UInt32 in [2, 0, 5, 0, 5, 2, 1, 1] {
            block += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) }
        }
        let metadata = try block.withUnsafeBytes { try ISOGainMapMetadata.read($0).get() }
        #expect(metadata.gainMapMax == ["2.5"] && metadata.hdrCapacityMax == "2.5" && metadata.gamma == ["1.0"])
        #expect(metadata.offsetSDR == ["0.5"] && metadata.gainMapMin == ["0.0"] && !metadata.baseRenditionIsHDR)
        for cut in 0..<block.count {
            #expect(throws: GainMapProblem.self) {
                try block.prefix(cut).withUnsafeBytes { try ISOGainMapMetadata.read($0).get() }
            }
        }
    }

    @Test("The MPF index we write reads back with the primary's and the gain map's lengths and offset")
    func mpfRoundTrip() throws {
        let photo = try Self.preparer().prepareBlocking(Fixtures.data(Self.crafted), name: "crafted.jpg")
        let gainMap = try #require(photo.uploadGainMap)
        let index = try photo.upload.data.withUnsafeBytes { bytes in
            let segment = try #require(
                SegmentWalker.walk(bytes).segments.first {
                    $0.marker == JPEGSegment.app2 && bytes.hasPrefix(MPFIndex.signature, at: $0.payload)
                })
            return try MPFIndex.read(segment, in: bytes).get()
        }
        let primaryLength = photo.upload.data.count - gainMap.data.count
        #expect(index.entries.map(\.size) == [primaryLength, gainMap.data.count])
        #expect(index.entries[0].offset == 0 && index.origin + index.entries[1].offset == primaryLength)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// iPhone HEICs in, Ultra HDR JPEGs up: the HDR gain map auxiliary image resized by the photo's
/// ratio, its samples remapped and its `hdrgm` values derived from Apple's maker note; and every
/// way the gain map or its metadata can be missing, odd or hostile gives the SDR upload with one
/// warning, never a failure. The fixtures are `heic/gainmap/make.sh`'s.
@Suite("HDR gain maps: iPhone HEIC in, Ultra HDR JPEG up")
struct HEIFGainMapTests {
    static let photo = "heic/gainmap/iphone-hdr-320x240.heic"
    /// heif-convert's decode of the gain map the photo's was coded from.
    static let referenceGainMap = "heic/gainmap/reference-gain-map-160x120.jpg"
    /// The photo's maker note (an iPhone 14 Pro Max's): HDRHeadroom 63809/75674, HDRGain 0/1.
    /// HDRHeadroom is below 1 and HDRGain at most 0.01, so Apple's formula gives
    /// -20 × 0 + 1.8 = 1.8 stops: a headroom of 2^1.8, and GainMapMax = log2(headroom) = 1.8.
    static let expectedStops = 1.8

    static func preparer(maxEdge: Int = 2048, carriesGainMap: Bool = true) -> PhotoPreparer {
        GainMapTests.preparer(maxEdge: maxEdge, carriesGainMap: carriesGainMap)
    }

    @Test("The 320x240 HDR HEIC uploaded at 160x120 is an Ultra HDR JPEG whose 80x60 gain map exiftool reads")
    func iPhoneHDRPhoto() throws {
        let photo = try Self.preparer(maxEdge: 160).prepareBlocking(Fixtures.data(Self.photo), name: "hdr.heic")
        #expect(photo.warnings.isEmpty, "\(photo.warnings)")
        #expect(photo.upload.size == PixelSize(width: 160, height: 120))
        let gainMap = try #require(photo.uploadGainMap)
        #expect(gainMap.size == PixelSize(width: 80, height: 60), "half the upload, as in the original")
        #expect(photo.upload.data.suffix(gainMap.data.count) == gainMap.data)
        let tags = try Exiftool.tags(of: photo.upload.data)
        #expect(tags["MPF0:NumberOfImages"] as? Int == 2)
        #expect(tags["MPImage2:MPImageLength"] as? Int == gainMap.data.count)
        #expect(tags["MPImage2:MPImageStart"] as? Int == photo.upload.data.count - gainMap.data.count)
        #expect(tags["XMP-Container:DirectoryItemLength"] as? Int == gainMap.data.count)
        #expect(tags["XMP-hdrgm:Version"] as? Double == 1, "hdrgm:Version 1.0, as a number (-n)")
        let extracted = try Exiftool.run(["-b", "-MPImage2", "-"], input: photo.upload.data)
        #expect(extracted == gainMap.data, "exiftool -b -MPImage2 gives the gain map we appended")
        let gainMapTags = try Exiftool.tags(of: extracted)
        let expected: [String: Double] = [
            "GainMapMin": 0, "GainMapMax": Self.expectedStops, "Gamma": 1, "OffsetSDR": 0, "OffsetHDR": 0,
            "HDRCapacityMin": 0, "HDRCapacityMax": Self.expectedStops,
        ]
        for (name, value) in expected {
            let read = gainMapTags["XMP-hdrgm:\(name)"] as? Double
            #expect(read != nil && abs(read! - value) < 1e-9, "\(name): \(String(describing: read))")
        }
        #expect(gainMapTags["XMP-hdrgm:BaseRenditionIsHDR"] as? Int == 0, "False, as a number (-n)")
        #expect(gainMapTags["File:ColorComponents"] as? Int == 1, "one channel, as Apple's")
        // The carried EXIF is the original's, maker note and all.
        let carriedHeadroom = try #require(tags["Apple:HDRHeadroom"] as? Double)
        #expect(abs(carriedHeadroom - 63809.0 / 75674.0) < 1e-9)
    }

    @Test(
        "The carried gain map is the original's, resized by an independent area average and remapped: SSIM-Y ≥ 0.98; coded whole or as a grid of tiles (an iPhone's full-size gain map)",
        arguments: [Self.photo, "heic/gainmap/iphone-hdr-grid.heic"])
    func gainMapPixels(file: String) throws {
        let photo = try Self.preparer(maxEdge: 160).prepareBlocking(Fixtures.data(file), name: "hdr.heic")
        let gainMap = try #require(photo.uploadGainMap)
        let resized = try DecodedJPEG(Fixtures.data(Self.referenceGainMap)).luma.areaResized(to: gainMap.size)
        // Apple's sample a, linearized by Rec. 709's inverse transfer, boosts by 1 + (H - 1) a;
        // Ultra HDR's g by H^g. Written out here again, apart from the code under test.
        let headroom = pow(2, Self.expectedStops)
        let remapped = resized.samples.map { sample -> UInt8 in
            let v = Double(sample) / 255
            let linear = v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
            return UInt8((255 * log2(1 + (headroom - 1) * linear) / log2(headroom)).rounded())
        }
        let reference = DecodedJPEG.Plane(width: resized.width, height: resized.height, samples: remapped)
        let carried = try DecodedJPEG(gainMap.data).luma
        let ssim = lumaSSIM(reference, carried)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
        // And not the unmapped one: the remap moves mid-tones by far more than JPEG's loss.
        let unmapped = lumaSSIM(resized, carried)
        #expect(unmapped < ssim, "SSIM against the unmapped gain map \(unmapped)")
        let meanShift =
            zip(resized.samples, carried.samples).map { abs(Int($1) - Int($0)) }.reduce(0, +) / carried.samples.count
        #expect(meanShift >= 5, "the remap moves the samples; mean difference \(meanShift)")
    }

    @Test("A portrait HDR HEIC (irot on the photo alone): the gain map is turned as the upload is")
    func portraitPhoto() throws {
        let portrait = try Self.preparer().prepareBlocking(
            Fixtures.data("heic/gainmap/iphone-hdr-rotated.heic"), name: "portrait.heic")
        #expect(portrait.warnings.isEmpty, "\(portrait.warnings)")
        #expect(portrait.upload.size == PixelSize(width: 240, height: 320))
        let turned = try DecodedJPEG(#require(portrait.uploadGainMap).data).luma
        #expect(turned.width == 120 && turned.height == 160)
        // The landscape photo's gain map, turned a quarter clockwise here (irot 3, Orientation 6).
        let landscape = try DecodedJPEG(
            #require(Self.preparer().prepareBlocking(Fixtures.data(Self.photo), name: "hdr.heic").uploadGainMap).data
        ).luma
        var samples: [UInt8] = []
        for y in 0..<landscape.width {
            for x in 0..<landscape.height { samples.append(landscape[y, landscape.height - 1 - x]) }
        }
        let expected = DecodedJPEG.Plane(width: landscape.height, height: landscape.width, samples: samples)
        let ssim = lumaSSIM(expected, turned)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
    }

    @Test("The display copy and the thumbnail of an HDR HEIC stay SDR, and the photo's own copies are unchanged")
    func strippedCopiesStaySDR() throws {
        let original = try Fixtures.data(Self.photo)
        let photo = try Self.preparer().prepareBlocking(original, name: "hdr.heic")
        let sdr = try Self.preparer(carriesGainMap: false).prepareBlocking(original, name: "hdr.heic")
        #expect(photo.display == sdr.display && photo.thumbnail == sdr.thumbnail)
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            #expect(copy.data.firstRange(of: Data("hdrgm".utf8)) == nil)
            #expect(copy.data.firstRange(of: Data("MPF\0".utf8)) == nil)
        }
        #expect(photo.metadata == sdr.metadata)
        #expect(photo.upload.data.prefix(2) == Data([0xFF, 0xD8]) && photo.upload.data.count > sdr.upload.data.count)
    }

    @Test("carriesGainMap off: the HDR HEIC's upload is the SDR photo alone, no MPF, no XMP, and no warning")
    func optOut() throws {
        let photo = try Self.preparer(carriesGainMap: false).prepareBlocking(
            Fixtures.data(Self.photo), name: "sdr.heic")
        #expect(photo.uploadGainMap == nil && photo.warnings.isEmpty, "\(photo.warnings)")
        #expect(photo.upload.data.firstRange(of: Data("hdrgm".utf8)) == nil)
        #expect(photo.upload.data.firstRange(of: Data("MPF\0".utf8)) == nil)
    }

    @Test("The Ultra HDR upload of an HDR HEIC prepared again is Ultra HDR again, with the same hdrgm values")
    func roundTrip() throws {
        let first = try Self.preparer().prepareBlocking(Fixtures.data(Self.photo), name: "hdr.heic")
        let again = try Self.preparer(maxEdge: 160).prepareBlocking(first.upload.data, name: "again.jpg")
        #expect(again.warnings.isEmpty, "\(again.warnings)")
        #expect(again.uploadGainMap?.size == PixelSize(width: 80, height: 60))
        let metadata = try first.upload.data.withUnsafeBytes { bytes in
            try #require(UltraHDRSource.find(in: bytes, layout: SegmentWalker.walk(bytes))).get().metadata
        }
        #expect(metadata.gainMapMax == ["1.8"] && metadata.hdrCapacityMax == "1.8" && metadata.offsetSDR == ["0"])
    }

    @Test(
        "Apple's formula, each branch: HDRHeadroom below or from 1, HDRGain up to or above 0.01",
        arguments: [
            (0.5, 0.005, -20 * 0.005 + 1.8), (0.5, 1.0, -0.101 + 1.601), (1.0, 0.0, 3.0), (2.0, 1.0, -0.303 + 2.303),
        ])
    func applesFormula(maker33: Double, maker48: Double, stops: Double) {
        let headroom = AppleHDRHeadroom(maker33: maker33, maker48: maker48)
        #expect(abs(headroom.stops - stops) < 1e-12)
        #expect(abs(headroom.headroom - pow(2, stops)) < 1e-9)
        let samples = headroom.ultraHDRSamples
        #expect(samples.first == 0 && samples.last == 255, "no boost maps to none, the full boost to the full one")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0 <= $1 }, "the map keeps the order")
    }

    /// A way the HDR HEIC's gain map or its metadata is missing, odd or hostile.
    struct Breakage: CustomStringConvertible, Sendable {
        let description: String
        /// What the warning must say.
        let cause: String
        let file: String
        let edit: @Sendable (inout [UInt8]) throws -> Void

        init(
            _ description: String, cause: String, file: String = HEIFGainMapTests.photo,
            edit: @escaping @Sendable (inout [UInt8]) throws -> Void = { _ in }
        ) {
            self.description = description
            self.cause = cause
            self.file = file
            self.edit = edit
        }
    }

    static let breakages: [Breakage] = [
        Breakage("no Apple maker note", cause: "no maker note", file: "heic/gainmap/no-maker-note.heic"),
        Breakage("HDRGain 0/0, not a number", cause: "not a number") { bytes in
            try AppleMakerNote(bytes).write(rational: (0, 0), tag: 0x0030, in: &bytes)
        },
        Breakage("HDRHeadroom 1 and HDRGain 8: -0.303 × 8 + 2.303 < 0 stops", cause: "no headroom over SDR") { bytes in
            let note = try AppleMakerNote(bytes)
            note.write(rational: (1, 1), tag: 0x0021, in: &bytes)
            note.write(rational: (8, 1), tag: 0x0030, in: &bytes)
        },
        Breakage("HDRGain -100: 2001.8 stops", cause: "more than 10 stops") { bytes in
            try AppleMakerNote(bytes).write(rational: (UInt32(bitPattern: -100), 1), tag: 0x0030, in: &bytes)
        },
        Breakage("a maker note that is not Apple's", cause: "not Apple's") { bytes in
            try replace("Apple iOS", with: "Apple iOX", in: &bytes)
        },
        Breakage("a gain map without HDRGainMapVersion in its XMP", cause: "HDRGainMapVersion") { bytes in
            try replace("HDRGainMapVersion>", with: "HDRGainMapVersiom>", in: &bytes)
        },
        Breakage("an auxiliary image of another type with the gain map's XMP", cause: "not of a gain map type") {
            bytes in
            try replace("aux:hdrgainmap", with: "aux:hdrgainmaq", in: &bytes)
        },
        Breakage(
            "a gain map of 40000x40000 (libheif refuses the whole file for it)", cause: "more than the limit",
            file: "heic/gainmap/hostile/aux-ispe-40000x40000.heic"),
        Breakage(
            "a gain map whose SPS declares 30000x30000", cause: "more than the limit",
            file: "heic/gainmap/hostile/aux-sps-30000x30000.heic"),
        Breakage(
            "a gain map of 0x0", cause: "a width or a height of 0", file: "heic/gainmap/hostile/aux-ispe-0x0.heic"),
        Breakage(
            "a gain map not in the photo's proportions", cause: "not in the proportions",
            file: "heic/gainmap/hostile/aux-aspect-160x40.heic"),
        Breakage(
            "a gain map coded as VVC", cause: "coded as VVC", file: "heic/gainmap/hostile/aux-vvc-codec.heic"),
        Breakage(
            "a gain map that is an identity of the photo, in a loop", cause: "loop",
            file: "heic/gainmap/hostile/aux-identity-loop.heic"),
    ]

    @Test(
        "A missing, odd or hostile gain map gives the SDR upload, byte for byte, with one gain-map warning",
        arguments: breakages)
    func brokenGainMap(_ breakage: Breakage) throws {
        var bytes = try [UInt8](Fixtures.data(breakage.file))
        try breakage.edit(&bytes)
        let photo = try Self.preparer().prepareBlocking(Data(bytes), name: "broken.heic")
        let sdr = try Self.preparer(carriesGainMap: false).prepareBlocking(Data(bytes), name: "broken.heic")
        #expect(photo.uploadGainMap == nil)
        let gainMapWarnings = photo.warnings.filter { $0.kind == .gainMap }
        #expect(gainMapWarnings.count == 1, "\(photo.warnings)")
        #expect(photo.warnings.filter { $0.kind != .gainMap } == sdr.warnings)
        #expect(sdr.warnings.allSatisfy { $0.kind != .gainMap })
        #expect(photo.upload == sdr.upload, "the upload is exactly the SDR one")
        #expect(photo.display == sdr.display && photo.thumbnail == sdr.thumbnail)
        let warning = gainMapWarnings.first?.message ?? ""
        #expect(warning.hasPrefix("the HDR gain map is left out of the upload") && warning.contains(breakage.cause))
        #expect(!warning.contains("37.33") && !warning.contains("122.0"), "no coordinate in \(warning)")
    }

    @Test("An HEIC without a gain map, but with Apple's maker note (the iPhone-like grid), gets no gain-map warning")
    func sdrHEIC() throws {
        let photo = try Self.preparer().prepareBlocking(
            Fixtures.data("heic/iphone-like-grid-p3-rotated.heic"), name: "iphone.heic")
        #expect(photo.uploadGainMap == nil)
        #expect(!photo.warnings.contains { $0.kind == .gainMap }, "\(photo.warnings)")
    }

    static func replace(_ old: String, with new: String, in bytes: inout [UInt8]) throws {
        let range = try #require(bytes.firstRange(of: Array(old.utf8)), "'\(old)' is in the fixture")
        bytes.replaceSubrange(range, with: Array(new.utf8))
    }
}

/// The Apple maker note in the fixture's Exif item, found by its signature and walked here
/// (big-endian, its IFD at 14, its offsets from its first byte), apart from the code under test.
struct AppleMakerNote {
    let start: Int
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) throws {
        start = try #require(bytes.firstRange(of: Array("Apple iOS\0".utf8))).lowerBound
        self.bytes = bytes
    }

    private func bigEndian(_ at: Int, _ width: Int) -> Int { (0..<width).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }

    /// Writes the SRATIONAL value of `tag` (numerator, denominator).
    func write(rational: (UInt32, UInt32), tag: Int, in target: inout [UInt8]) {
        let ifd = start + 14
        for index in 0..<bigEndian(ifd, 2) {
            let entry = ifd + 2 + 12 * index
            guard bigEndian(entry, 2) == tag else { continue }
            let at = start + bigEndian(entry + 8, 4)
            for (offset, value) in [(0, rational.0), (4, rational.1)] {
                for byte in 0..<4 { target[at + offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * (3 - byte))) }
            }
            return
        }
        Issue.record("no tag \(tag) in the maker note")
    }
}

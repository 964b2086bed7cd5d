import Foundation
import Testing

@testable import ImagePrep

/// The HDR photos of today's phones (`Tests/Fixtures/phones`, their rows in its MANIFEST.tsv), each
/// uploaded as an Ultra HDR JPEG whose gain map says the headroom the phone wrote, as exiftool
/// reads it; and the HEIC forms made by `heic/gainmap/make.sh` that they stand for: the ISO
/// 21496-1 `tmap` item, preferred to what Apple's metadata gives, Apple's version 2 headroom, and
/// Samsung's hdrgm XMP.
@Suite("HDR photos from today's phones: each upload carries the gain map with the phone's headroom")
struct PhoneHDRTests {
    /// A phone photo and the headroom, in stops, its MANIFEST row gives.
    struct Phone: CustomStringConvertible, Sendable {
        let file: String
        let stops: Double
        /// Whether the gain map's metadata is ISO 21496-1 (a `tmap`), carried as APP2 blocks too.
        let isISO: Bool
        var description: String { file }
    }

    static let heicPhones = [
        Phone(file: "phones/iphone15plus-ios18.2-hdr-tmap.heic", stops: 2.787109, isISO: true),
        Phone(file: "phones/galaxy-s25ultra-hdr-gainmap.heic", stops: 2.3, isISO: true),
    ]

    static let jpegPhones = [
        Phone(file: "phones/ultrahdr-extended-xmp-lamps.jpg", stops: 2.990012, isISO: false),
        Phone(file: "phones/iphone-jpeg-apple-gainmap-v1.jpg", stops: 3, isISO: false),
    ]

    /// What exiftool reads in the upload's gain map (`-b -MPImage2`), with the upload's own tags.
    static func exiftoolReading(of upload: Data) throws -> (upload: [String: Any], gainMap: [String: Any]) {
        let tags = try Exiftool.tags(of: upload)
        let gainMap = try Exiftool.run(["-b", "-MPImage2", "-"], input: upload)
        return (tags, try Exiftool.tags(of: gainMap))
    }

    /// Checks the upload of `file` against `stops` as exiftool reads it: GainMapMax and
    /// HDRCapacityMax, its MPF index and container directory, one gray channel.
    static func expectUltraHDR(_ photo: PreparedPhoto, stops: Double, label: String) throws {
        #expect(photo.warnings.isEmpty, "\(label): \(photo.warnings)")
        let gainMap = try #require(photo.uploadGainMap, "\(label)")
        let (tags, gainMapTags) = try exiftoolReading(of: photo.upload.data)
        #expect(tags["MPF0:NumberOfImages"] as? Int == 2, "\(label)")
        #expect(tags["MPImage2:MPImageLength"] as? Int == gainMap.data.count, "\(label)")
        #expect(tags["XMP-Container:DirectoryItemLength"] as? Int == gainMap.data.count, "\(label)")
        for name in ["GainMapMax", "HDRCapacityMax"] {
            let read = gainMapTags["XMP-hdrgm:\(name)"] as? Double
            #expect(read != nil && abs(read! - stops) < 1e-6, "\(label): \(name) \(String(describing: read))")
        }
        #expect(gainMapTags["File:ColorComponents"] as? Int == 1, "\(label)")
    }

    @Test(
        "Each HEIC phone photo is uploaded with its gain map and the headroom its MANIFEST row gives",
        arguments: heicPhones)
    func heicPhone(_ phone: Phone) throws {
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(phone.file), name: phone.file)
        try Self.expectUltraHDR(photo, stops: phone.stops, label: phone.file)
        let gainMap = try #require(photo.uploadGainMap)
        // Half the photo's size on each side for the iPhone, a quarter for the Galaxy, as stored.
        #expect(gainMap.size.width * 2 <= photo.upload.size.width)
    }

    @Test(
        "Each JPEG phone photo (Extended XMP, Apple's MPF gain map) is uploaded with its gain map and the headroom its MANIFEST row gives",
        arguments: jpegPhones)
    func jpegPhone(_ phone: Phone) throws {
        let original = try Fixtures.data(phone.file)
        let photo = try PhotoPreparer().prepareBlocking(original, name: phone.file)
        try Self.expectUltraHDR(photo, stops: phone.stops, label: phone.file)
        #expect(GainMapTests.isoSegments(photo.upload.data).isEmpty && !phone.isISO)
    }

    @Test(
        "An iPhone JPEG's gain map is remapped by Apple's formula as a HEIC's is (3 stops): SSIM-Y ≥ 0.98 against the original's, remapped here"
    )
    func appleJPEGSamples() throws {
        let original = try Fixtures.data(Self.jpegPhones[1].file)
        let photo = try PhotoPreparer().prepareBlocking(original, name: "iphone.jpg")
        let carried = try DecodedJPEG(#require(photo.uploadGainMap).data).luma
        let source = try DecodedJPEG(Exiftool.run(["-b", "-MPImage2", "-"], input: original)).luma
        #expect(source.width == carried.width && source.height == carried.height, "192x256 in the photo's 384x512")
        let headroom = 8.0
        let remapped = source.samples.map { sample -> UInt8 in
            let v = Double(sample) / 255
            let linear = v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
            return UInt8((255 * log2(1 + (headroom - 1) * linear) / log2(headroom)).rounded())
        }
        let ssim = lumaSSIM(DecodedJPEG.Plane(width: source.width, height: source.height, samples: remapped), carried)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
        #expect(lumaSSIM(source, carried) < ssim)
    }

    @Test(
        "An iPhone JPEG's gain map that cannot be used is left out with a warning naming why, the upload byte for byte the SDR one",
        arguments: [
            ("HDRGainMapVersion>", "HDRGainMapVersiom>", "HDRGainMapVersion"),
            ("Apple iOS", "Apple iOX", "not Apple's"),
        ])
    func appleJPEGBroken(old: String, new: String, cause: String) throws {
        var bytes = try [UInt8](Fixtures.data(Self.jpegPhones[1].file))
        try HEIFGainMapTests.replace(old, with: new, in: &bytes)
        let photo = try PhotoPreparer().prepareBlocking(Data(bytes), name: "broken.jpg")
        var preparer = PhotoPreparer()
        preparer.configuration.carriesGainMap = false
        let sdr = try preparer.prepareBlocking(Data(bytes), name: "broken.jpg")
        #expect(photo.upload == sdr.upload && photo.uploadGainMap == nil)
        let warnings = photo.warnings.filter { $0.kind == .gainMap }.map(\.message)
        #expect(warnings.count == 1 && warnings[0].contains(cause), "\(warnings)")
    }

    @Test(
        "A tmap's ISO 21496-1 block is carried byte for byte in the gain map's APP2, the version in the primary's",
        arguments: heicPhones)
    func isoBlockCarried(_ phone: Phone) throws {
        let original = try Fixtures.data(phone.file)
        let toneMap = try original.withUnsafeBytes { bytes in
            try #require(try HEIFContainer(bytes).toneMapMetadata()).get()
        }
        let photo = try PhotoPreparer().prepareBlocking(original, name: phone.file)
        let gainMap = try #require(photo.uploadGainMap).data
        let signature = Data(UltraHDRSource.isoSignature)
        #expect(GainMapTests.isoSegments(photo.upload.data).map { $0.dropFirst(4) } == [signature + [0, 0, 0, 0]])
        #expect(GainMapTests.isoSegments(gainMap).map { $0.dropFirst(4) } == [signature + toneMap.block])
        // Read again from the upload's gain map, the block says what the tmap says.
        let carried = try #require(GainMapTests.isoSegments(gainMap).first).dropFirst(4 + signature.count)
        #expect(try carried.withUnsafeBytes { try ISOGainMapMetadata.read($0).get() } == toneMap.metadata)
    }

    @Test("iPhone 15 Plus, iOS 18.2: the tmap, the maker note and the gain map's own XMP all say 2.787 stops")
    func iPhoneSourcesAgree() throws {
        let original = try Fixtures.data("phones/iphone15plus-ios18.2-hdr-tmap.heic")
        let (toneMap, xmp, tiff) = try original.withUnsafeBytes { bytes in
            let container = try HEIFContainer(bytes)
            let toneMap = try #require(container.toneMapMetadata()).get()
            return (
                toneMap, container.xmpPackets(describing: try #require(container.gainMapItem)), try Self.tiff(of: bytes)
            )
        }
        let fromToneMap = try #require(Double(toneMap.metadata.hdrCapacityMax))
        let fromMakerNote = try tiff.withUnsafeBytes { try AppleHDRHeadroom.read(tiff: $0).get() }.stops
        let fromXMP = try #require(xmp.lazy.compactMap { AppleHDRHeadroom.read(gainMapXMP: $0) }.first).get().stops
        #expect(abs(fromToneMap - 2.787109) < 1e-9)
        #expect(abs(fromMakerNote - (-70 * 0.003041189164 + 3)) < 1e-6)
        #expect(abs(fromXMP - log2(6.902454)) < 1e-9)
        for stops in [fromMakerNote, fromXMP] { #expect(abs(stops - fromToneMap) < 0.001, "\(stops)") }
    }

    /// The TIFF block of the primary's Exif item, found by its offset (Apple's: 6, `Exif\0\0`).
    static func tiff(of bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        let container = try HEIFContainer(bytes)
        let exif = try #require(container.items.values.first { $0.type == FourCC.exif })
        let data = exif.extents.flatMap { Array(bytes[$0]) }
        return Array(data.dropFirst(4 + 6))
    }

    @Test("The crafted tmap (2.5 stops) wins over the maker note (1.8): its values carried, the samples as they are")
    func toneMapPreferred() throws {
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("heic/gainmap/iphone-hdr-tmap.heic"), name: "tmap.heic")
        try Self.expectUltraHDR(photo, stops: 2.5, label: "tmap")
        let (_, gainMapTags) = try Self.exiftoolReading(of: photo.upload.data)
        #expect(gainMapTags["XMP-hdrgm:OffsetSDR"] as? Double == 0.015625)
        // Its samples are the original's resized, not remapped as Apple's formula would.
        let gainMap = try DecodedJPEG(#require(photo.uploadGainMap).data).luma
        let original = try DecodedJPEG(Fixtures.data(HEIFGainMapTests.referenceGainMap)).luma.areaResized(
            to: PixelSize(width: gainMap.width, height: gainMap.height))
        let ssim = lumaSSIM(original, gainMap)
        #expect(ssim >= 0.98, "SSIM \(ssim)")
    }

    @Test(
        "The crafted forms no real file here has: iOS 26's layout (mattes, a style delta map, a linear thumbnail, each an auxl of the photo and the tmap: its tmap's 2.5 stops), an iPhone JPEG whose gain map XMP is version 2 (its HDRGainMapHeadroom 4: 2 stops, not the maker note's 3)",
        arguments: [("heic/gainmap/iphone-ios26-like.heic", 2.5), ("crafted/iphone-jpeg-apple-gainmap-v2.jpg", 2)])
    func craftedForm(file: String, stops: Double) throws {
        let photo = try PhotoPreparer().prepareBlocking(Fixtures.data(file), name: file)
        try Self.expectUltraHDR(photo, stops: stops, label: file)
    }

    @Test("A version 2 gain map's HDRGainMapHeadroom (4, 2 stops) wins over the maker note (1.8), its samples remapped")
    func appleVersion2() throws {
        let photo = try PhotoPreparer().prepareBlocking(
            Fixtures.data("heic/gainmap/iphone-hdr-v2.heic"), name: "v2.heic")
        try Self.expectUltraHDR(photo, stops: 2, label: "v2")
        let (_, gainMapTags) = try Self.exiftoolReading(of: photo.upload.data)
        #expect(gainMapTags["XMP-hdrgm:Gamma"] as? Double == 1 && gainMapTags["XMP-hdrgm:OffsetSDR"] as? Double == 0)
    }

    /// A byte edit of a HEIC that changes where its gain map's meaning comes from, or breaks it.
    struct Edit: CustomStringConvertible, Sendable {
        let description: String
        let file: String
        /// The stops carried, or the words of the warning when none is.
        let stops: Double?
        let cause: String?
        let edit: @Sendable (inout [UInt8]) throws -> Void
    }

    static let edits = [
        Edit(
            description: "Samsung's gain map without its tmap: its own hdrgm XMP, 2.300000", file: heicPhones[1].file,
            stops: 2.3, cause: nil, edit: { try hideToneMap(in: &$0) }),
        Edit(
            description: "Samsung's without a tmap, its hdrgm XMP without GainMapMax", file: heicPhones[1].file,
            stops: nil, cause: "a value of its hdrgm metadata is missing"
        ) { bytes in
            try hideToneMap(in: &bytes)
            try HEIFGainMapTests.replace("GainMapMax=", with: "GainMapMay=", in: &bytes)
        },
        Edit(
            description: "a Samsung gain map of another type, without a tmap: its XMP says hdrgm",
            file: heicPhones[1].file,
            stops: nil, cause: "not of a gain map type read here"
        ) { bytes in
            try hideToneMap(in: &bytes)
            try HEIFGainMapTests.replace("samsung:photo:2024:aux", with: "samsung:photo:2099:aux", in: &bytes)
        },
        Edit(
            description: "a tmap of version 1: Apple's metadata instead, 1.8 stops",
            file: "heic/gainmap/iphone-hdr-tmap.heic", stops: 1.8, cause: nil,
            edit: { try setToneMapVersion(1, in: &$0) }),
        Edit(
            description: "a tmap of version 1 and no Apple maker note: the tmap's problem is said",
            file: "heic/gainmap/iphone-hdr-tmap.heic", stops: nil, cause: "'tmap' item is of version 1"
        ) { bytes in
            try setToneMapVersion(1, in: &bytes)
            try HEIFGainMapTests.replace("Apple iOS", with: "Apple iOX", in: &bytes)
        },
    ]

    @Test("Where the gain map's meaning comes from, and what is said when none holds", arguments: edits)
    func meaning(_ edit: Edit) throws {
        var bytes = try [UInt8](Fixtures.data(edit.file))
        try edit.edit(&bytes)
        let photo = try PhotoPreparer().prepareBlocking(Data(bytes), name: "edited.heic")
        if let stops = edit.stops {
            try Self.expectUltraHDR(photo, stops: stops, label: edit.description)
        } else {
            #expect(photo.uploadGainMap == nil)
            let warnings = photo.warnings.filter { $0.kind == .gainMap }.map(\.message)
            #expect(warnings.count == 1 && warnings[0].contains(edit.cause ?? "?"), "\(warnings)")
        }
    }

    /// The tone-mapped image of `bytes`.
    static func toneMapItem(in bytes: [UInt8]) throws -> HEIFContainer.Item {
        try bytes.withUnsafeBytes { raw in
            let container = try HEIFContainer(raw)
            return try #require(container.toneMapItem.flatMap { container.items[$0] })
        }
    }

    /// Writes `version` over the tmap item's version byte.
    static func setToneMapVersion(_ version: UInt8, in bytes: inout [UInt8]) throws {
        bytes[try #require(toneMapItem(in: bytes).extents.first).lowerBound] = version
    }

    /// Gives the tmap item a type no reader knows, as a file without one.
    static func hideToneMap(in bytes: inout [UInt8]) throws {
        let at = try toneMapItem(in: bytes).typeOffset
        bytes.replaceSubrange(at..<(at + 4), with: Array("tmaq".utf8))
    }

    @Test("--no-gain-map is silent: the phones' HEIC uploads are SDR, with no warning", arguments: heicPhones)
    func optOut(_ phone: Phone) throws {
        var preparer = PhotoPreparer()
        preparer.configuration.carriesGainMap = false
        let photo = try preparer.prepareBlocking(Fixtures.data(phone.file), name: phone.file)
        #expect(photo.uploadGainMap == nil && photo.warnings.isEmpty, "\(photo.warnings)")
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// The JPEG XL, JPEG 2000 and Photoshop sources on real files (`Tests/Fixtures/formats`, see
/// its README-jxl-j2k-psd-raw.md): each upload against the picture an independent decoder gives
/// (`references/`, made by `make-references-jxl-j2k-psd.sh`), the metadata each carries, the
/// reduced-resolution JPEG 2000 decode, and the refusals in words.
@Suite("JPEG XL, JPEG 2000 and PSD sources")
struct FormatSourceTests {
    /// Each fixture and the least PSNR its upload keeps against the reference: the animation's
    /// first frame has alpha, composited over white a little differently by libvips.
    static let pictures: [(file: String, minimumPSNR: Double)] = [
        ("jxl-codestream-naked-bicycles-conformance.jxl", 32),
        ("jxl-codestream-naked-animated-conformance.jxl", 27),
        ("jxl-container-jpeg-reconstruction-cafe-conformance.jxl", 34),
        ("j2k-codestream-named-jp2-relax-sharp.jp2", 31),
        ("jp2-tiled-lossy-testcard-pillow.jp2", 31),
        ("jp2-restricted-icc-exifr.jp2", 32),
        ("jp2-tileparts-relax-sharp.jp2", 34),
        ("j2k-codestream-balloon-metadata-extractor.j2c", 33),
        ("j2k-codestream-16bit-pillow.j2k", 45),
        ("psd-rgb-layers-composite-hopper-pillow.psd", 31),
        ("psd-rgb-8bit-composite-adobehq-twelvemonkeys.psd", 32),
        ("psd-cmyk-8bit-twelvemonkeys.psd", 31),
        ("psd-rgb-extra-alpha-channels-twelvemonkeys.psd", 32),
    ]

    static func prepare(
        _ file: String, configuration: PhotoPreparer.Configuration = .init(),
        workspace: PreparationWorkspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
    ) throws -> PreparedPhoto {
        try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data("formats/" + file), name: file, workspace: workspace)
    }

    @Test("the upload is the picture an independent decoder gives, at the upload's size", arguments: pictures)
    func matchesReference(file: String, minimumPSNR: Double) throws {
        let photo = try Self.prepare(file)
        let name = (file as NSString).deletingPathExtension
        let reference = try DecodedJPEG(Fixtures.data("formats/references/\(name).jpg"), makingRGB: true)
        let upload = try DecodedJPEG(photo.upload.data, makingRGB: true)
        #expect(upload.size == reference.size)
        #expect(max(upload.size.width, upload.size.height) <= 2048)
        let ours = try #require(upload.rgb).map(Double.init)
        let theirs = try #require(reference.rgb).map(Double.init)
        try #require(ours.count == theirs.count, "\(upload.componentCount) and \(reference.componentCount) components")
        let measured = psnr(theirs, ours)
        #expect(measured >= minimumPSNR, "\(file): \(measured) dB")
    }

    @Test("a JPEG XL container's Exif and xml boxes are read and carried, with Orientation 1")
    func jxlContainerMetadata() throws {
        let photo = try Self.prepare("jxl-container-exif-xmp-box-1x1-libjxl-testdata.jxl")
        let upload = photo.upload.data
        #expect(upload.range(of: Data("Exif\0\0".utf8)) != nil)
        #expect(upload.range(of: Data("Created with GIMP".utf8)) != nil)
        #expect(upload.range(of: Data("http://ns.adobe.com/xap/1.0/\0".utf8)) != nil)
        #expect(upload.range(of: Data("gimp:docid:gimp".utf8)) != nil)
        #expect(photo.metadata.orientation == .up)
    }

    @Test("an animated JPEG XL gives its first frame, with a warning that says so")
    func jxlAnimation() throws {
        let photo = try Self.prepare("jxl-codestream-naked-animated-conformance.jxl")
        #expect(photo.warnings.contains { $0.message.contains("animation") })
        #expect(photo.upload.size == PixelSize(width: 480, height: 360))
    }

    @Test("a JPEG 2000 file is decoded at the smallest resolution level still at least the upload's size")
    func jpeg2000ReducedLevel() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 1000
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
        let photo = try Self.prepare(
            "j2k-codestream-balloon-metadata-extractor.j2c", configuration: configuration, workspace: workspace)
        // 2717 x 3701 halved once is 1359 x 1851, still over 734 x 1000; halved twice it is not.
        #expect(workspace.lastDecode.size == PixelSize(width: 1359, height: 1851))
        #expect(photo.upload.size == PixelSize(width: 734, height: 1000))
        #expect(photo.metadata.originalSize == PixelSize(width: 2717, height: 3701))
    }

    @Test("a JP2 file's restricted ICC profile and its EXIF uuid box are carried")
    func jp2Metadata() throws {
        let photo = try Self.prepare("jp2-restricted-icc-exifr.jp2")
        let upload = photo.upload.data
        #expect(upload.range(of: Data("ICC_PROFILE\0".utf8)) != nil)
        #expect(photo.metadata.cameraMake == "NIKON CORPORATION")
        #expect(photo.metadata.cameraModel == "NIKON D2X")
        #expect(upload.range(of: Data("http://ns.adobe.com/xap/1.0/\0".utf8)) != nil)
    }

    @Test("a JPEG 2000 file whose header declares more than the decode-memory budget is refused before decoding")
    func jpeg2000MemoryBudget() throws {
        var bytes = try [UInt8](Fixtures.data("formats/j2k-codestream-named-jp2-relax-sharp.jp2"))
        // SIZ: FF4F FF51 Lsiz Rsiz Xsiz Ysiz XOsiz YOsiz XTsiz YTsiz; a 12000 x 12000 picture of one tile.
        for (offset, value) in [(8, 12000), (12, 12000), (24, 12000), (28, 12000)] {
            bytes.replaceSubrange(offset..<(offset + 4), with: withUnsafeBytes(of: UInt32(value).bigEndian, Array.init))
        }
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 12000
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer(configuration: configuration).prepareBlocking(Data(bytes), name: "large.jp2")
        }
        guard case .tooMuchMemory(_, let byteCount, let budget) = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(byteCount == 12000 * 12000 * 3 * 4 * 2 && budget == DecodeMemoryBudget.bytes)
        #expect(error.code == "too_much_memory")
        configuration.maxPixels = 100_000_000
        #expect(
            throws: ImagePrepError.tooManyPixels(
                file: "large.jp2", size: PixelSize(width: 12000, height: 12000), limit: 100_000_000)
        ) { try PhotoPreparer(configuration: configuration).prepareBlocking(Data(bytes), name: "large.jp2") }
    }

    @Test("a PSD file's EXIF, XMP and ICC resources are carried")
    func psdMetadata() throws {
        let photo = try Self.prepare("psd-rgb-layers-composite-hopper-pillow.psd")
        let upload = photo.upload.data
        #expect(upload.range(of: Data("Exif\0\0".utf8)) != nil)
        #expect(upload.range(of: Data("ICC_PROFILE\0".utf8)) != nil)
        #expect(upload.range(of: Data("http://ns.adobe.com/xap/1.0/\0".utf8)) != nil)
    }

    @Test("a PSD file saved without its composite is refused in words, with its own code")
    func psdWithoutComposite() throws {
        let original = try [UInt8](Fixtures.data("formats/psd-rgb-layers-composite-hopper-pillow.psd"))
        let header = try original.withUnsafeBytes { try PSDHeader($0, file: "hopper.psd") }
        // The file cut where its image data section starts: the layers, and no composite.
        let cut = Data(original.prefix(original.count - header.imageData.count))
        let error = try #require(throws: ImagePrepError.self) {
            try PhotoPreparer().prepareBlocking(cut, name: "layers-only.psd")
        }
        #expect(error == .psdWithoutComposite(file: "layers-only.psd"))
        #expect(error.code == "psd_without_composite")
        #expect(error.description.contains("Maximize Compatibility"))
    }

    @Test("a PSD file whose version resource says its composite is not the real picture is refused")
    func psdBlankComposite() throws {
        var bytes = try [UInt8](Fixtures.data("formats/psd-rgb-8bit-composite-adobehq-twelvemonkeys.psd"))
        let offset = try bytes.withUnsafeBytes { raw in
            let header = try PSDHeader(raw, file: "adobehq.psd")
            let version = try #require(header.resources[PSDHeader.versionResource])
            return version.baseAddress! - raw.baseAddress! + 4
        }
        #expect(bytes[offset] == 1)
        bytes[offset] = 0
        #expect(throws: ImagePrepError.psdWithoutComposite(file: "blank.psd")) {
            try PhotoPreparer().prepareBlocking(Data(bytes), name: "blank.psd")
        }
    }
}

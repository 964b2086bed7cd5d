import Foundation
import Testing

@testable import ImagePrep

/// Real PNGs (8- and 16-bit, gray, palette with tRNS, alpha, Adam7, APNG, eXIf before and after
/// the image data, ImageMagick's raw EXIF text, iCCP, XMP) prepared as photos.
@Suite("PNG: prepared like a JPEG, with its metadata")
struct PNGSourceTests {
    @Test("every PNG fixture prepares, at its own size, its copies clean JPEGs", arguments: Fixtures.PNG.all)
    func prepares(path: String) throws {
        let photo = try Fixtures.prepared(path)
        let (width, height) = try Self.headerSize(path)
        #expect(photo.metadata.originalSize == PixelSize(width: width, height: height))
        #expect(photo.upload.size == photo.metadata.originalSize.fitting(longEdge: 2048))
        let isAnimated = path.contains("apng")
        #expect(photo.warnings.contains { $0.kind == .animation } == isAnimated, "\(photo.warnings)")
        #expect(photo.warnings.filter { $0.kind != .animation }.isEmpty, "\(path): \(photo.warnings)")
    }

    @Test("a gray PNG gives gray copies; a colour one, colour copies")
    func grayStaysGray() throws {
        let gray = try Fixtures.prepared("formats/png/png-grayscale-8bit-cicp-kodim03-libavif.png")
        #expect(try DecodedJPEG(gray.upload.data).componentCount == 1)
        let grayAlpha = try Fixtures.prepared("formats/png/png-16bit-gray-alpha-iccp-sharp.png")
        #expect(try DecodedJPEG(grayAlpha.upload.data).componentCount == 1)
        let color = try Fixtures.prepared("formats/png/png-8bit-rgb-testcard-pillow.png")
        #expect(try DecodedJPEG(color.upload.data).componentCount == 3)
    }

    @Test("transparency is composited on the configured background: white by default, black when asked")
    func background() throws {
        let path = "formats/png/png-palette-trns-thumbor.png"
        var black = PhotoPreparer.Configuration()
        black.background = .black
        let onWhite = try DecodedJPEG(Fixtures.prepared(path).upload.data).luma
        let onBlack = try DecodedJPEG(Fixtures.prepared(path, configuration: black).upload.data).luma
        // Its top left corner is transparent (its palette entry's tRNS alpha is 0).
        #expect(onWhite[2, 2] >= 250 && onBlack[2, 2] <= 5, "\(onWhite[2, 2]) \(onBlack[2, 2])")
    }

    @Test("a palette PNG's tRNS is applied: its transparent entry shows the background")
    func paletteTransparency() throws {
        let path = "formats/png/png-palette-trns-thumbor.png"
        var black = PhotoPreparer.Configuration()
        black.background = .black
        let onWhite = try DecodedJPEG(Fixtures.prepared(path).upload.data).luma.values
        let onBlack = try DecodedJPEG(Fixtures.prepared(path, configuration: black).upload.data).luma.values
        // Without tRNS both would be the same picture.
        let meanOnWhite: Double = onWhite.reduce(0, +) / Double(onWhite.count)
        let meanOnBlack: Double = onBlack.reduce(0, +) / Double(onBlack.count)
        #expect(meanOnWhite > meanOnBlack + 20, "\(meanOnWhite) \(meanOnBlack)")
    }

    @Test("16-bit samples are rounded to 8 bits, not truncated")
    func sixteenBitsRounded() {
        let format = PNGRowFormat(colorType: 2, bitDepth: 16, hasTransparency: false)
        // 0x00FF is 0.99 of a level: 1, where keeping the high byte (libspng's RGBA8) gives 0;
        // 0x017F is 1.49: 1; 0x0182 is 1.51: 2 (the high byte: 1). The fourth sample is unused.
        let samples: [UInt16] = [0x00FF, 0x017F, 0x0182, 0xAAAA, 0xFFFF, 0x8000, 0x0000, 0x1234]
        var row = [UInt8](repeating: 0, count: 6)
        samples.withUnsafeBytes { format.narrow($0.baseAddress!, width: 2, into: &row) }
        #expect(row == [1, 1, 2, 255, 128, 0])
        #expect(format.layout == .rgb)
    }

    @Test("an Adam7 PNG gives the picture its non-interlaced twin gives")
    func interlaced() throws {
        let photo = try Fixtures.prepared("formats/png/png-interlaced-adam7-rgba-pillow.png")
        #expect(photo.metadata.originalSize == PixelSize(width: 162, height: 150))
        // Not blank: Adam7's passes filled the whole picture in.
        let luma = try DecodedJPEG(photo.upload.data).luma.values
        let mean = luma.reduce(0, +) / Double(luma.count)
        #expect(luma.contains { abs($0 - mean) > 40 }, "a flat picture")
    }

    @Test("an APNG prepares its default image, with a warning that only one frame is carried")
    func animated() throws {
        let photo = try Fixtures.prepared("formats/png/png-apng-animated-iss634-pillow.apng")
        let warning = try #require(photo.warnings.first { $0.kind == .animation })
        #expect(warning.message.contains("only its first frame is prepared"), "\(warning)")
    }

    @Test("the eXIf chunk, even after the image data, is read and carried as the upload's APP1")
    func exifAfterImageData() throws {
        let photo = try Fixtures.prepared("formats/png/im-exif-after-idat-gps-offset-nokia.png")
        #expect(photo.metadata.captureTime?.local.iso8601 == "2022-08-14T14:12:31")
        #expect(photo.metadata.captureTime?.utcOffset?.description == "+03:00")
        #expect(photo.metadata.location != nil)
        let segments = UploadSegments.appSegments(of: photo.upload.data)
        #expect(
            segments.first?.marker == 0xE1 && segments.first?.payload.starts(with: JPEGLayout.exifSignature) == true)
        // Read back from the upload, it says the same.
        let again = PhotoMetadata.read(fromJPEG: photo.upload.data).metadata
        #expect(again.captureTime == photo.metadata.captureTime && again.location == photo.metadata.location)
        #expect(again.originalSize == photo.upload.size)
    }

    @Test("ImageMagick's raw EXIF text (zTXt \"Raw profile type exif\") is read as the eXIf chunk is")
    func rawProfileEXIF() throws {
        let fromChunk = try Fixtures.prepared("formats/png/im-exif-after-idat-gps-offset-nokia.png")
        let fromText = try Fixtures.prepared("formats/png/crafted-raw-profile-exif-zTXt.png")
        #expect(fromText.metadata == fromChunk.metadata)
        #expect(
            UploadSegments.appSegments(of: fromText.upload.data).first?.payload
                == UploadSegments.appSegments(of: fromChunk.upload.data).first?.payload)
    }

    @Test("the iTXt XMP is carried as an XMP APP1, the iCCP as ICC APP2 chunks; stripped copies carry neither")
    func xmpAndProfile() throws {
        let photo = try Fixtures.prepared("formats/png/png-iccp-xmp-orientation-pillow.png")
        let segments = UploadSegments.appSegments(of: photo.upload.data)
        let xmp = try #require(
            segments.first { $0.marker == 0xE1 && $0.payload.starts(with: GainMapMetadata.xmpSignature) })
        #expect(String(decoding: xmp.payload, as: UTF8.self).contains("tiff:Orientation"))
        #expect(segments.contains { $0.marker == 0xE2 && $0.payload.starts(with: JPEGLayout.iccSignature) })
        for copy in [photo.display, photo.thumbnail].compactMap({ $0 }) {
            #expect(UploadSegments.appSegments(of: copy.data).isEmpty, "a stripped copy carries metadata")
        }
        // XMP's tiff:Orientation is not EXIF's: the picture is not turned for it, as for a JPEG.
        #expect(photo.metadata.orientation == nil)
    }

    /// The IHDR's width and height, read here from the bytes (not by ImagePrep).
    static func headerSize(_ path: String) throws -> (Int, Int) {
        let bytes = [UInt8](try Fixtures.data(path))
        func word(_ offset: Int) -> Int { bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }
}

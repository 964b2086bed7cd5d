import Foundation
import Testing

@testable import ImagePrep

@Suite("BMP photos")
struct BMPSourceTests {
    @Test("a top-down BMP (negative height) gives the same copies as the bottom-up file it is turned from")
    func topDown() throws {
        let name = "bmp-24bit-twelvemonkeys.bmp"
        let original = [UInt8](try Fixtures.data("formats/" + name))
        let header = try original.withUnsafeBytes { try BMPHeader($0, file: name) }
        var flipped = Array(original[..<header.pixelOffset])
        let height = header.size.height
        for row in (0..<height).reversed() {
            let start = header.pixelOffset + row * header.stride
            flipped += original[start..<(start + header.stride)]
        }
        let negative = UInt32(bitPattern: Int32(-height))
        for index in 0..<4 { flipped[22 + index] = UInt8(truncatingIfNeeded: negative >> (8 * UInt32(index))) }
        let bottomUp = try Fixtures.preparedFormat(name)
        let topDown = try PhotoPreparer().prepareBlocking(Data(flipped), name: "top-down.bmp")
        #expect(topDown.upload.data == bottomUp.upload.data)
    }

    @Test("an RLE8 BMP is the picture of the same photo stored with a plain palette")
    func rleMatchesPlain() throws {
        let rle = try DecodedJPEG(Fixtures.preparedFormat("bmp-rle8-imagemagick-twelvemonkeys.bmp").upload.data)
        let plain = try DecodedJPEG(Fixtures.preparedFormat("bmp-8bit-palette-twelvemonkeys.bmp").upload.data)
        #expect(psnr(plain.luma.values, rle.luma.values) >= 40)
    }

    @Test("32-bit bit fields with alpha are composited over the background, not black")
    func alpha() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.background = .init(red: 255, green: 255, blue: 255)
        let white = try DecodedJPEG(
            Fixtures.preparedFormat("bmp-32bit-rgba-v5-bmpsuite-pillow.bmp", configuration: configuration).upload.data)
        configuration.background = .init(red: 0, green: 0, blue: 0)
        let black = try DecodedJPEG(
            Fixtures.preparedFormat("bmp-32bit-rgba-v5-bmpsuite-pillow.bmp", configuration: configuration).upload.data)
        let mean = { (plane: DecodedJPEG.Plane) in plane.values.reduce(0, +) / Double(plane.values.count) }
        #expect(mean(white.luma) > mean(black.luma) + 5, "\(mean(white.luma)) against \(mean(black.luma))")
    }

    @Test("headers that lie are refused in words, naming the field, before any pixel is read")
    func lyingHeaders() throws {
        let original = [UInt8](try Fixtures.data("formats/bmp-8bit-palette-twelvemonkeys.bmp"))
        let cases: [(offset: Int, bytes: [UInt8], words: String)] = [
            (10, [0xFF, 0xFF, 0xFF, 0x7F], "pixel data starts outside the file"),
            (28, [7, 0], "pairs 7 bits a pixel"),
            (30, [9, 0, 0, 0], "compression is of an unknown kind"),
            (18, [0, 0, 0, 0], "a size of 0 by"),
            (30, [2, 0, 0, 0], "pairs 8 bits a pixel"),
        ]
        for item in cases {
            var bytes = original
            bytes.replaceSubrange(item.offset..<(item.offset + item.bytes.count), with: item.bytes)
            #expect {
                try PhotoPreparer().prepareBlocking(Data(bytes), name: "lying.bmp")
            } throws: { error in
                (error as? ImagePrepError)?.code == "corrupt_bmp" && "\(error)".contains(item.words)
            }
        }
    }

    @Test("a palette count far larger than the file is cut to what the file holds")
    func hugePaletteCount() throws {
        var bytes = [UInt8](try Fixtures.data("formats/bmp-4bit-made.bmp"))
        bytes.replaceSubrange(46..<50, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let photo = try PhotoPreparer().prepareBlocking(Data(bytes), name: "palette.bmp")
        let plain = try Fixtures.preparedFormat("bmp-4bit-made.bmp")
        #expect(photo.upload.data == plain.upload.data)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Small files that declare enormous work: each is refused from its header before anything is
/// allocated, or prepared with its work bounded (a GIF's 100,000 frames are never decoded).
/// Each file is made here, byte by byte, as the README's "Bombs" section describes.
@Suite("GIF and WebP bombs: refused from the header, or bounded")
struct GIFWebPBombTests {
    /// A GIF89a: the screen, a 2-colour global table, the given blocks, the trailer.
    static func gif(screen: (Int, Int), blocks: [UInt8]) -> Data {
        var bytes = Array("GIF89a".utf8) + ByteWriter.little(screen.0, 2) + ByteWriter.little(screen.1, 2)
        bytes += [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        return Data(bytes + blocks + [0x3B])
    }

    /// An image descriptor of `size` at (0, 0) with one LZW sub-block: clear, index 0, end.
    static func gifImage(width: Int, height: Int) -> [UInt8] {
        [0x2C, 0, 0, 0, 0] + ByteWriter.little(width, 2) + ByteWriter.little(height, 2) + [0]
            + [2, 2, 0x44, 0x01, 0]
    }

    /// A RIFF WEBP around `chunks`, its size right.
    static func webp(_ chunks: [UInt8]) -> Data {
        Data(Array("RIFF".utf8) + ByteWriter.little(chunks.count + 4, 4) + Array("WEBP".utf8) + chunks)
    }

    static func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
        Array(fourCC.utf8) + ByteWriter.little(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
    }

    /// A VP8X header: flags, then the canvas's width and height less one, 24 bits each.
    static func vp8x(flags: UInt8, width: Int, height: Int) -> [UInt8] {
        chunk("VP8X", [flags, 0, 0, 0] + ByteWriter.little(width - 1, 3) + ByteWriter.little(height - 1, 3))
    }

    func refusal(_ data: Data, name: String) -> ImagePrepError? {
        do {
            _ = try PhotoPreparer().prepareBlocking(data, name: name)
            return nil
        } catch {
            return error
        }
    }

    @Test("a GIF of 1 KB that declares 65,535 x 65,535 (GIF's largest) is refused from its screen descriptor")
    func hugeGIF() throws {
        let bomb = Self.gif(screen: (65535, 65535), blocks: Self.gifImage(width: 65535, height: 65535))
        #expect(bomb.count < 1024)
        guard case .tooManyPixels(_, let size, _) = refusal(bomb, name: "bomb.gif") else {
            Issue.record("not refused for its size")
            return
        }
        #expect(size == PixelSize(width: 65535, height: 65535))
        // A small screen with a huge first frame: the frame's size is the picture's, also refused.
        let frame = Self.gif(screen: (1, 1), blocks: Self.gifImage(width: 65535, height: 65535))
        guard case .tooManyPixels = refusal(frame, name: "frame.gif") else {
            Issue.record("a huge first frame on a small screen is not refused")
            return
        }
    }

    @Test("a GIF of 100,000 frames is prepared from its first, with the animation warning")
    func hundredThousandFrames() throws {
        let frame = Self.gifImage(width: 1, height: 1)
        let bomb = Self.gif(screen: (1, 1), blocks: Array([[UInt8]](repeating: frame, count: 100_000).joined()))
        let photo = try PhotoPreparer().prepareBlocking(bomb, name: "frames.gif")
        #expect(photo.upload.size == PixelSize(width: 1, height: 1))
        #expect(photo.warnings.map(\.kind) == [.animation])
    }

    @Test("a WebP of 1 KB that declares 100,000 x 100,000 is refused from its VP8X header")
    func hugeWebP() throws {
        let bomb = Self.webp(
            Self.vp8x(flags: 0, width: 100_000, height: 100_000) + Self.chunk("VP8L", [0x2F, 0, 0, 0, 0]))
        #expect(bomb.count < 1024)
        guard case .tooManyPixels(_, let size, _) = refusal(bomb, name: "bomb.webp") else {
            Issue.record("not refused for its size")
            return
        }
        #expect(size == PixelSize(width: 100_000, height: 100_000))
    }

    @Test("an animated WebP with a 16,777,216-pixel-wide canvas is refused; one of 100,000 frames gives the first")
    func animatedWebP() throws {
        // A 1x1 frame: the ANMF header (place, size less one, duration, flags) around the VP8L
        // bitstream libvips writes for a black pixel; the ANIM chunk: background and loop count.
        let bitstream = Self.chunk("VP8L", [0x2F, 0, 0, 0, 0, 0x07, 0x10, 0x11, 0xFD, 0x0F, 0x44, 0x44, 0xFF, 0x03])
        let frame = Self.chunk("ANMF", [UInt8](repeating: 0, count: 12) + [100, 0, 0, 0] + bitstream)
        let anim = Self.chunk("ANIM", [0, 0, 0, 0, 0, 0])
        let huge = Self.webp(Self.vp8x(flags: 0x12, width: 1 << 24, height: 1 << 24) + anim + frame)
        guard case .tooManyPixels = refusal(huge, name: "canvas.webp") else {
            Issue.record("a huge canvas is not refused")
            return
        }
        // 4.6 MB: the demuxer's frame table grows with the file, never past it.
        let many = Self.webp(
            Self.vp8x(flags: 0x12, width: 1, height: 1) + anim
                + Array([[UInt8]](repeating: frame, count: 100_000).joined()))
        let photo = try PhotoPreparer().prepareBlocking(many, name: "frames.webp")
        #expect(photo.upload.size == PixelSize(width: 1, height: 1))
        #expect(photo.warnings.map(\.kind) == [.animation])
    }
}

/// Little-endian fields, as GIF and WebP (RIFF) write them.
enum ByteWriter {
    static func little(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

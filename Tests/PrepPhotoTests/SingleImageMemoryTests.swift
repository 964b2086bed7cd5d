import Foundation
import Testing

/// A single coded image at 10 bits is decoded by libde265 directly and converted a row at a
/// time while libde265 holds the picture (`directHEVCRowUpload`): nothing of its size beside it.
@Suite("HEIF: a 10-bit single image without a whole-image copy")
struct SingleImageMemoryTests {
    /// prep-photo's peak resident memory preparing the fixture at `path` with the defaults.
    static func peakMegabytes(preparing path: String) throws -> Double {
        try #require(
            FileManager.default.isExecutableFile(atPath: MemoryBoundTests.time),
            "\(MemoryBoundTests.time) (Debian package time) is missing")
        return try TemporaryFolder.with { folder in
            try MemoryBoundTests.peakMegabytes([], input: Fixtures.url(path).path, in: folder)
        }
    }

    /// `heic/ten-bit/heic-10-bit-4000x3000.heic`, 12 MP, one 10-bit coded picture with SAO on:
    /// libde265's picture and SAO copy are 72 MB, its per-block data about 18 MB; measured 105 MB
    /// (vipsthumbnail: 208). It took 204 MB when libheif converted it to 8-bit YCbCr (through
    /// RGB) and the planes were copied, and 134 MB without SAO from libheif's planes a row at a
    /// time, where libheif's copy and RGB planes came beside libde265's.
    @Test("a 12 MP 10-bit HEIC prepares within 130 MB, where libheif's copies took 134 to 204")
    func tenBitSingleImage() throws {
        let peak = try Self.peakMegabytes(preparing: "heic/ten-bit/heic-10-bit-4000x3000.heic")
        #expect(peak <= 130, "\(peak) MB")
    }

    /// `heic/large/heic-10-bit-8640x5760.heic`, a camera's 50 MP 10-bit HEIF (8640x5760, one coded
    /// picture, SAO on): libde265's picture and SAO copy are 285 MB, its per-block data about
    /// 70 MB; measured 364 MB (vipsthumbnail: 652). Through libheif its copy and RGB planes would
    /// come on top: 427 MB declared, refused.
    @Test("a 50 MP 10-bit HEIC, a camera's, prepares within 400 MB")
    func fiftyMegapixelTenBit() throws {
        let peak = try Self.peakMegabytes(preparing: "heic/large/heic-10-bit-8640x5760.heic")
        #expect(peak <= 400, "\(peak) MB")
        #expect(peak > 200, "\(peak) MB: the picture was decoded")
    }

    /// `heic/ten-bit/avif-10-bit-4000x3000.avif`, the same 12 MP picture as one 10-bit 4:2:2 AV1
    /// picture: dav1d's picture is 48 MB. Through libheif (dav1d's frame-threaded decode, libheif's
    /// copy of its picture, then RGB planes at 16 bits) it took 259 MB; decoded by dav1d directly
    /// and converted from its planes a row at a time, 87 MB (vipsthumbnail: 246).
    @Test("a 12 MP 10-bit AVIF prepares within 120 MB, decoded by dav1d directly (259 through libheif)")
    func tenBitAVIF() throws {
        let peak = try Self.peakMegabytes(preparing: "heic/ten-bit/avif-10-bit-4000x3000.avif")
        #expect(peak <= 120, "\(peak) MB")
    }
}

import Foundation
import Testing

/// A single coded image that libheif decodes whole at 10 bits is converted from libheif's planes
/// a row at a time (`HEIFBandUpload`): no 16-bit or 8-bit copy of the whole picture beside them.
@Suite("HEIF: a 10-bit single image without a whole-image copy")
struct SingleImageMemoryTests {
    /// `heic/ten-bit/heic-10-bit-4000x3000.heic`, 12 MP, one 10-bit coded picture: libheif's RGB
    /// planes at 16 bits are 72 MB and libde265's decode about 94 MB. It took 204 MB when libheif
    /// converted it to 8-bit YCbCr (through RGB) and the planes were copied (vipsthumbnail: 178).
    @Test("a 12 MP 10-bit HEIC prepares within 160 MB, where the whole-image conversions took 204")
    func tenBitSingleImage() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: MemoryBoundTests.time),
            "\(MemoryBoundTests.time) (Debian package time) is missing")
        try TemporaryFolder.with { folder in
            let peak = try MemoryBoundTests.peakMegabytes(
                [], input: Fixtures.url("heic/ten-bit/heic-10-bit-4000x3000.heic").path, in: folder)
            #expect(peak <= 160, "\(peak) MB")
        }
    }

    /// `heic/ten-bit/avif-10-bit-4000x3000.avif`, the same 12 MP picture as one 10-bit 4:2:2 AV1
    /// picture: dav1d's picture is 48 MB. Through libheif (dav1d's frame-threaded decode, libheif's
    /// copy of its picture, then RGB planes at 16 bits) it took 259 MB; decoded by dav1d directly
    /// and converted from its planes a row at a time, 87 MB (vipsthumbnail: 246).
    @Test("a 12 MP 10-bit AVIF prepares within 120 MB, decoded by dav1d directly (259 through libheif)")
    func tenBitAVIF() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: MemoryBoundTests.time),
            "\(MemoryBoundTests.time) (Debian package time) is missing")
        try TemporaryFolder.with { folder in
            let peak = try MemoryBoundTests.peakMegabytes(
                [], input: Fixtures.url("heic/ten-bit/avif-10-bit-4000x3000.avif").path, in: folder)
            #expect(peak <= 120, "\(peak) MB")
        }
    }
}

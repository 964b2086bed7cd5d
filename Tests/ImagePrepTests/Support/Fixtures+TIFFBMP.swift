import Foundation

extension Fixtures {
    /// The TIFF and BMP files of `Tests/Fixtures/formats` (README-tiff-bmp.md) and what they are held to.
    enum TIFFBMP {
        static let names: [String] = {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: url("formats").path)) ?? []
            return names.filter { $0.hasPrefix("tiff-") || $0.hasPrefix("bmp-") }.sorted()
        }()
        /// All but the one marked as a DNG, which is refused.
        static let preparable = names.filter { $0 != "tiff-dngversion-marked.tif" }

        /// The lowest luma PSNR against vipsthumbnail's copy, measured less 2 dB where it is under
        /// 30: CMYK without a profile (vips applies a CMYK profile of its own, we the plain inversion
        /// as ImageMagick does), CIELab (libtiff's conversion and vips's differ in white point), and
        /// the dithered RLE4 test card, where every JPEG loses much.
        static let minimumPSNR: [String: Double] = [
            "tiff-cmyk-jpeg-pillow.tif": 16, "tiff-16bit-cielab-lzw-exif-gpsifd-nikon-sharp.tiff": 24,
            "bmp-rle4-bmpsuite-pillow.bmp": 24, "bmp-1bit-made.bmp": 20,
            // vipsthumbnail drops the alpha and keeps the colours under it; we composite over white.
            "bmp-32bit-rgba-v5-bmpsuite-pillow.bmp": 12,
        ]
    }
}

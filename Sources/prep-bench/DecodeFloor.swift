import CGIF
import CWebP
import Foundation

/// The format's own decoder alone on one file, as `prep-bench --decode-floor FILE` runs it in a
/// process of its own: the floor beside the `--format` rows (`FormatRun`), the same Debian
/// library ImagePrep links, decoding what a reader of the format must decode, with nothing made
/// of the pixels. Chosen by the file's extension (`Floor`).
enum DecodeFloor {
    /// What is decoded for a file of each format, in the table's words.
    enum Floor: String, CaseIterable {
        case webp, gif, png, tiff, jxl, jpeg2000, dng

        init?(path: String) {
            let kinds: [String: Floor] = [
                "webp": .webp, "gif": .gif, "png": .png, "tif": .tiff, "tiff": .tiff, "jxl": .jxl, "jp2": .jpeg2000,
                "j2k": .jpeg2000, "j2c": .jpeg2000, "dng": .dng,
            ]
            guard let kind = kinds[URL(fileURLWithPath: path).pathExtension.lowercased()] else { return nil }
            self = kind
        }

        var description: String {
            switch self {
            case .webp: "libwebp decoding the whole picture to RGBA at full size, as dwebp does without writing it"
            case .gif: "giflib reading the first frame's lines (colour indices), what any GIF reader must do"
            case .png: "libspng decoding every row (RGB or RGBA, 8 bits), as ImagePrep's progressive decode does"
            case .tiff: "libtiff decoding the first page's scanlines or tiles (TIFFReadScanline, TIFFReadEncodedTile)"
            case .jxl:
                "libjxl decoding the picture to 8-bit RGB on 2 threads (JxlThreadParallelRunner), as one photo does"
            case .jpeg2000: "OpenJPEG decoding at the resolution level ImagePrep reads (the smallest at least 2048)"
            case .dng: "LibRaw unpacking and rendering the raw data to 8-bit sRGB (half size for a mosaic)"
            }
        }
    }

    /// Decodes `path`; the exit status is 0 when it decoded, 1 when it could not.
    static func run(_ path: String) -> Int32 {
        guard let floor = Floor(path: path), let data = FileManager.default.contents(atPath: path) else { return 1 }
        let decoded = data.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            switch floor {
            case .webp:
                var width: Int32 = 0
                var height: Int32 = 0
                guard let pixels = WebPDecodeRGBA(base, bytes.count, &width, &height) else { return false }
                WebPFree(pixels)
                return true
            case .gif: return decodeGIF(base, count: bytes.count)
            case .png: return decodePNG(bytes)
            case .tiff: return decodeTIFF(path)
            case .jxl: return decodeJXL(bytes)
            case .jpeg2000: return decodeJPEG2000(bytes)
            case .dng: return decodeRaw(bytes)
            }
        }
        return decoded ? 0 : 1
    }

    private static func decodeGIF(_ base: UnsafePointer<UInt8>, count: Int) -> Bool {
        var memory = cgif_memory(bytes: base, count: count, offset: 0)
        var error: Int32 = 0
        guard let gif = cgif_open(&memory, &error) else { return false }
        defer { DGifCloseFile(gif, &error) }
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else { return false }
            if type == EXTENSION_RECORD_TYPE {
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(gif, &code, &block) == GIF_OK else { return false }
                while block != nil { guard DGifGetExtensionNext(gif, &block) == GIF_OK else { return false } }
                continue
            }
            guard type == IMAGE_DESC_RECORD_TYPE, DGifGetImageDesc(gif) == GIF_OK else { return false }
            let width = Int(gif.pointee.Image.Width)
            var line = [UInt8](repeating: 0, count: max(1, width))
            for _ in 0..<Int(gif.pointee.Image.Height) {
                guard DGifGetLine(gif, &line, Int32(width)) == GIF_OK else { return false }
            }
            return true
        }
    }
}

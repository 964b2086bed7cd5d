import CGIF
import CWebP
import Foundation

/// The format's own decoder alone on one file, as `prep-bench --decode-floor FILE` runs it in a
/// process of its own: the floor beside the GIF and WebP rows (`FormatRun`). WebP: libwebp
/// decoding the whole picture at full size to RGBA, as `dwebp` does without writing it; GIF:
/// giflib reading the first frame's lines (colour indices), what any GIF reader must do.
enum DecodeFloor {
    /// Decodes `path`; the exit status is 0 when it decoded, 1 when it could not.
    static func run(_ path: String) -> Int32 {
        guard let data = FileManager.default.contents(atPath: path) else { return 1 }
        return data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 1 }
            if bytes.starts(with: Array("GIF".utf8)) { return decodeGIF(base, count: bytes.count) ? 0 : 1 }
            var width: Int32 = 0
            var height: Int32 = 0
            guard let pixels = WebPDecodeRGBA(base, bytes.count, &width, &height) else { return 1 }
            WebPFree(pixels)
            return 0
        }
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

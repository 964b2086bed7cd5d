internal import CTurboJPEG
import Foundation

/// 8-bit RGB pixels, interleaved, rows top to bottom with no padding.
struct RGBImage: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]
}

/// Reads JPEGs the way `quality.py` reads them through Pillow: libjpeg-turbo at full size with
/// its defaults (accurate integer IDCT, fancy upsampling), so both harnesses see the same pixels.
enum RGBDecoder {
    /// The pixel size in the frame header, without decoding.
    static func size(ofFile path: String) throws(BenchError) -> (width: Int, height: Int) {
        let data = try contents(of: path)
        return try withDecompressor(path) { handle throws(BenchError) in
            try withBytes(of: data) { bytes throws(BenchError) in
                try header(bytes, handle: handle, path: path)
            }
        }
    }

    /// The whole image, decoded at full size to RGB (grey images come back as grey RGB).
    static func decode(file path: String) throws(BenchError) -> RGBImage {
        let data = try contents(of: path)
        return try withDecompressor(path) { handle throws(BenchError) in
            try withBytes(of: data) { bytes throws(BenchError) in
                let (width, height) = try header(bytes, handle: handle, path: path)
                var pixels = [UInt8](repeating: 0, count: width * height * 3)
                let status = pixels.withUnsafeMutableBufferPointer { output in
                    tjDecompress2(
                        handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(bytes.count),
                        output.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue), 0)
                }
                // A warning (e.g. extraneous bytes) still leaves a complete image, as in Pillow.
                if status != 0, tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
                    throw BenchError.notDecodable(path: path, detail: String(cString: tjGetErrorStr2(handle)))
                }
                return RGBImage(width: width, height: height, pixels: pixels)
            }
        }
    }

    private static func contents(of path: String) throws(BenchError) -> [UInt8] {
        do { return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw BenchError.unreadable(path: path, reason: error.localizedDescription)
        }
    }

    /// `Array.withUnsafeBytes` rethrows untyped errors; this keeps them `BenchError`.
    private static func withBytes<R>(
        of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(BenchError) -> R
    ) throws(BenchError) -> R {
        try array.withUnsafeBytes { bytes in Result { () throws(BenchError) in try body(bytes) } }.get()
    }

    /// Runs `body` with a fresh decompressor, destroyed right after: a TurboJPEG handle is not
    /// thread-safe, and the benchmark decodes on several threads.
    private static func withDecompressor<R>(
        _ path: String, _ body: (tjhandle) throws(BenchError) -> R
    ) throws(BenchError) -> R {
        guard let handle = tjInitDecompress() else {
            throw BenchError.notDecodable(path: path, detail: "libjpeg-turbo could not start a decompressor")
        }
        defer { tjDestroy(handle) }
        return try body(handle)
    }

    private static func header(
        _ bytes: UnsafeRawBufferPointer, handle: tjhandle, path: String
    ) throws(BenchError) -> (width: Int, height: Int) {
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard let base = bytes.baseAddress,
            tjDecompressHeader3(
                handle, base.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), &width, &height, &subsampling,
                &colorspace) == 0
        else { throw BenchError.notDecodable(path: path, detail: String(cString: tjGetErrorStr2(handle))) }
        return (Int(width), Int(height))
    }
}

internal import CWebP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A WebP file's chunks as libwebp's demuxer reads them: the first frame's bitstream and place on
/// the canvas, the frame count, and the EXIF, ICCP and XMP chunks. It owns the demuxer, which
/// points into the file's bytes (they must outlive it).
///
/// A file cut short is read as far as it goes (libwebp's partial demuxing), so that a first frame
/// whose bitstream is cut can still give the rows it holds (`Frame.isComplete`).
struct WebPContainer: ~Copyable {
    /// The first frame: its bitstream (ALPH + VP8, or VP8L) and where it lies on the canvas.
    struct Frame {
        var bitstream: UnsafeRawBufferPointer
        var left: Int
        var top: Int
        var size: PixelSize
        /// Whether the file holds all of the frame's bitstream.
        var isComplete: Bool
    }

    private let demuxer: OpaquePointer

    /// Reads the file's chunks; the canvas must already be within the pixel limit.
    init(_ bytes: UnsafeRawBufferPointer, file: String) throws(ImagePrepError) {
        var state = WEBP_DEMUX_PARSING_HEADER
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let demuxer = cwebp_demux(base, bytes.count, 0, &state) ?? cwebp_demux(base, bytes.count, 1, &state)
        else {
            let detail =
                state == WEBP_DEMUX_PARSED_HEADER || state == WEBP_DEMUX_PARSING_HEADER && bytes.count < 32
                ? "it ends before its chunks do" : "its RIFF chunks do not hold together"
            throw .corruptWebP(file: file, detail: detail)
        }
        self.demuxer = demuxer
    }

    deinit { WebPDemuxDelete(demuxer) }

    var canvas: PixelSize {
        PixelSize(
            width: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)),
            height: Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)))
    }

    var frameCount: Int { Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT)) }

    /// The first frame, or nil when the file has none.
    var firstFrame: Frame? {
        var iterator = WebPIterator()
        guard WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 else { return nil }
        defer { WebPDemuxReleaseIterator(&iterator) }
        guard let bytes = iterator.fragment.bytes else { return nil }
        return Frame(
            bitstream: UnsafeRawBufferPointer(start: bytes, count: iterator.fragment.size),
            left: Int(iterator.x_offset), top: Int(iterator.y_offset),
            size: PixelSize(width: Int(iterator.width), height: Int(iterator.height)),
            isComplete: iterator.complete != 0)
    }

    /// The first chunk named `fourCC` ("EXIF", "ICCP", "XMP "), or nil.
    func chunk(_ fourCC: String) -> UnsafeRawBufferPointer? {
        var iterator = WebPChunkIterator()
        let found = fourCC.withCString { WebPDemuxGetChunk(demuxer, $0, 1, &iterator) } != 0
        defer { WebPDemuxReleaseChunkIterator(&iterator) }
        guard found, let bytes = iterator.chunk.bytes else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: iterator.chunk.size)
    }
}

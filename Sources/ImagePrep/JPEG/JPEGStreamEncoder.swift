internal import CJPEG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The upload encoded while its rows are still being made: a photo without restart markers is
/// decoded on one thread while a second resamples its strips, and that second thread is mostly
/// idle (libjpeg's Huffman decoding is the slow part), so it encodes each iMCU row of the upload
/// as soon as the resampler has made it. Once the last strip is decoded only the last rows are
/// left to encode, where the whole encode (10 ms for a 3 MP upload) used to follow the decode.
///
/// libjpeg is set up as TurboJPEG sets itself up (`cjpeg_stream_encoder` in `CJPEG`'s shim), and
/// its rows are TurboJPEG's (the bottom padded with the plane's last row), so that the file is
/// byte for byte what `JPEGEncoder` makes of the finished planes: a photo's copies do not depend
/// on how the work was split. One owner frees the compressor; it lives for one photo.
final class JPEGStreamEncoder {
    private let handle: UnsafeMutablePointer<cjpeg_stream_encoder>
    private let image: PlanarImage
    /// Luma rows per iMCU row: 16 for 4:2:0, 8 for gray.
    private let mcuHeight: Int
    private let mcuRows: Int
    private var rowsEncoded = 0
    private var hasFailed = false

    /// Nil when the upload cannot be encoded this way: a width that is not a whole number of
    /// MCUs (TurboJPEG pads such rows in a copy of its own), or TurboJPEG's environment
    /// variables set (`TJ_OPTIMIZE` and the like change what it writes, not what this writes).
    ///
    /// - Parameter image: the upload's planes, reshaped to its size, which the resampler fills.
    init?(image: PlanarImage, quality: Int, buffer: EncodeBuffer) {
        let mcu = image.isGray ? 8 : 16
        // Read once: each read of the environment copies all of it.
        let environment = ProcessInfo.processInfo.environment
        guard image.isGray || image.subsampling == .quarter, image.size.width % mcu == 0, image.size.height > 0,
            !Self.turboJPEGEnvironment.contains(where: { environment[$0] != nil })
        else { return nil }
        guard let handle = cjpeg_stream_encoder_create() else { return nil }
        buffer.reserve(for: image.size, gray: image.isGray)
        guard let bytes = buffer.bytes,
            cjpeg_stream_encoder_start(
                handle, bytes, buffer.capacity, Int32(image.size.width), Int32(image.size.height),
                image.isGray ? 1 : 0, Int32(quality)) == 0
        else {
            cjpeg_stream_encoder_destroy(handle)
            return nil
        }
        self.handle = handle
        self.image = image
        mcuHeight = mcu
        mcuRows = (image.size.height + mcu - 1) / mcu
    }

    deinit { cjpeg_stream_encoder_destroy(handle) }

    /// What turbojpeg.c reads from the environment when it sets up a compressor.
    private static let turboJPEGEnvironment = ["TJ_OPTIMIZE", "TJ_ARITHMETIC", "TJ_RESTART", "TJ_PROGRESSIVE"]

    /// Encodes every iMCU row whose rows are all made: the first `luma` rows of the luma plane
    /// and `chroma` of each chroma plane. Rows that need the bottom's padding wait for `finish`.
    func encodeRows(madeLuma luma: Int, chroma: Int) {
        while !hasFailed, rowsEncoded < mcuRows, (rowsEncoded + 1) * mcuHeight <= luma,
            image.isGray || (rowsEncoded + 1) * mcuHeight / 2 <= chroma
        {
            write(rowsEncoded)
        }
    }

    /// Encodes the rows left, once the planes' edges are replicated, and ends the file.
    ///
    /// - Returns: the file (in the buffer given at the start), or nil when libjpeg failed.
    func finish() -> UnsafeRawBufferPointer? {
        while !hasFailed, rowsEncoded < mcuRows { write(rowsEncoded) }
        guard !hasFailed, cjpeg_stream_encoder_finish(handle) == 0 else { return nil }
        return UnsafeRawBufferPointer(start: handle.pointee.buffer, count: handle.pointee.length)
    }

    /// Hands iMCU row `mcuRow` to libjpeg; rows past a plane's end are its last row again, as
    /// TurboJPEG pads them.
    private func write(_ mcuRow: Int) {
        let planes = image.activePlanes
        withUnsafeTemporaryAllocation(of: JSAMPROW?.self, capacity: mcuHeight * planes.count) { rows in
            withUnsafeTemporaryAllocation(of: JSAMPARRAY?.self, capacity: planes.count) { components in
                var next = 0
                for (index, plane) in planes.enumerated() {
                    let height = index == 0 ? mcuHeight : mcuHeight / 2
                    components[index] = rows.baseAddress! + next
                    for row in 0..<height {
                        rows[next] = plane.row(min(mcuRow * height + row, plane.height - 1))
                        next += 1
                    }
                }
                if cjpeg_stream_encoder_write(handle, components.baseAddress!) != 0 { hasFailed = true }
            }
        }
        rowsEncoded += 1
    }
}

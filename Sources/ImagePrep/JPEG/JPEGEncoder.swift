internal import CTurboJPEG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A TurboJPEG compressor with exactly one owner.
struct Compressor: ~Copyable {
    let handle: tjhandle

    init(file: String) throws(ImagePrepError) {
        guard let handle = tjInitCompress() else {
            throw .encodingFailed(file: file, detail: "libjpeg-turbo could not start a compressor")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    var lastMessage: String { String(cString: tjGetErrorStr2(handle)) }
}

/// TurboJPEG's output buffer, allocated with `tjAlloc` at the worst-case size of the largest
/// image seen and reused, so encoding never reallocates or page-faults after the first photo.
final class EncodeBuffer {
    private(set) var bytes: UnsafeMutablePointer<UInt8>?
    private(set) var capacity = 0

    deinit { tjFree(bytes) }

    /// Makes the buffer big enough for any JPEG of `size` that TurboJPEG can write.
    ///
    /// A size whose worst case `tjAlloc` cannot take (more than `Int32.max` bytes, a side the
    /// file gave under a raised `maxPixels`; or TurboJPEG's -1 for a size it refuses) leaves no
    /// buffer, so the encode fails with `encodingFailed` rather than trapping on the conversion.
    func reserve(for size: PixelSize, gray: Bool) {
        let subsampling = Int32(gray ? TJSAMP_GRAY.rawValue : TJSAMP_444.rawValue)
        guard let width = Int32(exactly: size.width), let height = Int32(exactly: size.height),
            let needed = Int32(exactly: tjBufSize(width, height, subsampling))
        else {
            tjFree(bytes)
            bytes = nil
            capacity = 0
            return
        }
        guard Int(needed) > capacity else { return }
        tjFree(bytes)
        bytes = tjAlloc(needed)
        capacity = bytes == nil ? 0 : Int(needed)
    }
}

/// The pieces of metadata written into a copy, right after TurboJPEG's SOI and JFIF APP0.
struct CarriedSegments {
    /// Whole segments (marker, length and payload) to insert in order.
    var segments: [Data] = []
}

/// Encodes planes or RGB pixels into JPEG files through libjpeg-turbo, and splices our metadata
/// segments into what it writes.
enum JPEGEncoder {
    /// Encodes `image` (4:2:0 colour or gray planes) once and returns one finished file for each
    /// set of carried segments: the display copy of a photo that needs no turning and no colour
    /// change is the upload's pixels under other metadata, so it is not encoded twice.
    ///
    /// Encoding from planes skips libjpeg-turbo's RGB-to-YCbCr conversion and chroma
    /// downsampling: the resampler has already made the chroma planes at their final size.
    static func encode(
        _ image: PlanarImage, quality: Int, carrying carried: [CarriedSegments], compressor: borrowing Compressor,
        buffer: EncodeBuffer, file: String
    ) throws(ImagePrepError) -> [Data] {
        precondition(image.isGray || image.subsampling == .quarter, "copies are written as 4:2:0 or gray")
        buffer.reserve(for: image.size, gray: image.isGray)
        var output = buffer.bytes
        var length: UInt = 0
        let planes = image.activePlanes
        var pointers: [UnsafePointer<UInt8>?] = planes.map { UnsafePointer($0.pixels) }
        var strides: [Int32] = planes.map { Int32($0.width) }
        let subsamp = image.isGray ? TJSAMP_GRAY : TJSAMP_420
        let status = pointers.withUnsafeMutableBufferPointer { pointers in
            strides.withUnsafeMutableBufferPointer { strides in
                tjCompressFromYUVPlanes(
                    compressor.handle, pointers.baseAddress, Int32(image.size.width), strides.baseAddress,
                    Int32(image.size.height), Int32(subsamp.rawValue), &output, &length, Int32(quality),
                    TJFLAG_NOREALLOC)
            }
        }
        guard status == 0, let output else { throw .encodingFailed(file: file, detail: compressor.lastMessage) }
        let encoded = UnsafeRawBufferPointer(start: output, count: Int(length))
        return carried.map { assemble(encoded, carrying: $0) }
    }

    /// Converts interleaved RGB pixels into 4:4:4 YCbCr planes (libjpeg-turbo's own conversion),
    /// for the rare JPEGs that are not stored as YCbCr.
    static func convert(
        rgb pixels: UnsafePointer<UInt8>, pitch: Int = 0, into image: PlanarImage, compressor: borrowing Compressor,
        file: String
    ) throws(ImagePrepError) {
        let planes = image.activePlanes
        var pointers: [UnsafeMutablePointer<UInt8>?] = planes.map { $0.pixels }
        var strides: [Int32] = planes.map { Int32($0.width) }
        let status = pointers.withUnsafeMutableBufferPointer { pointers in
            strides.withUnsafeMutableBufferPointer { strides in
                tjEncodeYUVPlanes(
                    compressor.handle, pixels, Int32(image.size.width), Int32(pitch), Int32(image.size.height),
                    Int32(TJPF_RGB.rawValue), pointers.baseAddress, strides.baseAddress, Int32(TJSAMP_444.rawValue), 0)
            }
        }
        guard status == 0 else { throw .corruptJPEG(file: file, detail: compressor.lastMessage) }
    }

    /// Puts `carried` right after the SOI and JFIF APP0 that TurboJPEG writes, ahead of its
    /// tables and image data, and copies the result into one `Data`.
    static func assemble(_ encoded: UnsafeRawBufferPointer, carrying carried: CarriedSegments) -> Data {
        var headerEnd = 2
        if encoded.count > 6, encoded[2] == 0xFF, encoded[3] == JPEGSegment.app0,
            let length = ByteReader(encoded).uint16(at: 4)
        {
            headerEnd = 4 + Int(length)
        }
        headerEnd = min(headerEnd, encoded.count)
        var file = Data(capacity: encoded.count + carried.segments.reduce(0) { $0 + $1.count })
        guard let base = encoded.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return file }
        // Straight from the pointer: no intermediate copy (a megabyte of fresh pages a copy), and
        // no slice (see `UnsafeRawBufferPointer.data(in:)`).
        file.append(base, count: headerEnd)
        for segment in carried.segments { file.append(segment) }
        file.append(base + headerEnd, count: encoded.count - headerEnd)
        return file
    }
}

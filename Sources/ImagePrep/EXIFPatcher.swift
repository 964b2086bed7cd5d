#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries the original's EXIF APP1 segment into the upload copy byte for byte, except that
/// PixelXDimension and PixelYDimension are rewritten in place to the new size.
///
/// The TIFF structure is walked by hand rather than rebuilt through libexif, because libexif
/// re-serialises the whole block (dropping tags it does not know and moving offsets), and
/// MakerNotes with absolute offsets break when anything moves.
enum EXIFPatcher {
    private static let pixelXDimension: UInt16 = 0xA002
    private static let pixelYDimension: UInt16 = 0xA003
    private static let exifIFDPointer: UInt16 = 0x8769

    /// The whole segment (marker, length and payload) with the dimensions set to `size`.
    ///
    /// - Returns: the segment unchanged plus a warning when its TIFF structure is too damaged
    ///   to find the tags; a photo is never refused for its EXIF.
    static func segment(
        _ segment: JPEGSegment, in bytes: UnsafeRawBufferPointer, settingPixelSize size: PixelSize
    ) -> (Data, PhotoWarning?) {
        var copy = bytes.data(in: segment.bytes)
        let tiffStart = segment.payload.lowerBound - segment.bytes.lowerBound + JPEGLayout.exifSignature.count
        let patched = copy.withUnsafeMutableBytes { segmentBytes in
            setPixelDimensions(size, in: UnsafeMutableRawBufferPointer(rebasing: segmentBytes[tiffStart...]))
        }
        guard patched else {
            return (
                copy,
                PhotoWarning(
                    .metadata,
                    "The EXIF block's structure is damaged, so its PixelXDimension and PixelYDimension still give the original size."
                )
            )
        }
        return (copy, nil)
    }

    /// Sets both tags when present; true when the structure could be walked (the tags are
    /// optional, and a photo without them needs no patch).
    private static func setPixelDimensions(_ size: PixelSize, in bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard let tiff = TIFFBlock(UnsafeRawBufferPointer(bytes)), let ifd0 = tiff.entries(ofIFDAt: tiff.ifd0Offset),
            !ifd0.isEmpty
        else { return false }
        guard let pointer = ifd0.first(where: { $0.tag == exifIFDPointer }) else { return true }
        guard let exifIFD = tiff.integer(pointer), let entries = tiff.entries(ofIFDAt: Int(exifIFD)) else {
            return false
        }
        for (tag, value) in [(pixelXDimension, size.width), (pixelYDimension, size.height)] {
            guard let entry = entries.first(where: { $0.tag == tag }) else { continue }
            guard entry.count == 1 else { return false }
            switch entry.type {
            case 3 where value <= 0xFFFF: write(UInt32(value), width: 2, at: entry.valueField, in: bytes, tiff: tiff)
            case 4: write(UInt32(value), width: 4, at: entry.valueField, in: bytes, tiff: tiff)
            default: return false
            }
        }
        return true
    }

    private static func write(
        _ value: UInt32, width: Int, at offset: Int, in bytes: UnsafeMutableRawBufferPointer, tiff: TIFFBlock
    ) {
        for index in 0..<width {
            let shift = tiff.isBigEndian ? (width - 1 - index) * 8 : index * 8
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
        }
    }
}

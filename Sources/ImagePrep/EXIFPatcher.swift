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
        var copy = Data(bytes[segment.bytes])
        let tiffStart = segment.payload.lowerBound - segment.bytes.lowerBound + JPEGLayout.exifSignature.count
        let patched = copy.withUnsafeMutableBytes { segmentBytes in
            let tiff = TIFFBytes(UnsafeMutableRawBufferPointer(rebasing: segmentBytes[tiffStart...]))
            return tiff?.setPixelDimensions(size) ?? false
        }
        guard patched else {
            return (
                copy,
                PhotoWarning(
                    .metadata,
                    "The EXIF block's structure is damaged, so its PixelXDimension and PixelYDimension still give the original size"
                )
            )
        }
        return (copy, nil)
    }

    /// A TIFF block (the EXIF payload after `Exif\0\0`), read with bounds checks on every access.
    private struct TIFFBytes {
        let bytes: UnsafeMutableRawBufferPointer
        let isBigEndian: Bool

        init?(_ bytes: UnsafeMutableRawBufferPointer) {
            guard bytes.count >= 8 else { return nil }
            switch (bytes[0], bytes[1]) {
            case (0x49, 0x49): isBigEndian = false
            case (0x4D, 0x4D): isBigEndian = true
            default: return nil
            }
            self.bytes = bytes
            guard read16(at: 2) == 42 else { return nil }
        }

        func read16(at offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[offset])
            let b = UInt16(bytes[offset + 1])
            return isBigEndian ? a << 8 | b : b << 8 | a
        }

        func read32(at offset: Int) -> UInt32? {
            guard let first = read16(at: offset), let second = read16(at: offset + 2) else { return nil }
            return isBigEndian ? UInt32(first) << 16 | UInt32(second) : UInt32(second) << 16 | UInt32(first)
        }

        func write(_ value: UInt32, width: Int, at offset: Int) {
            for index in 0..<width {
                let shift = isBigEndian ? (width - 1 - index) * 8 : index * 8
                bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(shift))
            }
        }

        /// The offset of the 12-byte directory entry for `tag` in the IFD at `ifdOffset`.
        func entry(_ tag: UInt16, inIFDAt ifdOffset: Int) -> Int? {
            guard let count = read16(at: ifdOffset) else { return nil }
            for index in 0..<Int(count) {
                let entry = ifdOffset + 2 + index * 12
                guard let entryTag = read16(at: entry), entry + 12 <= bytes.count else { return nil }
                if entryTag == tag { return entry }
            }
            return nil
        }

        /// Sets both tags when present; true when the structure could be walked (the tags are
        /// optional, and a photo without them needs no patch).
        func setPixelDimensions(_ size: PixelSize) -> Bool {
            guard let ifd0 = read32(at: 4), let ifd0Count = read16(at: Int(ifd0)), ifd0Count > 0 else { return false }
            guard let pointerEntry = entry(EXIFPatcher.exifIFDPointer, inIFDAt: Int(ifd0)) else { return true }
            guard let exifIFD = read32(at: pointerEntry + 8), read16(at: Int(exifIFD)) != nil else { return false }
            for (tag, value) in [(EXIFPatcher.pixelXDimension, size.width), (EXIFPatcher.pixelYDimension, size.height)]
            {
                guard let entry = entry(tag, inIFDAt: Int(exifIFD)) else { continue }
                guard let type = read16(at: entry + 2), read32(at: entry + 4) == 1 else { return false }
                switch type {
                case 3 where value <= 0xFFFF: write(UInt32(value), width: 2, at: entry + 8)
                case 4: write(UInt32(value), width: 4, at: entry + 8)
                default: return false
                }
            }
            return true
        }
    }
}

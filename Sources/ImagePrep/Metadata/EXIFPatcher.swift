#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Carries the original's EXIF APP1 segment into the upload copy byte for byte, except that
/// PixelXDimension and PixelYDimension are rewritten in place to the new size (and, for a HEIF
/// original, whose pixels come out upright, IFD0's Orientation to 1). A block too large for one
/// segment, which only a HEIF file, a PNG or a WebP carries, is rebuilt smaller first.
///
/// The TIFF structure is walked by hand rather than rebuilt through libexif, because libexif
/// re-serialises the whole block (dropping tags it does not know and moving offsets), and
/// MakerNotes with absolute offsets break when anything moves.
enum EXIFPatcher {
    private static let pixelXDimension: UInt16 = 0xA002
    private static let pixelYDimension: UInt16 = 0xA003
    private static let exifIFDPointer: UInt16 = 0x8769
    private static let orientation: UInt16 = 0x0112
    /// The largest TIFF block an APP1 segment holds: 65535 less the length field and `Exif\0\0`.
    static let maxTIFFBlockSize = 0xFFFF - 2 - JPEGLayout.exifSignature.count

    /// The whole segment (marker, length and payload) with the dimensions set to `size`.
    ///
    /// - Returns: the segment unchanged plus a warning when its TIFF structure is too damaged
    ///   to find the tags; a photo is never refused for its EXIF.
    static func segment(
        _ segment: JPEGSegment, in bytes: UnsafeRawBufferPointer, settingPixelSize size: PixelSize
    ) -> (Data, PhotoWarning?) {
        var copy = bytes.data(in: segment.bytes)
        let tiffStart = segment.payload.lowerBound - segment.bytes.lowerBound + JPEGLayout.exifSignature.count
        let warning = patch(&copy, tiffStart: tiffStart, size: size, settingOrientationUp: false)
        return (copy, warning)
    }

    /// A new APP1 segment that carries a TIFF block (from `II` or `MM` on: a HEIF file's Exif
    /// item, a PNG's `eXIf`, a WebP's `EXIF`) byte for byte, with the dimensions set to `size`;
    /// and IFD0's Orientation set to 1 when `settingOrientationUp` (a HEIF file's upload, whose
    /// pixels are already turned the way its `irot` and `imir` say), else kept, as a JPEG's is.
    ///
    /// A block larger than an APP1 segment holds (65527 bytes: a Xiaomi HEIC's is 192 KB) is
    /// rebuilt from what its tags reach (`EXIFCompactor`), leaving out the embedded thumbnail
    /// first, then the maker note, until it fits, with a warning that says what was left out;
    /// the capture time, its offset, GPS and orientation are always kept.
    ///
    /// - Returns: no segment, and a warning, when not even that fits (or the block is no TIFF
    ///   structure): cutting it would leave offsets pointing past its end.
    static func segment(
        carrying tiff: UnsafeRawBufferPointer, settingPixelSize size: PixelSize, settingOrientationUp: Bool = true
    ) -> (Data?, PhotoWarning?) {
        guard tiff.count > maxTIFFBlockSize else {
            return segment(carryingFitting: tiff, settingPixelSize: size, settingOrientationUp: settingOrientationUp)
        }
        let tooLarge =
            "the EXIF block is larger than a JPEG can carry (\(tiff.count) bytes, 65527 at most), so the upload"
        let attempts: [(EXIFCompactor.Omissions, String)] = [
            ([], "only what its tags reach"), (.thumbnail, "it without its embedded thumbnail"),
            ([.thumbnail, .makerNote], "it without its embedded thumbnail and its maker note"),
        ]
        for (omissions, carried) in attempts {
            guard let (block, dropped) = EXIFCompactor.compacted(tiff, leavingOut: omissions, limit: maxTIFFBlockSize)
            else { continue }
            let (segment, damage) = block.withUnsafeBytes {
                Self.segment(carryingFitting: $0, settingPixelSize: size, settingOrientationUp: settingOrientationUp)
            }
            let unreadable = dropped == 0 ? "" : " and \(dropped) entries whose values could not be moved"
            return (
                segment,
                damage
                    ?? PhotoWarning(
                        .metadata,
                        "\(tooLarge) carries \(carried)\(unreadable) (\(block.count) bytes); the capture time and place are carried."
                    )
            )
        }
        return (
            nil,
            PhotoWarning(
                .metadata,
                "\(tooLarge) carries no EXIF; the capture time and place were read from it all the same."
            )
        )
    }

    /// The APP1 segment of a block that fits in one, byte for byte but for the patched values.
    private static func segment(
        carryingFitting tiff: UnsafeRawBufferPointer, settingPixelSize size: PixelSize, settingOrientationUp: Bool
    ) -> (Data, PhotoWarning?) {
        let length = 2 + JPEGLayout.exifSignature.count + tiff.count
        var copy = Data([0xFF, JPEGSegment.app1, UInt8(length >> 8), UInt8(length & 0xFF)])
        copy.append(contentsOf: JPEGLayout.exifSignature)
        copy.append(contentsOf: tiff)
        let tiffStart = 4 + JPEGLayout.exifSignature.count
        let warning = patch(&copy, tiffStart: tiffStart, size: size, settingOrientationUp: settingOrientationUp)
        return (copy, warning)
    }

    /// Patches the TIFF block that starts at `tiffStart` in place.
    ///
    /// - Returns: a warning when its structure is too damaged to find the tags.
    private static func patch(
        _ copy: inout Data, tiffStart: Int, size: PixelSize, settingOrientationUp: Bool
    ) -> PhotoWarning? {
        let patched = copy.withUnsafeMutableBytes { segmentBytes in
            let tiff = UnsafeMutableRawBufferPointer(rebasing: segmentBytes[tiffStart...])
            return setPixelDimensions(size, in: tiff) && (!settingOrientationUp || setOrientationUp(in: tiff))
        }
        guard patched else {
            return PhotoWarning(
                .metadata,
                settingOrientationUp
                    ? "the EXIF block's structure is damaged, so its dimensions and Orientation may still describe the original."
                    : "the EXIF block's structure is damaged, so its PixelXDimension and PixelYDimension still give the original size."
            )
        }
        return nil
    }

    /// Sets IFD0's Orientation to 1 when it is an integer of its own; true when the structure
    /// could be walked (an absent Orientation already means 1; one stored as text or as several
    /// values is not one a viewer follows, and is left as it is).
    private static func setOrientationUp(in bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard let tiff = TIFFBlock(UnsafeRawBufferPointer(bytes)), let ifd0 = tiff.entries(ofIFDAt: tiff.ifd0Offset),
            !ifd0.isEmpty
        else { return false }
        guard let entry = ifd0.first(where: { $0.tag == orientation }), entry.count == 1,
            let width = TIFFBlock.integerTypeSizes[entry.type]
        else { return true }
        write(1, width: width, at: entry.valueField, in: bytes, tiff: tiff)
        return true
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

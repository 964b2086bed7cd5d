import Foundation
import Testing

@testable import ImagePrep

/// An EXIF block too large for one APP1 segment (65527 bytes; a Xiaomi HEIC's is 192 KB) is
/// carried rebuilt from what its tags reach: without the embedded thumbnail first, then without
/// the maker note, with a warning that says what was left out (issue 53, item 2).
@Suite("An EXIF block too large for APP1 is carried without its thumbnail, then its maker note")
struct LargeEXIFTests {
    /// The capture time, offset and place that the upload's carried EXIF says, read back.
    static func carried(_ photo: PreparedPhoto) -> PhotoMetadata {
        PhotoMetadata.read(fromJPEG: photo.upload.data).metadata
    }

    @Test(
        "a 185 KB block (an iPhone's EXIF, maker note and GPS, and a 182 KB thumbnail) is carried without the thumbnail"
    )
    func withoutThumbnail() throws {
        let photo = try Fixtures.prepared("heic/exif-185k-with-thumbnail.heic")
        let segment = try #require(UploadSegments.exifSegment(of: photo.upload.data))
        #expect(segment.count <= 0xFFFF + 2)
        // (libexif reads 64 KB of a block at most, so its IFD1 is damaged to it: a warning of its own.)
        let warning = try #require(photo.warnings.first { $0.message.contains("larger than a JPEG can carry") })
        #expect(warning.message.contains("so the upload carries it without its embedded thumbnail ("), "\(warning)")
        #expect(!warning.message.contains("maker note"))
        // What exiftool reads from the original (heic/exiftool.json: 2025:09:07 14:16:43.472-04:00,
        // 37.334606 N 122.009102 W, 32.5 m) is what the carried block says; the Orientation is 1,
        // as every HEIF upload's, whose pixels are upright.
        let carried = Self.carried(photo)
        #expect(photo.metadata.captureTime?.local != nil && carried.captureTime == photo.metadata.captureTime)
        #expect(photo.metadata.captureTime?.utcOffset != nil)
        #expect(photo.metadata.location != nil && carried.location == photo.metadata.location)
        #expect(carried.cameraModel == "iPhone 14 Pro Max" && carried.orientation == .up)
        // The Apple maker note stays, and the upload's EXIF has no IFD1.
        #expect(segment.count > 2_000)
        let tiff = Array(segment[10...])
        try tiff.withUnsafeBytes { bytes in
            let block = try #require(TIFFBlock(bytes))
            #expect(block.nextIFDOffset(afterIFDAt: block.ifd0Offset) == nil)
        }
    }

    @Test("a block whose size is padding no tag reaches is carried compacted, all its tags kept")
    func padding() throws {
        let photo = try Fixtures.prepared("heic/exif-larger-than-app1.heic")
        #expect(photo.metadata.cameraModel == "iPhone 14 Pro Max" && photo.metadata.captureTime != nil)
        #expect(UploadSegments.exifSegment(of: photo.upload.data) != nil)
        #expect(Self.carried(photo).captureTime == photo.metadata.captureTime)
        #expect(
            photo.warnings.contains { $0.kind == .metadata && $0.message.contains("carries only what its tags reach") })
    }

    /// A little-endian TIFF block: IFD0 (Make, then the Exif IFD pointer), the Exif IFD
    /// (DateTimeOriginal, then a MakerNote of `makerNoteSize` bytes), and, when given, IFD1 with
    /// a thumbnail of `thumbnailSize` bytes.
    static func block(makerNoteSize: Int, thumbnailSize: Int = 0, exifPointer: UInt32? = nil) -> [UInt8] {
        var bytes: [UInt8] = Array("II*\u{0}".utf8) + le32(8)
        func entry(_ tag: UInt16, _ type: UInt16, _ count: UInt32, _ value: UInt32) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + le32(value)
        }
        let ifd0 = 8
        let make = ifd0 + 2 + 2 * 12 + 4
        let exif = make + 6
        let date = exif + 2 + 2 * 12 + 4
        let note = date + 20
        let ifd1 = note + makerNoteSize
        let thumbnail = ifd1 + 2 + 2 * 12 + 4
        bytes += le16(2) + entry(0x010F, 2, 6, UInt32(make)) + entry(0x8769, 4, 1, exifPointer ?? UInt32(exif))
        bytes += le32(thumbnailSize > 0 ? UInt32(ifd1) : 0)
        bytes += Array("Maker\u{0}".utf8)
        bytes += le16(2) + entry(0x9003, 2, 20, UInt32(date)) + entry(0x927C, 7, UInt32(makerNoteSize), UInt32(note))
        bytes += le32(0)
        bytes += Array("2024:05:06 07:08:09\u{0}".utf8)
        bytes += [UInt8](repeating: 0x4D, count: makerNoteSize)
        if thumbnailSize > 0 {
            bytes += le16(2) + entry(0x0201, 4, 1, UInt32(thumbnail)) + entry(0x0202, 4, 1, UInt32(thumbnailSize))
            bytes += le32(0) + [UInt8](repeating: 0xFF, count: thumbnailSize)
        }
        return bytes
    }

    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// What a carried block says, and the warning.
    static func carry(_ block: [UInt8]) -> (metadata: PhotoMetadata?, warning: PhotoWarning?) {
        let (segment, warning) = block.withUnsafeBytes {
            EXIFPatcher.segment(carrying: $0, settingPixelSize: PixelSize(width: 10, height: 10))
        }
        guard let segment else { return (nil, warning) }
        var metadata = PhotoMetadata(originalSize: PixelSize(width: 10, height: 10))
        var warnings: [PhotoWarning] = []
        Data(segment[10...]).withUnsafeBytes { EXIFReader.read(tiff: $0, into: &metadata, warnings: &warnings) }
        return (metadata, warning)
    }

    @Test("a 100 KB maker note is left out after the thumbnail, and the capture time is carried")
    func withoutMakerNote() throws {
        let (metadata, warning) = Self.carry(Self.block(makerNoteSize: 100_000, thumbnailSize: 30_000))
        #expect(metadata?.cameraMake == "Maker")
        #expect(
            metadata?.captureTime?.local == LocalDateTime(year: 2024, month: 5, day: 6, hour: 7, minute: 8, second: 9))
        #expect(
            warning?.message.contains("without its embedded thumbnail and its maker note (") == true,
            "\(String(describing: warning))")
    }

    @Test("a 40 KB maker note and a 40 KB thumbnail: only the thumbnail is left out")
    func thumbnailFirst() throws {
        let (metadata, warning) = Self.carry(Self.block(makerNoteSize: 40_000, thumbnailSize: 40_000))
        #expect(metadata?.cameraMake == "Maker" && metadata?.captureTime != nil)
        #expect(warning?.message.contains("without its embedded thumbnail (") == true, "\(String(describing: warning))")
    }

    @Test("hostile blocks: an Exif pointer back at IFD0, or past the end, carry what can be read, never loop")
    func hostile() throws {
        for pointer: UInt32 in [8, 0xFFFF_FFF0] {
            let (metadata, warning) = Self.carry(Self.block(makerNoteSize: 70_000, exifPointer: pointer))
            #expect(metadata?.cameraMake == "Maker" && metadata?.captureTime == nil, "\(pointer)")
            #expect(warning != nil)
        }
    }
}

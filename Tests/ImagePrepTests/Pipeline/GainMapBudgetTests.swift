import Foundation
import TestSupport
import Testing

@testable import ImagePrep

/// Every gain map a photo brings is held to the photo's memory budget (`GainMapBudget`), and one
/// that cannot be carried always says why.
@Suite("HDR gain maps: held to the photo's budget, never lost in silence")
struct GainMapBudgetTests {
    static func preparer(maxPixels: Int? = nil) -> PhotoPreparer {
        var preparer = PhotoPreparer()
        if let maxPixels { preparer.configuration.maxPixels = maxPixels }
        return preparer
    }

    static func gainMapWarnings(_ photo: PreparedPhoto) -> [PhotoWarning] {
        photo.warnings.filter { $0.kind == .gainMap }
    }

    /// The HEIC's gain map (a grid, decoded whole by libheif) fits an eighth of the limit, or is
    /// left out with a warning that says so; the photo is prepared either way.
    @Test("a HEIC gain map decoded whole over an eighth of the pixel limit is left out, with a warning")
    func heicGainMapOverBudget() throws {
        let data = try Fixtures.data("phones/iphone15plus-ios18.2-hdr-tmap.heic")
        let carried = try Self.preparer().prepareBlocking(data, name: "photo.heic")
        #expect(carried.uploadGainMap != nil && Self.gainMapWarnings(carried).isEmpty)
        // 5712x4284 photo, 2856x2142 gain map (a grid of tiles that overhang it).
        let refused = try Self.preparer(maxPixels: 5712 * 4284).prepareBlocking(data, name: "photo.heic")
        #expect(refused.uploadGainMap == nil)
        let warning = try #require(Self.gainMapWarnings(refused).first)
        #expect(warning.message.contains("decoded whole"), "\(warning.message)")
        #expect(refused.upload.size == carried.upload.size)
    }

    /// Every HEIC form of gain map a quarter of its photo (Apple's auxiliary image, whole and as a
    /// grid; ISO 21496-1's tmap) at a pixel limit of its photo's own size: over an eighth of the
    /// limit, it is left out with a warning that says why, the photo prepared as without it.
    /// (Samsung's is a sixteenth of its photo, within the budget at any limit the photo fits.)
    @Test(
        "every HEIC gain map form over the whole-decode budget is left out with a warning that says why",
        arguments: [
            "heic/gainmap/iphone-hdr-320x240.heic", "heic/gainmap/iphone-hdr-grid.heic",
            "heic/gainmap/iphone-hdr-tmap.heic",
        ])
    func everyHEICFormSaysWhy(path: String) throws {
        let data = try Fixtures.data(path)
        let carried = try Self.preparer().prepareBlocking(data, name: "photo.heic")
        #expect(carried.uploadGainMap != nil && Self.gainMapWarnings(carried).isEmpty, "\(carried.warnings)")
        let photoPixels = carried.metadata.originalSize.pixelCount
        let refused = try Self.preparer(maxPixels: photoPixels).prepareBlocking(data, name: "photo.heic")
        #expect(refused.uploadGainMap == nil)
        let warnings = Self.gainMapWarnings(refused)
        #expect(warnings.count == 1 && warnings[0].message.contains("decoded whole"), "\(path): \(refused.warnings)")
        #expect(refused.upload.size == carried.upload.size)
    }

    /// `mpf-ultrahdr-gainmap-3840x2160.jpg` with its gain map made progressive and as large as
    /// the photo: ImageMagick's `-resize 3840x2160! -interlace JPEG` re-encodes it, and the original's APPn segments (its hdrgm XMP) are put
    /// back before the new frame. libjpeg would hold every coefficient of it.
    static func progressiveGainMapJPEG() async throws -> [UInt8] {
        let original = [UInt8](try Fixtures.data(GainMapTests.corpus))
        let layout = try UltraHDRLayout(original)
        let baselineGainMap = Array(original[layout.gainMapStart...])
        return try await withTemporaryFolder(label: "progressive") { folder in
            let baseline = folder.appendingPathComponent("gain-map.jpg")
            let progressive = folder.appendingPathComponent("progressive.jpg")
            try Data(baselineGainMap).write(to: baseline)
            let (status, log) = try runToEnd(
                "/usr/bin/convert",
                ["-quiet", baseline.path, "-strip", "-resize", "3840x2160!", "-interlace", "JPEG", progressive.path])
            try #require(status == 0, "ImageMagick's convert: \(log)")
            let encoded = [UInt8](try Data(contentsOf: progressive))
            let gainMap =
                [0xFF, 0xD8] + applicationSegments(of: baselineGainMap)
                + encoded[firstNonApplicationSegment(of: encoded)...]
            let marker = gainMap.withUnsafeBytes { SegmentWalker.walk($0).frame?.marker }
            try #require(marker == 0xC2, "a progressive frame")
            var bytes = Array(original[..<layout.gainMapStart]) + gainMap
            layout.writeBigEndian(UInt32(gainMap.count), at: layout.gainMapEntry + 4, in: &bytes)
            return bytes
        }
    }

    /// The APPn segments of a JPEG, whole, in order, up to its first other segment.
    static func applicationSegments(of jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[2..<firstNonApplicationSegment(of: jpeg)])
    }

    static func firstNonApplicationSegment(of jpeg: [UInt8]) -> Int {
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, (0xE0...0xEF).contains(jpeg[offset + 1]) {
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return offset
    }

    @Test("a progressive Ultra HDR gain map is carried within the budget, and left out with a warning over it")
    func progressiveJPEGGainMap() async throws {
        try Self.checkProgressive(Data(try await Self.progressiveGainMapJPEG()))
    }

    static func checkProgressive(_ bytes: Data) throws {
        let carried = try Self.preparer().prepareBlocking(bytes, name: "photo.jpg")
        #expect(carried.uploadGainMap != nil && Self.gainMapWarnings(carried).isEmpty, "\(carried.warnings)")
        // A 3840x2160 gain map: over an eighth of a limit of the photo's own pixels.
        let refused = try Self.preparer(maxPixels: 3840 * 2160).prepareBlocking(bytes, name: "photo.jpg")
        #expect(refused.uploadGainMap == nil)
        let warning = try #require(Self.gainMapWarnings(refused).first)
        #expect(warning.message.contains("decoded whole"), "\(warning.message)")
        // The same limit takes the original gain map (960x540, an eighth of the limit's eighth).
        let baseline = try Self.preparer(maxPixels: 3840 * 2160).prepareBlocking(
            Fixtures.data(GainMapTests.corpus), name: "photo.jpg")
        #expect(baseline.uploadGainMap != nil)
    }

    @Test(
        "an iPhone JPEG whose gain map cannot be located (cut short by 3,000 bytes, its offset off by two) says so",
        arguments: ["cut", "offset"])
    func unlocatableAppleGainMap(damage: String) throws {
        let original = [UInt8](try Fixtures.data("phones/iphone-jpeg-apple-gainmap-v1.jpg"))
        let intact = try Self.preparer().prepareBlocking(Data(original), name: "photo.jpg")
        #expect(intact.uploadGainMap != nil)
        var bytes = original
        if damage == "cut" {
            bytes.removeLast(3000)
        } else {
            let layout = try UltraHDRLayout(bytes)
            let entry = layout.gainMapEntry
            let offset = (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[entry + 8 + $1]) }
            layout.writeBigEndian(offset + 2, at: entry + 8, in: &bytes)
        }
        // The photo itself is whole: the gain map is last.
        let photo = try Self.preparer().prepareBlocking(Data(bytes), name: "photo.jpg")
        #expect(photo.uploadGainMap == nil)
        #expect(Self.gainMapWarnings(photo).count == 1, "\(photo.warnings)")
    }

    @Test("a JPEG with an MPF image that cannot be located and no Apple headroom gets no gain map warning")
    func unlocatableNonHDRImage() throws {
        let name = "corpus/offset-plus0200-gopro-6digit-subsec-mpf.jpg"
        var bytes = [UInt8](try Fixtures.data(name))
        bytes.removeLast(min(3000, bytes.count / 4))
        var preparer = Self.preparer()
        preparer.configuration.acceptsIncompleteData = true
        let photo = try? preparer.prepareBlocking(Data(bytes), name: "photo.jpg")
        #expect(photo.map { Self.gainMapWarnings($0).isEmpty } ?? true)
    }
}

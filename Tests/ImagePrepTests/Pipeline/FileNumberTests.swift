import Foundation
import Testing

@testable import ImagePrep

/// Numbers a file gives that once reached arithmetic or a conversion unchecked, and trapped
/// (issue 28: a file can never trap the process). Each test traps without its fix.
@Suite("Numbers from files")
struct FileNumberTests {
    /// A baseline 4:2:0 JPEG header up to its scan, with a restart interval of one MCU, whose
    /// frame says `width` by 16 pixels, then two restart intervals of made-up entropy data.
    static func restartJPEG(width: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8]
        // SOF0: precision 8, height 16, the width, three components (Y 2x2, Cb and Cr 1x1).
        bytes += [0xFF, 0xC0, 0x00, 17, 8, 0x00, 16, UInt8(width >> 8), UInt8(width & 0xFF), 3]
        bytes += [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        // DRI: an interval of one MCU.
        bytes += [0xFF, 0xDD, 0x00, 4, 0x00, 0x01]
        // SOS: the three components, full spectral range.
        bytes += [0xFF, 0xDA, 0x00, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]
        for marker in 0..<9 { bytes += [0x12, 0x34, 0xFF, 0xD0 + UInt8(marker % 8)] }
        bytes += [0x56, 0xFF, 0xD9]
        return bytes
    }

    /// A frame width of 0 once made RestartSplit divide by zero MCUs a row (`interval % 0`).
    @Test("a restart split of a frame 0 pixels wide is refused, not divided by zero")
    func restartSplitOfZeroWidth() {
        let bytes = Self.restartJPEG(width: 0)
        let split = bytes.withUnsafeBytes { RestartSplit.find(in: $0, layout: SegmentWalker.walk($0)) }
        #expect(split == nil)
    }

    /// The pipeline refuses such a frame before it looks for a split, with the error it already
    /// gives a size of 0; the split's own check is for any other caller.
    @Test("a JPEG whose frame is 0 pixels wide is refused as corrupt")
    func zeroWidthPhotoIsRefused() throws {
        var configuration = PhotoPreparer.Configuration()
        configuration.splitsWorkAcrossCores = true
        let preparer = try PhotoPreparer(configuration: configuration)
        let error = try #require(throws: ImagePrepError.self) {
            try preparer.prepareBlocking(Data(Self.restartJPEG(width: 0)), name: "zero-width.jpg")
        }
        guard case .corruptJPEG = error else {
            Issue.record("expected .corruptJPEG, got \(error)")
            return
        }
    }

    /// TurboJPEG's worst case for a 20000-pixel square is 2.4 GB, past the `Int32` that
    /// `tjAlloc` takes: a side the file gave, under a raised `maxPixels` and `maxEdge`, once
    /// trapped in `Int32(needed)`. Now there is no buffer, and the encode fails with an error.
    @Test("an encode buffer too large for tjAlloc is left empty, not converted with a trap")
    func encodeBufferPastInt32() {
        let buffer = EncodeBuffer()
        buffer.reserve(for: PixelSize(width: 64, height: 64), gray: false)
        #expect(buffer.capacity > 0 && buffer.bytes != nil)
        buffer.reserve(for: PixelSize(width: 20_000, height: 20_000), gray: false)
        #expect(buffer.capacity == 0 && buffer.bytes == nil)
        // A side past Int32, which tjBufSize cannot even be asked about.
        buffer.reserve(for: PixelSize(width: Int(Int32.max) + 1, height: 1), gray: true)
        #expect(buffer.capacity == 0 && buffer.bytes == nil)
    }

    /// `UTCOffset` and `CaptureTime` are `Codable`: minutes read back from a stored JSON file can
    /// be any `Int`. `abs(Int.min)` and `Int.max * 60` once trapped.
    @Test("a capture time decoded with an offset of Int.min or Int.max minutes does not trap")
    func decodedOffsetExtremes() throws {
        let lowest = try JSONDecoder().decode(UTCOffset.self, from: Data(#"{"minutes":-9223372036854775808}"#.utf8))
        #expect(lowest.minutes == .min)
        #expect(lowest.description.hasPrefix("-"))
        let local = LocalDateTime(year: 2024, month: 4, day: 30, hour: 14, minute: 2, second: 5)
        for offset in [lowest, UTCOffset(minutes: .max)] {
            let time = CaptureTime(local: local, utcOffset: offset, source: .dateTimeOriginal, offsetSource: .dateTag)
            #expect(time.instant == nil)
            #expect(!time.iso8601.isEmpty)
        }
    }
}

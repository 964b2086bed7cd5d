import Foundation

/// What the tests need to know about a JPEG that `prep-photo` wrote, read here from the bytes, apart
/// from the code under test.
struct JPEGFile {
    let byteCount: Int
    /// The frame size from the first SOF segment; nil when there is none before the data runs out.
    let size: PhotoReport.Size?
    /// Starts with SOI (FF D8) and ends with EOI (FF D9): not cut off halfway.
    let isComplete: Bool

    init(path: String) throws {
        self.init(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    init(bytes: [UInt8]) {
        byteCount = bytes.count
        isComplete = bytes.starts(with: [0xFF, 0xD8]) && bytes.suffix(2) == [0xFF, 0xD9]
        size = Self.frameSize(bytes)
    }

    /// Walks the segments after SOI up to the first SOFn (C0–CF except DHT C4, JPG C8 and DAC CC).
    private static func frameSize(_ bytes: [UInt8]) -> PhotoReport.Size? {
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xFF {  // fill byte
                index += 1
                continue
            }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                let height = Int(bytes[index + 5]) << 8 | Int(bytes[index + 6])
                let width = Int(bytes[index + 7]) << 8 | Int(bytes[index + 8])
                return PhotoReport.Size(width: width, height: height)
            }
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return nil
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// Where the parts of the crafted Ultra HDR file are, found by a walk of our own.
struct UltraHDRLayout {
    let mpfSegment: Int
    /// The TIFF header of the MPF payload, the origin of its offsets.
    let mpfOrigin: Int
    let imageCountValue: Int
    /// The second MP entry.
    let gainMapEntry: Int
    let gainMapStart: Int
    let gainMapFrame: Int
    let gainMapScanData: Int

    init(_ bytes: [UInt8]) throws {
        func segments(from start: Int) -> [(marker: UInt8, at: Int, length: Int)] {
            var found: [(UInt8, Int, Int)] = []
            var offset = start + 2
            while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
                let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
                found.append((bytes[offset + 1], offset, length))
                if bytes[offset + 1] == 0xDA { break }
                offset += 2 + length
            }
            return found
        }
        let mpf = try #require(
            segments(from: 0).first { $0.marker == 0xE2 && bytes[($0.at + 4)...].starts(with: Array("MPF\0".utf8)) })
        mpfSegment = mpf.at
        mpfOrigin = mpf.at + 8
        func bigEndian(_ at: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[at + $1]) } }
        imageCountValue = mpfOrigin + 8 + 2 + 12 + 8
        gainMapEntry = mpfOrigin + 8 + 2 + 3 * 12 + 4 + 16
        gainMapStart = mpfOrigin + bigEndian(gainMapEntry + 8)
        let gainMap = segments(from: gainMapStart)
        gainMapFrame = try #require(gainMap.first { $0.marker == 0xC0 }).at
        let scan = try #require(gainMap.last { $0.marker == 0xDA })
        gainMapScanData = scan.at + 2 + scan.length
    }

    func writeBigEndian(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (3 - index))) }
    }

    /// Writes the gain map entry's field `field` (0 attribute, 1 length, 2 offset).
    func write(_ value: UInt32, atEntryField field: Int, in bytes: inout [UInt8]) {
        writeBigEndian(value, at: gainMapEntry + 4 * field, in: &bytes)
    }
}

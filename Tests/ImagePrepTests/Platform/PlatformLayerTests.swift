import Foundation
import Testing

/// What the platform layer puts where the macOS 15 / iOS 18 standard library would have been.
@Suite("Platform layer")
struct PlatformLayerTests {
    @Test("UTF-8 validation agrees with Foundation's on valid, invalid, overlong and surrogate bytes")
    func validUTF8() {
        let cases: [[UInt8]] = [
            Array("café ☕︎ 𝄞".utf8), [], [0], [0x63, 0x61, 0x66, 0xE9],  // Latin-1 é
            [0xC0, 0xAF],  // overlong "/"
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0xF4, 0x90, 0x80, 0x80],  // beyond U+10FFFF
            [0xE2, 0x82],  // cut short
            Array("\u{FFFD}".utf8),  // the replacement character itself is valid
        ]
        for bytes in cases {
            #expect(String(validUTF8: bytes) == String(bytes: bytes, encoding: .utf8), "\(bytes)")
        }
        #expect(String(validUTF8: [0x63, 0x61, 0x66, 0xE9]) == nil)
        "ok\u{E9}".withCString { #expect(String(validUTF8CString: $0) == "ok\u{E9}") }
        let latin1: [CChar] = [0x6F, 0x6B, CChar(bitPattern: 0xE9), 0]
        latin1.withUnsafeBufferPointer { #expect(String(validUTF8CString: $0.baseAddress!) == nil) }
    }

    @Test("Locked gives each of 8 threads × 10,000 takes a number of its own")
    func lockedCounter() async {
        let counter = Locked(0)
        let taken = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<10_000).map { _ in counter.takeNext() } }
            }
            return await group.reduce(into: [Int]()) { $0 += $1 }
        }
        #expect(Set(taken).count == 80_000)
        #expect(counter.withLock { $0 } == 80_000)
    }
}

import Testing

@testable import ImagePrep

@Suite("ByteReader: bounded reads of the numbers in a file's headers")
struct ByteReaderTests {
    let bytes: [UInt8] = [0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0x01]

    @Test("reads big- and little-endian numbers of every size it is asked for")
    func byteOrders() {
        bytes.withUnsafeBytes { bytes in
            let big = ByteReader(bytes)
            let little = ByteReader(bytes, byteOrder: .littleEndian)
            #expect(big.uint16(at: 0) == 0x1234)
            #expect(little.uint16(at: 0) == 0x3412)
            #expect(big.uint32(at: 1) == 0x3456_789A)
            #expect(little.uint32(at: 1) == 0x9A78_5634)
            #expect(big.uint(at: 0, size: 3) == 0x12_3456)
            #expect(big.uint(at: 1, size: 8) == 0x3456_789A_BCDE_F001)
            #expect(little.uint(at: 1, size: 8) == 0x01F0_DEBC_9A78_5634)
            #expect(big.uint(at: 9, size: 0) == 0)
        }
    }

    @Test("a read past either end of its range, or at a hostile offset, is nil or an error, never a crash")
    func outOfRange() {
        bytes.withUnsafeBytes { bytes in
            let whole = ByteReader(bytes)
            #expect(whole.uint32(at: 6) == nil)
            #expect(whole.uint16(at: -1) == nil)
            #expect(whole.uint16(at: Int.max) == nil)
            #expect(whole.uint16(at: Int.min) == nil)
            #expect(whole.uint(at: 0, size: 9) == nil)
            #expect(whole.uint(at: 0, size: -1) == nil)
            let part = ByteReader(bytes, range: 2..<6)
            #expect(part.uint16(at: 1) == nil)
            #expect(part.uint32(at: 2) == 0x5678_9ABC)
            #expect(part.uint32(at: 3) == nil)
            let empty: [UInt8] = []
            empty.withUnsafeBytes { empty in #expect(ByteReader(empty).uint16(at: 0) == nil) }
        }
    }

    @Test("a sequential read moves on, and one cut short throws where it started without moving")
    func sequential() throws {
        try bytes.withUnsafeBytes { bytes throws in
            var reader = ByteReader(bytes, range: 4..<9)
            #expect(try reader.readUInt16() == 0x9ABC)
            #expect(try reader.readUInt16() == 0xDEF0)
            #expect(throws: ByteReader.PastEnd(offset: 8, size: 4)) { try reader.readUInt32() }
            #expect(reader.offset == 8)
            #expect(try reader.read(1) == 0x01)
            #expect(throws: ByteReader.PastEnd(offset: 9, size: 1)) { try reader.read(1) }
        }
    }
}

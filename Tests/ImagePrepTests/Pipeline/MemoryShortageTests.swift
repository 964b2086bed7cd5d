import Foundation
import Testing

@testable import ImagePrep

/// Memory the system will not give is an error naming the photo, never a crash: an app under
/// iOS's memory limit, or a process under `ulimit -v`, gets `.outOfMemory` and goes on.
@Suite("Memory the system will not give")
struct MemoryShortageTests {
    @Test("a buffer larger than the address space is a Shortage, not a trap")
    func pageMemoryShortage() {
        for byteCount in [1 << 62, Int.max] {
            #expect(throws: PageMemory.Shortage.self) { _ = try PageMemory(byteCount: byteCount) }
        }
    }

    @Test("an image whose planes cannot be had is .outOfMemory naming the file, and holds nothing afterwards")
    func planarImageShortage() throws {
        let image = PlanarImage()
        try image.reshape(size: PixelSize(width: 64, height: 48), isGray: false, subsampling: .quarter, file: "a.jpg")
        let error = #expect(throws: ImagePrepError.self) {
            try image.reshape(
                size: PixelSize(width: 1 << 31, height: 1 << 30), isGray: false, subsampling: .quarter,
                file: "huge.jpg")
        }
        #expect(error?.code == "out_of_memory")
        #expect(error?.file == "huge.jpg")
        #expect(
            error?.localizedDescription
                == "'huge.jpg' could not be prepared: the system would not give one of its buffers the memory it needs "
                + "(\((1 << 61) >> 20) MB).")
        #expect(image.planes.allSatisfy { $0.width == 0 && $0.height == 0 })
        // Usable again once there is memory: the next photo's reshape allocates afresh.
        try image.reshape(size: PixelSize(width: 64, height: 48), isGray: true, subsampling: .full, file: "b.jpg")
        #expect(image.planes[0].width == 64 && image.planes[0].height == 48)
    }

    @Test("a size whose bytes overflow says so rather than a number")
    func overflowingSize() {
        let error = #expect(throws: ImagePrepError.self) {
            try PlanarImage().reshape(
                size: PixelSize(width: Int.max / 2, height: 4), isGray: true, subsampling: .full, file: "x.jpg")
        }
        #expect(
            error?.localizedDescription
                == "'x.jpg' could not be prepared: the system would not give one of its buffers the memory it needs "
                + "(more than can be counted).")
    }

    @Test("a file's bytes that cannot be had throw the caller's own error")
    func photoBytesShortage() {
        struct NoRoom: Error {}
        #expect(throws: NoRoom.self) {
            _ = try PhotoBytes.read(capacity: 1 << 62, shortage: NoRoom()) { _ throws(NoRoom) in 0 }
        }
    }
}

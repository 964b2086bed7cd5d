import Foundation
import Testing

@testable import ImagePrep

/// `JPEGCopyHeader` reads back what `prepare` says of a copy, without a decode; and a copy that is
/// not what was written (cut short, bytes changed, not a JPEG) gives what can be read, or nil,
/// never a crash.
@Suite("JPEG copy headers")
struct JPEGCopyHeaderTests {
    static func prepared(_ fixture: String) throws -> PreparedPhoto {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 160
        return try PhotoPreparer(configuration: configuration).prepareBlocking(Fixtures.data(fixture), name: fixture)
    }

    @Test("An upload's size and gain map, and a display copy's size, read back as prepare made them")
    func readsWhatPrepareMade() throws {
        for fixture in [
            "crafted/ultrahdr-320x240-iso.jpg", "heic/gainmap/iphone-hdr-320x240.heic", "corpus/no-exif.jpg",
        ] {
            let photo = try Self.prepared(fixture)
            let upload = try #require(JPEGCopyHeader.read(photo.upload.data), "\(fixture)")
            #expect(upload.size == photo.upload.size, "\(fixture)")
            #expect(
                upload.gainMap
                    == photo.uploadGainMap.map { JPEGCopyHeader.GainMap(size: $0.size, byteCount: $0.data.count) },
                "\(fixture)")
            let display = try #require(photo.display)
            #expect(JPEGCopyHeader.read(display.data) == JPEGCopyHeader(size: display.size, gainMap: nil))
        }
    }

    @Test(
        "Cut short, or with bytes changed, an Ultra HDR upload gives its size or nil, and a gain map only when one can be read"
    )
    func hostileCopies() throws {
        let upload = try Self.prepared("crafted/ultrahdr-320x240-iso.jpg").upload.data
        let whole = try #require(JPEGCopyHeader.read(upload))
        #expect(whole.gainMap != nil)
        for length in stride(from: 0, to: upload.count, by: 97) {
            let header = JPEGCopyHeader.read(upload.prefix(length))
            if let header { #expect(header.size == whole.size, "cut at \(length)") }
            if let gainMap = header?.gainMap { #expect(gainMap == whole.gainMap, "cut at \(length)") }
        }
        var generator = SplitMix64(seed: 44)  // seeded: a failing run can be made again
        for _ in 0..<2000 {
            var changed = upload
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                // The headers and the MPF index are in the first few hundred bytes.
                let index = Int.random(in: 0..<min(upload.count, 2048), using: &generator)
                changed[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if let gainMap = JPEGCopyHeader.read(changed)?.gainMap {
                #expect(gainMap.byteCount > 0 && gainMap.byteCount <= changed.count)
            }
        }
        #expect(JPEGCopyHeader.read(Data("not a jpeg".utf8)) == nil)
        #expect(JPEGCopyHeader.read(Data()) == nil)
    }
}

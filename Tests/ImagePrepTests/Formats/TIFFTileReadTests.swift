import Foundation
import Testing

@testable import ImagePrep

/// Tiled TIFFs read tile by tile (`TIFFRowReader.readTileRows`) instead of through libtiff's RGBA
/// reader: every tiled fixture takes the new path, and its upload planes are the RGBA reader's,
/// byte for byte for 8-bit samples (within one level for 16-bit ones, which the RGBA reader
/// rounds to 8 bits and the row reader cuts, as it does for strips).
@Suite("Tiled TIFF read tile by tile")
struct TIFFTileReadTests {
    static let tiled: [(file: String, tolerance: Int)] = [
        ("tiff-tiles-uncompressed-rgb-pillow.tif", 0),
        ("tiff-tiles-jpeg-ycbcr-icc-pillow.tif", 0),
        ("tiff-bigtiff-tiles-twelvemonkeys.tif", 0),
        ("tiff-16bit-rgb-deflate-tiled-pillow.tiff", 1),
    ]

    /// The upload planes of `file` as read by the tile reader or by the RGBA reader.
    static func uploadPlanes(_ file: String, throughRGBAReader: Bool) throws -> [[UInt8]] {
        let bytes = try Fixtures.data("formats/" + file)
        return try bytes.withUnsafeBytes { raw in
            let handle = try TIFFHandle(raw, file: file)
            let read = TIFFImageLayout(handle)
            let layout = try #require(read)
            #expect(layout.isTiled && layout.isRowConvertible, "\(file) takes the tile reader")
            let context = PreparationContext(
                configuration: .init(), workspace: WorkspaceBuffers(keepsBuffersBetweenPhotos: false), file: file)
            let upload = try RowStreamUpload(
                context: context, sourceSize: layout.size, uploadSize: layout.size.fitting(longEdge: 2048),
                layout: throughRGBAReader ? .rgba : layout.pushedLayout)
            let reader = TIFFRowReader(
                layout: layout, upload: upload, cancellation: context.cancellation, file: file)
            let isComplete =
                throughRGBAReader
                ? try reader.readRGBABands(handle) == true : try reader.readRows(handle, cmykProfile: nil).isComplete
            #expect(isComplete && !upload.needsRows, "\(file): every row read")
            return upload.finish().activePlanes.map { plane in
                (0..<plane.height).flatMap { y in UnsafeBufferPointer(start: plane.row(y), count: plane.width) }
            }
        }
    }

    @Test("the tile reader's upload is the RGBA reader's", arguments: tiled)
    func matchesRGBAReader(file: String, tolerance: Int) throws {
        let tiles = try Self.uploadPlanes(file, throughRGBAReader: false)
        let rgba = try Self.uploadPlanes(file, throughRGBAReader: true)
        try #require(tiles.map(\.count) == rgba.map(\.count), "\(file): plane sizes")
        let largest = zip(tiles.joined(), rgba.joined()).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= tolerance, "\(file): samples differ by up to \(largest)")
    }
}

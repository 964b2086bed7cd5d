import Foundation
import Testing

@testable import ImagePrep

@Suite("Memory")
struct MemoryTests {
    /// An 8000x6000 (48 MP) 4:2:0 JPEG of smooth gradients, made with the package's own encoder
    /// so that no large file sits in the repository.
    static func make48MegapixelJPEG() throws -> Data {
        let size = PixelSize(width: 8000, height: 6000)
        let image = PlanarImage()
        try image.reshape(size: size, isGray: false, subsampling: .quarter, file: "test")
        for (index, plane) in image.planes.enumerated() {
            for y in 0..<plane.height {
                // Bands that change down the picture, different in each plane.
                let value = UInt8(truncatingIfNeeded: (y * (index + 1)) / 24 + 40 * index)
                plane.row(y).update(repeating: value, count: plane.width)
            }
        }
        return try JPEGEncoder.encode(
            image, quality: 50, carrying: [CarriedSegments()], compressor: Compressor(file: "48mp"),
            buffer: EncodeBuffer(),
            file: "48mp")[0]
    }

    @Test("a 48 MP photo is decoded in strips at full size: no buffer of the pipeline is larger than the upload")
    func fortyEightMegapixels() throws {
        let jpeg = try Self.make48MegapixelJPEG()
        var configuration = PhotoPreparer.Configuration()
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        let workspace = PreparationWorkspace()
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            jpeg, name: "48mp.jpg", workspace: workspace)

        #expect(photo.metadata.originalSize == PixelSize(width: 8000, height: 6000))
        #expect(photo.upload.size == PixelSize(width: 2048, height: 1536))
        // 1/2 would leave the resampler less than 2x (4000 for 2048), so libjpeg decodes it all.
        #expect(workspace.lastDecode.size == PixelSize(width: 8000, height: 6000))
        #expect(workspace.lastDecode.isStripWise)
        // Every plane the pipeline sized, padding included, is at most the upload's luma.
        let planeSizes = workspace.inspectKeptBuffers { $0.images.flatMap { $0.planes.map { ($0.width, $0.height) } } }
        for (width, height) in try #require(planeSizes) {
            #expect(width <= 2048 && height <= 1536, "a \(width)x\(height) plane")
        }
        let upload = try DecodedJPEG(photo.upload.data)
        #expect(upload.size == photo.upload.size && upload.warnings.isEmpty)
    }

    /// A workspace for one photo gives a whole-image decode (CMYK, here) back once the upload
    /// copy is made from it; a batch worker's keeps it for the next photo. A YCbCr photo is
    /// decoded in strips and never fills it.
    @Test("a one-photo workspace releases the full-size decode; a batch worker's keeps it", arguments: [false, true])
    func decodeReleasedUnlessKept(keepsBuffers: Bool) throws {
        let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: keepsBuffers)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 80
        let name = "corpus/cmyk-adobe-no-icc.jpg"
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data(name), name: name, workspace: workspace)
        #expect(photo.upload.size == PixelSize(width: 56, height: 80))
        #expect(workspace.lastDecode.size == PixelSize(width: 80, height: 114) && !workspace.lastDecode.isStripWise)
        let decodedSize = keepsBuffers ? PixelSize(width: 80, height: 114) : PixelSize(width: 0, height: 0)
        #expect(workspace.inspectKeptBuffers { $0.decoded.size } == decodedSize)
        #expect(workspace.inspectKeptBuffers { $0.decoded.planes[0].width } == decodedSize.width)

        let strips = PreparationWorkspace(keepsBuffersBetweenPhotos: keepsBuffers)
        let ycbcr = "corpus/orientation-landscape-1.jpg"
        _ = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data(ycbcr), name: ycbcr, workspace: strips)
        #expect(strips.lastDecode.isStripWise)
        #expect(strips.inspectKeptBuffers { $0.decoded.size } == PixelSize(width: 0, height: 0))
    }
}

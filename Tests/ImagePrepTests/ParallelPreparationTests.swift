import Foundation
import Testing

@testable import ImagePrep

@Suite("One photo on two threads")
struct ParallelPreparationTests {
    /// Splitting the resample into bands and making the copies on two lanes must change nothing:
    /// every output row is computed the same way whichever thread makes it.
    @Test(
        "splitting a photo's work across cores gives byte-identical copies",
        arguments: [
            "corpus/phone-orientation6-samsung-j3.jpg",  // turned, downscaled
            "corpus/gps-north-west-display-p3-nikon.jpg",  // colour-converted
            "decode/ycc422-odd-223x149.jpg",  // odd size, 4:2:2
        ])
    func splitWorkIsIdentical(path: String) throws {
        let data = try Fixtures.data(path)
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = path.hasPrefix("decode") ? 100 : 1024
        let alone = try PhotoPreparer(configuration: configuration).prepare(data, name: path)
        configuration.splitsWorkAcrossCores = true
        let split = try PhotoPreparer(configuration: configuration).prepare(data, name: path)
        #expect(split.upload == alone.upload)
        #expect(split.display == alone.display)
        #expect(split.thumbnail == alone.thumbnail)
        #expect(split.warnings == alone.warnings)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// libjxl's thread runner (`JXLSource.decodingThreads`): a photo that may use two cores is decoded
/// on libjxl's threads, whose callbacks come from both at once, and its copies are the same, byte
/// for byte, as those of the decode on the calling thread alone; a batch's photo gets no threads.
@Suite("JPEG XL on libjxl's threads")
struct JXLThreadTests {
    /// The fixtures of more than one 256-pixel group, so that two threads hand rows over at once.
    static let files = [
        "jxl-codestream-naked-bicycles-conformance.jxl",
        "jxl-codestream-naked-animated-conformance.jxl",
        "jxl-container-jpeg-reconstruction-cafe-conformance.jxl",
    ]

    @Test("threaded copies are the single-threaded copies, byte for byte", arguments: files)
    func threadedMatchesAlone(file: String) throws {
        var copies: [[Data?]] = []
        for splits in [false, true] {
            var configuration = PhotoPreparer.Configuration()
            configuration.splitsWorkAcrossCores = splits
            let workspace = PreparationWorkspace(keepsBuffersBetweenPhotos: false)
            // Several rounds: a race between the threads would show in one of them.
            for _ in 0..<4 {
                let photo = try FormatSourceTests.prepare(file, configuration: configuration, workspace: workspace)
                #expect(workspace.lastDecode.decodingThreads == (splits ? 2 : 0), "\(file)")
                copies.append([photo.upload.data, photo.display?.data, photo.thumbnail?.data])
            }
        }
        for (index, round) in copies.enumerated().dropFirst() {
            #expect(round == copies[0], "\(file): round \(index) differs from the single-threaded decode")
        }
    }
}

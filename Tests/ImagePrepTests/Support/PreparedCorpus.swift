import Foundation

@testable import ImagePrep

/// Each corpus file prepared once per test run and shared by the golden tests that look at it:
/// a debug build takes seconds to resample a 12 MP photo.
actor PreparedCorpus {
    static let shared = PreparedCorpus()

    /// Upload copy only (what the golden tests check) at quality 100, so that the pixel
    /// comparison measures the resampling rather than the JPEG quantisation; the other settings
    /// are the defaults (long edge 2048).
    static let configuration: PhotoPreparer.Configuration = {
        var configuration = PhotoPreparer.Configuration()
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        configuration.quality = 100
        return configuration
    }()

    private var runs: [String: Task<Result<PreparedPhoto, ImagePrepError>, Never>] = [:]

    /// The result of preparing `corpus/<name>`.
    func prepared(_ name: String) async throws -> Result<PreparedPhoto, ImagePrepError> {
        if let run = runs[name] { return await run.value }
        let data = try Fixtures.data("corpus/" + name)
        let run = Task.detached {
            Result { () throws(ImagePrepError) in
                try PhotoPreparer(configuration: Self.configuration).prepareBlocking(data, name: name)
            }
        }
        runs[name] = run
        return await run.value
    }
}

import Foundation
import Testing

@testable import ImagePrep

extension Fixtures {
    /// Prepares the fixture at `path` and checks that every copy is a JPEG libjpeg-turbo decodes cleanly.
    static func prepared(_ path: String, configuration: PhotoPreparer.Configuration = .init()) throws -> PreparedPhoto {
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            data(path), name: URL(fileURLWithPath: path).lastPathComponent)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size && decoded.warnings.isEmpty, "\(path)")
        }
        return photo
    }

    /// Prepares `formats/<name>` as it is: what its copies hold is for the test to check.
    static func preparedFormat(_ name: String, configuration: PhotoPreparer.Configuration = .init()) throws
        -> PreparedPhoto
    {
        try PhotoPreparer(configuration: configuration).prepareBlocking(data("formats/" + name), name: name)
    }
}

import Foundation
import Testing

@testable import ImagePrep

/// The PNGs of `Tests/Fixtures/formats/png`: real files copied in from public repositories (its
/// README gives each one's source, licence and sha256) and the ones `make-crafted.sh` writes with
/// ImageMagick; `hostile/` is `PNGHostileInputTests`'. Nothing is read from outside the bundle.
enum PNGFixtures {
    static let all: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("formats/png").path)) ?? []
        return names.filter { $0.hasSuffix(".png") || $0.hasSuffix(".apng") }.sorted().map { "formats/png/" + $0 }
    }()

    /// Prepares the fixture and checks that every copy is a JPEG libjpeg-turbo decodes cleanly.
    static func prepared(_ path: String, configuration: PhotoPreparer.Configuration = .init()) throws -> PreparedPhoto {
        let photo = try PhotoPreparer(configuration: configuration).prepareBlocking(
            Fixtures.data(path), name: URL(fileURLWithPath: path).lastPathComponent)
        for copy in [photo.upload, photo.display, photo.thumbnail].compactMap({ $0 }) {
            let decoded = try DecodedJPEG(copy.data)
            #expect(decoded.size == copy.size && decoded.warnings.isEmpty, "\(path)")
        }
        return photo
    }

    /// The upload's APP segments, as (marker, payload) pairs, JFIF left out.
    static func segments(of jpeg: Data) -> [(marker: UInt8, payload: [UInt8])] {
        jpeg.withUnsafeBytes { bytes in
            SegmentWalker.walk(bytes).segments.filter { (0xE1...0xEF).contains($0.marker) }.map {
                ($0.marker, Array(bytes[$0.payload]))
            }
        }
    }
}

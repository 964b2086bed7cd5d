import Foundation
import ImagePrep

/// What the engine tests take from `Tests/Fixtures`, and the reference engine beside the package's sources.
extension Fixtures {
    static let crafted = url("crafted")
    /// Stores and engine data written by earlier releases, a folder each (`stores/make.sh`).
    static let releaseStores = url("stores")
    /// Servers that answer the way no engine should (`misbehaving_engine.py`).
    static let misbehavingEngine = url("engines/misbehaving_engine.py")

    /// A copy of one of a release's stores (`queued`, `engine-data`, ...) at `destination`, to
    /// open and change: the fixture itself is never opened.
    ///
    /// - Parameter release: The commit of the release that wrote it; the release before issue 11
    ///   by default.
    static func copyReleaseStore(_ name: String, of release: String = "d7eef39", to destination: URL) throws -> URL {
        try FileManager.default.copyItem(
            at: releaseStores.appendingPathComponent("release-\(release)/\(name)"), to: destination)
        return destination
    }

    /// The reference engine and its own tests, beside this package's sources: they are the
    /// repository's, not the test bundle's, and python3 runs them from there.
    static let engineFolder = Repository.url("engine")

    /// Photos as `outbox add` would queue them, prepared by the real pipeline (small: no resampling).
    static func prepared(_ url: URL) throws -> PreparedPhoto {
        try PhotoPreparer(configuration: uploadOnly).prepareBlocking(contentsOf: url)
    }

    /// The configuration `outbox add --max-edge 512` uses.
    static let uploadOnly: PhotoPreparer.Configuration = {
        var configuration = PhotoPreparer.Configuration()
        configuration.maxEdge = 512
        configuration.displayEdge = nil
        configuration.thumbnailEdge = nil
        return configuration
    }()

    /// `count` different JPEG files: corpus photos (one with the camera's time and GPS, one with
    /// GPS only, and one of 1800x1200 that `--max-edge 512` resamples, which makes its preparation
    /// take a few milliseconds), each made unique by a COM segment that names it, which the upload
    /// copy carries.
    static func distinctPhotos(count: Int, in folder: URL) throws -> [URL] {
        let sources = [
            corpus.appendingPathComponent("offset-plus0200-pixel8pro-8x8.jpg"),
            crafted.appendingPathComponent("gps-south-west.jpg"),
            corpus.appendingPathComponent("orientation-landscape-1.jpg"),
        ]
        let originals = try sources.map { try Data(contentsOf: $0) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try (0..<count).map { number in
            let comment = Data("engine test photo \(number)".utf8)
            var segment = Data([0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)])
            segment += comment
            let original = originals[number % originals.count]
            let url = folder.appendingPathComponent(String(format: "photo-%03d.jpg", number))
            try (original.prefix(2) + segment + original.dropFirst(2)).write(to: url)
            return url
        }
    }
}

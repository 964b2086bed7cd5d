import Foundation

/// The files of `Tests/Fixtures`, which this target carries as its resource for every test
/// target: they are read from the test bundle, never from the working directory or from outside
/// the repository.
/// Each target adds what it reads of them in an extension (its `Support/Fixtures+…` files).
public enum Fixtures {
    /// The `Fixtures` folder in the test bundle.
    public static let root: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    /// The fixture at `relativePath`, such as `corpus/no-exif.jpg`.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    public static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    /// The real photos of `corpus`, which its `MANIFEST.tsv` and `expected.json` describe.
    public static let corpus = url("corpus")

    /// The SHA-256 that `MANIFEST.tsv` records for a corpus file (computed when the corpus was assembled).
    public static func manifestSHA256(_ name: String) throws -> String {
        try CorpusManifest.sha256(of: name, in: corpus)
    }
}

import Foundation

/// The package's own folder, for the tests that read its sources and docs (which are the
/// repository's, not the test bundle's): found from this file's path, so that a test's own
/// place in `Tests` does not matter.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The file or folder at `relativePath`, such as `Sources/ImagePrep`.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }
}

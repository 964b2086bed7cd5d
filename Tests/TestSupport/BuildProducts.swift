import Foundation

/// What the build put beside the test bundle: the package's executables (`prep-photo`, `outbox`,
/// `notes-example`, ...), which the tests run as a user would.
public enum BuildProducts {
    /// The build folder, where the test bundle and the executables are.
    public static let folder: URL = {
        var folder = Bundle.main.bundleURL
        if folder.pathExtension == "xctest" { folder.deleteLastPathComponent() }
        return folder
    }()

    /// The executable (or other product) `name` in the build folder.
    public static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }
}

import Foundation

/// A fresh folder for one test, removed afterwards (even a read-only one).
///
/// It and everything copied or written into it are readable by every user, so that a command
/// such as `prep-photo` can run on it as an unprivileged user when the tests run as root.
public struct TemporaryFolder {
    public let url: URL

    /// A new, empty folder, named for `label`.
    init(label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        try setMode(0o755, of: ".")
    }

    /// Runs `body` with a new, empty folder and removes the folder afterwards.
    public static func with<Result>(label: String = "ImagePrepTests", _ body: (TemporaryFolder) throws -> Result)
        throws -> Result
    {
        let folder = try TemporaryFolder(label: label)
        defer { folder.remove() }
        return try body(folder)
    }

    public func path(_ relativePath: String) -> String { url.appendingPathComponent(relativePath).path }

    /// Copies a file of `Tests/Fixtures` (such as `corpus/no-exif.jpg`) to `relativePath`, making folders on the way.
    public func copy(_ fixture: String, to relativePath: String) throws {
        try makeFolder((relativePath as NSString).deletingLastPathComponent)
        try FileManager.default.copyItem(atPath: Fixtures.url(fixture).path, toPath: path(relativePath))
        try setMode(0o644, of: relativePath)
    }

    /// Writes `data` to `relativePath`, making folders on the way.
    public func write(_ data: Data, to relativePath: String) throws {
        try makeFolder((relativePath as NSString).deletingLastPathComponent)
        try data.write(to: url.appendingPathComponent(relativePath))
        try setMode(0o644, of: relativePath)
    }

    /// Makes a folder and those above it, each readable by every user.
    public func makeFolder(_ relativePath: String) throws {
        var partial = ""
        for component in relativePath.split(separator: "/") {
            partial += (partial.isEmpty ? "" : "/") + component
            var isFolder: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path(partial), isDirectory: &isFolder) {
                try FileManager.default.createDirectory(atPath: path(partial), withIntermediateDirectories: false)
                try setMode(0o755, of: partial)
            }
        }
    }

    public func setMode(_ mode: Int, of relativePath: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(relativePath))
    }

    public func contents(of relativePath: String) throws -> Data {
        try Data(contentsOf: url.appendingPathComponent(relativePath))
    }

    public func exists(_ relativePath: String) -> Bool { FileManager.default.fileExists(atPath: path(relativePath)) }

    func remove() {
        // Without write permission on a folder even its owner cannot empty it.
        let below = FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []
        for relativePath in ["."] + below {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path(relativePath), isDirectory: &isFolder), isFolder.boolValue {
                try? setMode(0o755, of: relativePath)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a new empty folder, named for `label`, and removes the folder afterwards.
public func withTemporaryFolder<R>(
    label: String = "ImagePrepTests", _ body: (URL) async throws -> R
) async throws -> R {
    let folder = try TemporaryFolder(label: label)
    defer { folder.remove() }
    return try await body(folder.url)
}

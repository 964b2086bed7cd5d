import Foundation
import Testing

/// A fresh folder for one test, removed afterwards.
///
/// It and everything copied into it are readable by every user, so that `prep-photo` can run on it as
/// an unprivileged user when the tests run as root.
struct TemporaryFolder {
    let url: URL

    /// Runs `body` with a new, empty folder and removes the folder (even a read-only one) afterwards.
    static func with<Result>(_ body: (TemporaryFolder) throws -> Result) throws -> Result {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("prep-photo-tests-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let folder = TemporaryFolder(url: url)
        defer { folder.remove() }
        try folder.setMode(0o755, of: ".")
        return try body(folder)
    }

    func path(_ relativePath: String) -> String { url.appendingPathComponent(relativePath).path }

    /// Copies a file of `Tests/Fixtures` (such as `corpus/no-exif.jpg`) to `relativePath`, making folders on the way.
    func copy(_ fixture: String, to relativePath: String) throws {
        try makeFolder((relativePath as NSString).deletingLastPathComponent)
        try FileManager.default.copyItem(atPath: Fixtures.url(fixture).path, toPath: path(relativePath))
        try setMode(0o644, of: relativePath)
    }

    /// Writes `data` to `relativePath`, making folders on the way.
    func write(_ data: Data, to relativePath: String) throws {
        try makeFolder((relativePath as NSString).deletingLastPathComponent)
        try data.write(to: url.appendingPathComponent(relativePath))
        try setMode(0o644, of: relativePath)
    }

    /// Makes a folder and those above it, each readable by every user.
    func makeFolder(_ relativePath: String) throws {
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

    func setMode(_ mode: Int, of relativePath: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(relativePath))
    }

    func contents(of relativePath: String) throws -> Data {
        try Data(contentsOf: url.appendingPathComponent(relativePath))
    }

    func exists(_ relativePath: String) -> Bool { FileManager.default.fileExists(atPath: path(relativePath)) }

    /// The names in a folder, hidden ones included, sorted; not the mark prep-photo leaves in its
    /// output folder (`.prep-photo-output`), which `OutputMarkTests` checks.
    func names(in relativePath: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path(relativePath)).filter { $0 != Self.outputMark }
            .sorted()
    }

    /// Every path below the folder, relative to it, hidden ones included (but output marks), sorted.
    func allPaths() -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: url.path)
        return (enumerator?.allObjects as? [String] ?? []).filter {
            ($0 as NSString).lastPathComponent != Self.outputMark
        }.sorted()
    }

    static let outputMark = ".prep-photo-output"

    /// The temporary files `prep-photo` writes before renaming (`.prep-XXXXXX.tmp`) anywhere below
    /// the folder, and any other name ending in `.tmp`, names that are not UTF-8 included.
    func temporaryFiles() -> [String] {
        allRawPaths().filter { $0.reversed().starts(with: Array(".tmp".utf8).reversed()) }.map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    private func remove() {
        // Without write permission on a folder even its owner cannot empty it.
        for relativePath in ["."] + allPaths() {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path(relativePath), isDirectory: &isFolder), isFolder.boolValue {
                try? setMode(0o755, of: relativePath)
            }
        }
        try? FileManager.default.removeItem(at: url)
    }
}

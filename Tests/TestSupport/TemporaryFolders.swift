import Foundation

/// Runs `body` with a new empty folder, named for `label`, and removes the folder afterwards.
public func withTemporaryFolder<R>(
    label: String = "ImagePrepTests", _ body: (URL) async throws -> R
) async throws -> R {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// What `Tests/Fixtures/corpus/MANIFEST.tsv` records of its files.
public enum CorpusManifest {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The SHA-256 that the manifest in `corpus` records for `name` (computed when the corpus
    /// was assembled).
    public static func sha256(of name: String, in corpus: URL) throws -> String {
        let manifest = try String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        let rows = manifest.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        guard let header = rows.first, let column = header.firstIndex(of: "sha256") else {
            throw Missing(description: "MANIFEST.tsv has no sha256 column")
        }
        guard let row = rows.first(where: { $0.first.map(String.init) == name }), row.count > column else {
            throw Missing(description: "MANIFEST.tsv has no row for \(name)")
        }
        return String(row[column])
    }
}

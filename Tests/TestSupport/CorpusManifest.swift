import Foundation

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

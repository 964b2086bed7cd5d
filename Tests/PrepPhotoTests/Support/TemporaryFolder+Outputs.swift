import Foundation

/// What a test of `prep-photo` reads of a folder it ran on: the names it wrote, and the
/// temporary files it must not leave.
extension TemporaryFolder {
    /// The mark prep-photo leaves in its output folder, which `OutputMarkTests` checks.
    static let outputMark = ".prep-photo-output"

    /// The names in a folder, hidden ones included, sorted; not prep-photo's output mark.
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

    /// The temporary files `prep-photo` writes before renaming (`.prep-XXXXXX.tmp`) anywhere below
    /// the folder, and any other name ending in `.tmp`, names that are not UTF-8 included.
    func temporaryFiles() -> [String] {
        allRawPaths().filter { $0.reversed().starts(with: Array(".tmp".utf8).reversed()) }.map {
            String(decoding: $0, as: UTF8.self)
        }
    }
}

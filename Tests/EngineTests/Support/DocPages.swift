import Foundation
import Testing

/// The pages of the README and docs/, and their fenced blocks, for the tests that hold them to
/// the code (`AppBuildTests`, `DocExampleTests`).
enum DocPages {
    static let repository = PlatformFileTests.repository

    /// A fenced block: its info string (`swift`, `sh`, or none), the line of its opening fence,
    /// the line above that (where a page says how the block is tested), and its lines.
    struct Block {
        let info: String
        let line: Int
        let above: String
        let lines: [String]
    }

    /// README.md, every page of docs/ and the articles of the DocC catalogues
    /// (`Sources/<Module>/<Module>.docc/**.md`: the landing pages, "Getting started" and the
    /// extension files' examples), by path
    /// below the repository.
    static func all() throws -> [String] {
        let files = FileManager.default
        let docs = try files.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        let articles = try ["ImagePrep", "Outbox", "PhotoCapture"].flatMap { module in
            let catalogue = "Sources/\(module)/\(module).docc"
            return try files.subpathsOfDirectory(atPath: repository.appendingPathComponent(catalogue).path)
                .filter { $0.hasSuffix(".md") }.sorted().map { catalogue + "/" + $0 }
        }
        return ["README.md"] + docs + articles
    }

    /// Every fenced block of `page`, in order.
    static func blocks(of page: String) throws -> [Block] {
        let lines = try String(contentsOf: repository.appendingPathComponent(page), encoding: .utf8)
            .components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            if lines[index].hasPrefix("```") {
                let end = try #require(
                    lines[(index + 1)...].firstIndex { $0.hasPrefix("```") }, "\(page):\(index + 1): an unended block")
                blocks.append(
                    Block(
                        info: String(lines[index].dropFirst(3)), line: index + 1,
                        above: index > 0 ? lines[index - 1] : "", lines: Array(lines[(index + 1)..<end])))
                index = end + 1
            } else {
                index += 1
            }
        }
        return blocks
    }
}

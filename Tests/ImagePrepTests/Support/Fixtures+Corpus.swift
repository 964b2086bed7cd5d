import Foundation

extension Fixtures {
    /// Every real-world file copied from the shared corpus (JPEGs and the PNG).
    static let corpusNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    }()
}

import Foundation

/// The files in `Tests/Fixtures`, loaded from the test bundle (never from the working directory).
enum Fixtures {
    static let root: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    /// Every real-world file copied from the shared corpus (JPEGs and the PNG).
    static let corpusNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url("corpus").path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    }()
}

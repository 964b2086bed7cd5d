import Foundation
import Testing

/// The files in `Tests/Fixtures`, loaded from the test bundle (never from the working directory).
enum Fixtures {
    static let root: URL = Bundle.module.resourceURL!.appendingPathComponent("Fixtures")

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// What exiftool and the other outside tools read from a corpus file: its entry in
    /// `corpus/expected.json` (see `Tests/Fixtures/README.md`).
    static func expected(_ corpusFile: String) throws -> [String: Any] {
        let data = try Data(contentsOf: url("corpus/expected.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(root["files"] as? [String: Any])
        return try #require(files[corpusFile] as? [String: Any], "expected.json has no \(corpusFile)")
    }
}

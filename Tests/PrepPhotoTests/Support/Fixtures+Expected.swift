import Foundation
// The fixtures and the temporary folders that every test target shares.
@_exported import TestSupport
import Testing

extension Fixtures {
    /// What exiftool and the other outside tools read from a corpus file: its entry in
    /// `corpus/expected.json` (see `Tests/Fixtures/README.md`).
    static func expected(_ corpusFile: String) throws -> [String: Any] {
        let data = try Data(contentsOf: url("corpus/expected.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require(root["files"] as? [String: Any])
        return try #require(files[corpusFile] as? [String: Any], "expected.json has no \(corpusFile)")
    }
}

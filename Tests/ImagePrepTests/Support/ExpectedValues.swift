import Foundation
@_exported import TestSupport

/// `Tests/Fixtures/corpus/expected.json`: what exiftool and other outside tools read from each
/// corpus file (see the corpus README for how it was made).
enum ExpectedValues {
    static let files: [String: JSONValue] = {
        let data = try! Fixtures.data("corpus/expected.json")
        let root = try! JSONDecoder().decode(JSONValue.self, from: data)
        guard case .object(let files)? = root["files"] else { fatalError("expected.json has no 'files'") }
        return files
    }()

    static func file(_ name: String) -> JSONValue? { files[name] }
}

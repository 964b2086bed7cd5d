import Foundation

/// Any JSON value, so that tests can read `expected.json` without a schema for every field.
enum JSONValue: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var int: Int? { number.map { Int($0) } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var isNull: Bool { self == .null }
}

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

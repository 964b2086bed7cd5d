import Foundation

/// exiftool's reading of one file: an object of the `exiftool.json` beside it, which
/// `Tests/Fixtures/exiftool-readings.sh` makes with `exiftool -j -n -G1:4 -a` and a fixed tag list.
struct ExiftoolTags {
    /// "IFD0:Orientation" → the value; of the copies of one tag in one group (`-G1:4` names the
    /// second "IFD0:Copy1:Orientation"), the first one found.
    private var values: [String: (copy: Int, value: JSONValue)] = [:]

    init(_ object: [String: JSONValue]) {
        for (key, value) in object {
            let parts = key.split(separator: ":")
            guard parts.count >= 2 else { continue }
            let copy = parts.count == 3 ? Int(parts[1].dropFirst("Copy".count)) ?? 0 : 0
            let name = "\(parts[0]):\(parts[parts.count - 1])"
            if let existing = values[name], existing.copy < copy { continue }
            values[name] = (copy, value)
        }
    }

    subscript(_ name: String) -> JSONValue? { values[name]?.value }

    /// A text value; exiftool's JSON prints text that looks like a number as a number.
    func text(_ name: String) -> String? {
        switch self[name] {
        case .string(let text)?: text
        case .number(let number)?: number == number.rounded() ? String(Int(number)) : String(number)
        default: nil
        }
    }
}

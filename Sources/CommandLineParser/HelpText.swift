/// A command's `--help`, in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, then sections
/// such as `ARGUMENTS:` and `OPTIONS:` whose entries have their name in a left column and their
/// text wrapped beside it.
///
/// The options section is made from the same `Option` values the parser reads, so that the
/// help can never list an option the command does not take, or miss one it does.
public struct HelpText: Sendable {
    /// One name and what it means, in an entries section.
    public struct Entry: Sendable {
        public let name: String
        public let text: String

        public init(_ name: String, _ text: String) {
            self.name = name
            self.text = text
        }
    }

    public enum Section: Sendable {
        /// Names and their meanings ("ARGUMENTS", "COMMANDS"). A newline in a text starts a new
        /// paragraph beside the name.
        case entries(title: String, [Entry])
        /// The options: each one's synopsis (`-o, --out <folder>`) and help.
        case options(title: String, [Option])
        /// Text as written (examples, exit statuses), each line indented; no title when nil.
        case text(title: String?, String)
    }

    public static let width = 100
    /// Where the text of an entry starts.
    static let textColumn = 26

    public let overview: String
    /// The usage line without `USAGE: `.
    public let usage: String
    public let sections: [Section]

    public init(overview: String, usage: String, sections: [Section]) {
        self.overview = overview
        self.usage = usage
        self.sections = sections
    }

    /// The whole help, ending with a newline.
    public var rendered: String {
        var blocks = [Self.wrap("OVERVIEW: " + overview, width: Self.width).joined(separator: "\n"), "USAGE: " + usage]
        for section in sections {
            switch section {
            case .entries(let title, let entries):
                blocks.append(Self.titled(title, entries.flatMap { Self.lines(name: $0.name, text: $0.text) }))
            case .options(let title, let options):
                blocks.append(Self.titled(title, options.flatMap { Self.lines(name: $0.synopsis, text: $0.help) }))
            case .text(let title, let text):
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
                    $0.isEmpty ? "" : "  " + $0
                }
                blocks.append(title.map { Self.titled($0, lines) } ?? lines.joined(separator: "\n"))
            }
        }
        return blocks.joined(separator: "\n\n") + "\n"
    }

    private static func titled(_ title: String, _ lines: [String]) -> String {
        ([title + ":"] + lines).joined(separator: "\n")
    }

    /// `  name                    text`, the text wrapped at the text column; a name too long for
    /// its column puts the text on the next line.
    private static func lines(name: String, text: String) -> [String] {
        let indent = String(repeating: " ", count: textColumn)
        var body = text.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
            wrap(String($0), width: width - textColumn)
        }
        if body.isEmpty { body = [""] }
        let label = "  " + name
        var lines: [String]
        if label.count < textColumn {
            lines = [label + String(repeating: " ", count: textColumn - label.count) + body[0]]
            body.removeFirst()
        } else {
            lines = [label]
        }
        lines += body.map { indent + $0 }
        return lines.map { $0.trailingSpacesRemoved }
    }

    /// Greedy word wrap; a word longer than the width stands on a line of its own.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

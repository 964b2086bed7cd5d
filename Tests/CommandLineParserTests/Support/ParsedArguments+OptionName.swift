@testable import CommandLineParser

/// Options read by their long name, for the parser's own tests, whose parsers of made-up options
/// have no `Option` value at hand; the commands read theirs by their `Option` values.
extension ParsedArguments {
    /// Whether the option named `--name` was given.
    func has(_ name: String) -> Bool { has(option(named: name)) }

    /// The value of the option named `--name` as bytes, or nil when it was not given.
    func value(_ name: String) -> CommandLineArgument? { value(option(named: name)) }

    /// The value of the option named `--name` as text.
    func string(_ name: String) throws(UsageError) -> String? { try string(option(named: name)) }

    /// Every value of the repeatable option named `--name`, as text.
    func strings(_ name: String) throws(UsageError) -> [String] { try strings(option(named: name)) }

    /// The value of the option named `--name` as a whole number within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        try integer(option(named: name), in: range)
    }

    private func option(named name: String) -> Option {
        guard let option = parser.options.first(where: { $0.name == name }) else {
            preconditionFailure("no option is named '--\(name)'")
        }
        return option
    }
}

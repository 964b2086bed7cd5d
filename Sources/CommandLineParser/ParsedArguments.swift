/// A command line after `ArgumentParser.parse`: the options met, in order, and the arguments.
///
/// The accessors take an option by the `Option` value the parser was given (a command's
/// `static let`, so that the parser and the command read the same one) and turn its value into
/// what the command needs, wording what is wrong the way swift-argument-parser does ("The value
/// '0' is invalid for '-j <count>': it must be a whole number 1 to 1024"). When an option is
/// given more than once, the last one counts.
public struct ParsedArguments: Sendable {
    /// One option as it appeared.
    public struct Occurrence: Sendable {
        public let option: Option
        /// Whether it was spelled with its one-letter name, so that errors quote it as typed.
        public let isShort: Bool
        public let value: CommandLineArgument?
    }

    let parser: ArgumentParser
    public internal(set) var occurrences: [Occurrence] = []
    /// The words that are not options or their values, in order.
    public internal(set) var arguments: [CommandLineArgument] = []
    /// With `stopsAtFirstArgument`, the first argument and everything after it, unread.
    public internal(set) var rest: [CommandLineArgument] = []

    init(parser: ArgumentParser) { self.parser = parser }

    /// Whether the option was given.
    public func has(_ option: Option) -> Bool { occurrences.contains { $0.option == checked(option) } }

    /// The last time the option was given.
    public func last(_ option: Option) -> Occurrence? { occurrences.last { $0.option == checked(option) } }

    /// Every value of a repeatable option, in order.
    public func values(_ option: Option) -> [CommandLineArgument] {
        occurrences.filter { $0.option == checked(option) }.compactMap(\.value)
    }

    /// The option's value as bytes (a path), or nil when it was not given.
    public func value(_ option: Option) -> CommandLineArgument? { last(option)?.value }

    /// The option's value as text.
    ///
    /// - Throws: `UsageError` when the value is not UTF-8.
    public func string(_ option: Option) throws(UsageError) -> String? {
        guard let occurrence = last(option), let value = occurrence.value else { return nil }
        guard let text = value.text else { throw invalid(occurrence, "it is not UTF-8 text") }
        return text
    }

    /// Every value of a repeatable option, as text.
    ///
    /// - Throws: `UsageError` when a value is not UTF-8.
    public func strings(_ option: Option) throws(UsageError) -> [String] {
        try occurrences.filter { $0.option == checked(option) }.map { occurrence throws(UsageError) in
            guard let text = occurrence.value?.text else { throw invalid(occurrence, "it is not UTF-8 text") }
            return text
        }
    }

    /// The option's value as a whole number within `range`.
    public func integer(_ option: Option, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let occurrence = last(option), let value = occurrence.value else { return nil }
        guard let number = value.text.flatMap({ Int($0) }), range.contains(number) else {
            let bounds =
                range.upperBound == Int.max
                ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw invalid(occurrence, "it must be a whole number \(bounds)")
        }
        return number
    }

    /// The option's value as a number of `unit` (seconds) within `range`.
    public func number(_ option: Option, in range: ClosedRange<Double>, unit: String) throws(UsageError) -> Double? {
        guard let occurrence = last(option), let value = occurrence.value else { return nil }
        guard let number = value.text.flatMap({ Double($0) }), number.isFinite, range.contains(number) else {
            throw invalid(
                occurrence,
                "it must be a number of \(unit) from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
            )
        }
        return number
    }

    /// "The value 'x' is invalid for '--engine <url>': RULE", for checks only the command knows.
    public func invalid(_ option: Option, _ rule: String) -> UsageError {
        invalid(last(option)!, rule)
    }

    /// The one argument a command takes (an id), or the error that names what is wrong.
    public func onlyArgument(_ placeholder: String) throws(UsageError) -> CommandLineArgument {
        guard let first = arguments.first else { throw UsageError("Missing expected argument '\(placeholder)'") }
        try Self.expectNone(arguments.dropFirst())
        return first
    }

    /// Fails when more than `count` arguments were given (none, by default).
    public func expectNoArguments(after count: Int = 0) throws(UsageError) {
        try Self.expectNone(arguments.dropFirst(count))
    }

    private static func expectNone(_ extra: ArraySlice<CommandLineArgument>) throws(UsageError) {
        guard let first = extra.first else { return }
        guard extra.count > 1 else { throw UsageError("Unexpected argument '\(first)'") }
        throw UsageError("\(extra.count) unexpected arguments: \(extra.map { "'\($0)'" }.joined(separator: ", "))")
    }

    private func invalid(_ occurrence: Occurrence, _ rule: String) -> UsageError {
        UsageError(
            "The value '\(occurrence.value.map(\.description) ?? "")' is invalid for '\(occurrence.option.quoted(short: occurrence.isShort))': \(rule)"
        )
    }

    /// The option, once it is sure to be one the parser reads: reading another is a programming
    /// error, which would otherwise read as "not given" for ever.
    private func checked(_ option: Option) -> Option {
        precondition(parser.options.contains(option), "the parser does not read '--\(option.name)'")
        return option
    }

    /// 0.01 as "0.01", 86400 as "86400".
    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

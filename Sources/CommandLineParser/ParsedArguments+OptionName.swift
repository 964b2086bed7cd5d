/// Options read by their long name, for code that has no `Option` value at hand: the parser's
/// own tests, and prep-bench until its options become values of their own.
extension ParsedArguments {
    /// Whether the option named `--name` was given.
    public func has(_ name: String) -> Bool { has(option(named: name)) }

    /// The value of the option named `--name` as bytes, or nil when it was not given.
    public func value(_ name: String) -> CommandLineArgument? { value(option(named: name)) }

    /// The value of the option named `--name` as text.
    public func string(_ name: String) throws(UsageError) -> String? { try string(option(named: name)) }

    /// Every value of the repeatable option named `--name`, as text.
    public func strings(_ name: String) throws(UsageError) -> [String] { try strings(option(named: name)) }

    /// The value of the option named `--name` as a whole number within `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        try integer(option(named: name), in: range)
    }

    private func option(named name: String) -> Option {
        guard let option = parser.options.first(where: { $0.name == name }) else {
            preconditionFailure("no option is named '--\(name)'")
        }
        return option
    }
}

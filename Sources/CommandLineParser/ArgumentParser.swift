internal import PlatformLayer

/// Splits a command line into options, their values and the other arguments, the way
/// swift-argument-parser and getopt_long read one:
///
/// - `--out=DIR` and `--out DIR`; `-o DIR`, `-oDIR`; flags combined (`-rq0`), the last one
///   of a group may take a value (`-rqo DIR`);
/// - `--` ends the options, and a lone `-` is an argument (standard input, for many tools);
/// - a word that starts with `-` is never taken as a value, so that `--out --json` is a missing
///   value rather than a folder named `--json` (`--out=--json` says it is meant);
/// - an unknown option is suggested the nearest known one.
///
/// Long options are never abbreviated (getopt_long accepts `--ski` for `--skip-existing`), so
/// that a script keeps its meaning when an option is added.
public struct ArgumentParser: Sendable {
    public let options: [Option]
    private let optionsByName: [String: Option]
    private let optionsByShort: [Character: Option]

    public init(options: [Option]) {
        self.options = options
        optionsByName = Dictionary(
            options.map { ($0.name, $0) },
            uniquingKeysWith: { first, _ in
                preconditionFailure("two options named '--\(first.name)'")
            })
        optionsByShort = Dictionary(
            options.compactMap { option in option.short.map { ($0, option) } },
            uniquingKeysWith: { first, _ in preconditionFailure("two options named '-\(first.short!)'") })
    }

    /// Reads `arguments`.
    ///
    /// When an option named `help` is among the options, `-h` or `--help` anywhere before `--`
    /// wins over any error, as it does in swift-argument-parser: asking for help never fails.
    ///
    /// - Parameter stopsAtFirstArgument: stop at the first word that is not an option or a
    ///   value, and keep it and everything after it unread in `rest` (a command's name and its
    ///   own options, as in `outbox --store S add ...`).
    /// - Throws: `UsageError` for an unknown option, a missing or unexpected value.
    public func parse(_ arguments: [CommandLineArgument], stopsAtFirstArgument: Bool = false) throws(UsageError)
        -> ParsedArguments
    {
        do {
            return try read(arguments, stopsAtFirstArgument: stopsAtFirstArgument)
        } catch {
            guard let help = optionsByName["help"], asksForHelp(arguments) else { throw error }
            var parsed = ParsedArguments(parser: self)
            parsed.occurrences = [.init(option: help, isShort: false, value: nil)]
            return parsed
        }
    }

    private func asksForHelp(_ arguments: [CommandLineArgument]) -> Bool {
        for argument in arguments {
            if argument.bytes == Array("--".utf8) { return false }
            if argument.bytes == Array("--help".utf8) || argument.bytes == Array("-h".utf8) { return true }
        }
        return false
    }

    private func read(_ arguments: [CommandLineArgument], stopsAtFirstArgument: Bool) throws(UsageError)
        -> ParsedArguments
    {
        var parsed = ParsedArguments(parser: self)
        var remaining = arguments[...]
        var onlyArgumentsFollow = false
        while let word = remaining.popFirst() {
            let bytes = word.bytes
            let isOption = !onlyArgumentsFollow && bytes.count >= 2 && bytes[0] == UInt8(ascii: "-")
            if !isOption, stopsAtFirstArgument {
                parsed.rest = [word] + remaining
                return parsed
            }
            if !isOption {
                parsed.arguments.append(word)
            } else if bytes == Array("--".utf8) {
                onlyArgumentsFollow = true
            } else if bytes[1] == UInt8(ascii: "-") {
                try readLong(bytes.dropFirst(2), remaining: &remaining, into: &parsed)
            } else {
                try readShort(word, remaining: &remaining, into: &parsed)
            }
        }
        return parsed
    }

    /// `--name`, `--name=value` or `--name value`.
    private func readLong(
        _ body: ArraySlice<UInt8>, remaining: inout ArraySlice<CommandLineArgument>, into parsed: inout ParsedArguments
    ) throws(UsageError) {
        let equals = body.firstIndex(of: UInt8(ascii: "="))
        let nameBytes = body[..<(equals ?? body.endIndex)]
        let inline = equals.map { CommandLineArgument(bytes: Array(body[($0 + 1)...])) }
        guard let name = String(validUTF8: nameBytes), let option = optionsByName[name] else {
            throw unknownOption("--" + escapedForDisplay(nameBytes), typedName: escapedForDisplay(nameBytes))
        }
        switch option.value {
        case .none:
            if let inline {
                throw UsageError(
                    "The option '--\(name)' does not take any value, but '\(inline)' was specified.")
            }
            parsed.occurrences.append(.init(option: option, isShort: false, value: nil))
        case .required, .optional:
            let value = try value(for: option, isShort: false, inline: inline, remaining: &remaining)
            parsed.occurrences.append(.init(option: option, isShort: false, value: value))
        }
    }

    /// `-x`, a group of flags `-rq0`, and a value attached (`-j4`, `-o=DIR`) or in the next word.
    private func readShort(
        _ word: CommandLineArgument, remaining: inout ArraySlice<CommandLineArgument>,
        into parsed: inout ParsedArguments
    ) throws(UsageError) {
        let letters = word.bytes.dropFirst()
        // `-out` is a long name typed with one dash, not -o with the value "ut".
        if letters.count > 1, let name = String(validUTF8: letters), optionsByName[name] != nil {
            throw UsageError("Unknown option '-\(name)'. Did you mean '--\(name)'?")
        }
        var index = letters.startIndex
        while index < letters.endIndex {
            let byte = letters[index]
            guard byte < 0x80, let option = optionsByShort[Character(Unicode.Scalar(byte))] else {
                let shown = byte < 0x80 ? String(Unicode.Scalar(byte)) : escapedForDisplay(letters[index...])
                throw unknownOption("-" + shown, typedName: letters.count > 1 ? escapedForDisplay(letters) : nil)
            }
            guard option.takesValue else {
                parsed.occurrences.append(.init(option: option, isShort: true, value: nil))
                index += 1
                continue
            }
            var attached = letters[(index + 1)...]
            if attached.first == UInt8(ascii: "=") { attached = attached.dropFirst() }
            let inline = attached.isEmpty ? nil : CommandLineArgument(bytes: Array(attached))
            let value = try value(for: option, isShort: true, inline: inline, remaining: &remaining)
            parsed.occurrences.append(.init(option: option, isShort: true, value: value))
            return
        }
    }

    private func value(
        for option: Option, isShort: Bool, inline: CommandLineArgument?,
        remaining: inout ArraySlice<CommandLineArgument>
    ) throws(UsageError) -> CommandLineArgument? {
        if let inline, !inline.bytes.isEmpty { return inline }
        var next = remaining.first.flatMap { isValueWord($0) ? $0 : nil }
        switch option.value {
        case .none:
            return nil
        case .required(_, let takesAnyWord):
            if takesAnyWord { next = remaining.first }
            guard inline == nil, let next else {
                throw UsageError("Missing value for '\(option.quoted(short: isShort))'")
            }
            remaining.removeFirst()
            return next
        case .optional(_, let suffix):
            guard inline == nil, let next, next.bytes.count > suffix.utf8.count,
                next.bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)
            else { return nil }
            remaining.removeFirst()
            return next
        }
    }

    /// Whether a word can be an option's value: not an option itself, but `-` (standard input)
    /// and a negative number can.
    private func isValueWord(_ word: CommandLineArgument) -> Bool {
        let bytes = word.bytes
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-") else { return true }
        let second = bytes[1]
        let isDigit = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(second)
        return isDigit && optionsByShort[Character(Unicode.Scalar(second))] == nil
    }

    /// "Unknown option '--jsn'. Did you mean '--json'?"
    ///
    /// - Parameter typedName: what to compare with the long names (`jsn` for `--jsn`, `json` for
    ///   `-json`); nil for a single letter, which has no useful neighbour.
    private func unknownOption(_ shown: String, typedName: String?) -> UsageError {
        let names = options.map(\.name)
        guard let typedName, let nearest = Suggestion.nearest(to: typedName, among: names) else {
            return UsageError("Unknown option '\(shown)'")
        }
        return UsageError("Unknown option '\(shown)'. Did you mean '--\(nearest)'?")
    }
}

/// One option a command accepts: its names, whether it takes a value, and its line in `--help`.
public struct Option: Sendable, Hashable {
    /// Whether the option takes a value, and how the value is written.
    public enum Value: Sendable, Hashable {
        /// A flag: `--json`, `-q`.
        case none
        /// `--out <folder>`: `--out DIR`, `--out=DIR`, `-o DIR`, `-oDIR`. The next word is not taken
        /// when it looks like an option, unless `takesAnyWord` (free text such as a note, which may
        /// well start with a dash).
        case required(placeholder: String, takesAnyWord: Bool = false)
        /// `--check [<file.json>]`: the value may be left out. `--check=FILE` always gives one; a
        /// separate word is taken as the value only when it ends with `separateWordSuffix`, so
        /// that `--check FOLDER` leaves FOLDER to be an argument.
        case optional(placeholder: String, separateWordSuffix: String)
    }

    /// The long name without its dashes: `out` for `--out`.
    public let name: String
    /// The one-letter name, if any: `o` for `-o`.
    public let short: Character?
    public let value: Value
    /// What `--help` says about it; wrapped to the help's width.
    public let help: String

    public init(_ name: String, short: Character? = nil, value: Value = .none, help: String) {
        precondition(!name.hasPrefix("-") && !name.contains("="), "an option's name has no dashes and no '='")
        self.name = name
        self.short = short
        self.value = value
        self.help = help
    }

    /// `--out` or `-o`: the option as the user spelled it, without its value.
    public func spelled(short isShort: Bool) -> String { isShort ? "-\(short!)" : "--\(name)" }

    /// `--out <folder>` (or `-o <folder>` when spelled short), as error messages quote it.
    public func quoted(short isShort: Bool = false) -> String {
        switch value {
        case .none: spelled(short: isShort)
        case .required(let placeholder, _): "\(spelled(short: isShort)) <\(placeholder)>"
        case .optional(let placeholder, _): "\(spelled(short: isShort)) [<\(placeholder)>]"
        }
    }

    /// `-o, --out <folder>`: the left column of the option's line in `--help`.
    public var synopsis: String { (short.map { "-\($0), " } ?? "") + quoted() }

    var takesValue: Bool { value != .none }
}

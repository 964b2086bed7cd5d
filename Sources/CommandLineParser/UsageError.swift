/// What is wrong with a command line, in swift-argument-parser's words: "Unknown option '--jsn'.
/// Did you mean '--json'?", "Missing value for '--out <folder>'".
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// One sentence, without the `Error: ` that the report puts before it.
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// The exit status of a usage error, the same in every command of this package.
    public static let exitStatus: Int32 = 2

    /// The three lines printed for a usage error: the error, the usage line, and where help is.
    ///
    /// - Parameters:
    ///   - usage: the usage line of the command the error is about, without `Usage: `.
    ///   - command: what to run `--help` on: `prep-photo`, `outbox add`.
    public func report(usage: String, command: String) -> String {
        "Error: \(message)\nUsage: \(usage)\n  See '\(command) --help' for more information.\n"
    }
}

#if canImport(Glibc)
import Glibc
#endif

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

    /// Prints `report(usage:command:)` on standard error and exits with `exitStatus`.
    public func exit(usage: String, command: String) -> Never {
        var bytes = Array(report(usage: usage, command: command).utf8)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            offset += count
        }
        bytes.removeAll()
        Glibc.exit(Self.exitStatus)
    }
}

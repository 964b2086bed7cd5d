#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What the user asked for on the command line.
struct CommandLineOptions {
    /// One command and its own options.
    enum Command {
        case add(photos: [String], kind: String, note: String, maxEdge: Int, quality: Int)
        case list(emitsJSON: Bool)
        case drain(DrainOptions)
        case sendNow(id: String, DrainOptions)
        case discard(id: String)
    }

    /// How `drain` and `send-now` reach the engine and pace themselves.
    struct DrainOptions {
        var engineURL = URL(fileURLWithPath: "/")
        var watchInterval: Double?
        var timeout: Double = 30
        var retryDelay: Double = 2
        var retryLimit = 8
    }

    enum Action {
        case run(store: String, Command)
        case showHelp(String)
        case showVersion
    }

    /// A usage error, worded as swift-argument-parser words them, with the usage line of the
    /// command it is about.
    struct UsageError: Error {
        let message: String
        var command: String?
    }

    static let version = "outbox 0.1.0"

    static let commandNames = ["add", "list", "drain", "send-now", "discard"]

    /// The action, or, for a usage error, the error and the usage line on stderr and exit status 2.
    static func parseOrExit(_ arguments: [String]) -> Action {
        do {
            return try parse(arguments)
        } catch {
            let help = error.command.map { "outbox \($0) --help" } ?? "outbox --help"
            Terminal.writeError(
                "Error: \(error.message)\n\(CommandHelp.usage(for: error.command))\n"
                    + "  See '\(help)' for more information.\n")
            exit(2)
        }
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var remaining = arguments[...]
        var store: String?
        var commandName: String?
        var rest: [String] = []
        // --store and the help and version flags may stand before or after the command.
        while let argument = remaining.popFirst() {
            switch argument {
            case "--store":
                guard let value = remaining.popFirst() else {
                    throw UsageError(message: "Missing value for '--store <folder>'.", command: commandName)
                }
                store = value
            case "-h", "--help":
                return .showHelp(commandName.flatMap(CommandHelp.text(for:)) ?? CommandHelp.overview)
            case "--version" where commandName == nil:
                return .showVersion
            case "--" where commandName != nil:
                rest.append(argument)
                rest += remaining
                remaining = []
            default:
                if commandName == nil, !argument.hasPrefix("-") {
                    guard commandNames.contains(argument) else {
                        throw UsageError(message: "Unknown command '\(argument)'.")
                    }
                    commandName = argument
                } else if commandName == nil {
                    throw UsageError(message: "Unknown option '\(argument)'.")
                } else {
                    rest.append(argument)
                }
            }
        }
        guard let commandName else { throw UsageError(message: "Missing expected argument '<command>'.") }
        let command = try parseCommand(commandName, rest)
        guard let store else {
            throw UsageError(message: "Missing expected option '--store <folder>'.", command: commandName)
        }
        return .run(store: store, command)
    }

    private static func parseCommand(_ name: String, _ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(command: name, arguments: arguments)
        switch name {
        case "add":
            var kind = "photo"
            var note = ""
            var maxEdge = 2048
            var quality = 85
            while let option = try reader.nextOption() {
                switch option {
                case "--kind": kind = try reader.value(for: option, placeholder: "kind")
                case "--note": note = try reader.value(for: option, placeholder: "text")
                case "--max-edge": maxEdge = try reader.integer(for: option, placeholder: "pixels", in: 1...65535)
                case "--quality": quality = try reader.integer(for: option, placeholder: "1-100", in: 1...100)
                default: throw reader.unknown(option)
                }
            }
            guard !reader.positionals.isEmpty else { throw reader.missing("<photo> ...") }
            return .add(photos: reader.positionals, kind: kind, note: note, maxEdge: maxEdge, quality: quality)
        case "list":
            var emitsJSON = false
            while let option = try reader.nextOption() {
                guard option == "--json" else { throw reader.unknown(option) }
                emitsJSON = true
            }
            try reader.expectNoPositionals()
            return .list(emitsJSON: emitsJSON)
        case "drain", "send-now":
            var options = DrainOptions()
            var engine: URL?
            while let option = try reader.nextOption() {
                switch option {
                case "--engine": engine = try reader.url(for: option)
                case "--watch" where name == "drain":
                    options.watchInterval = try reader.seconds(for: option, atLeast: 0.01)
                case "--timeout": options.timeout = try reader.seconds(for: option, atLeast: 0.01)
                case "--retry-delay": options.retryDelay = try reader.seconds(for: option, atLeast: 0)
                case "--retry-limit":
                    options.retryLimit = try reader.integer(for: option, placeholder: "count", in: 0...1000)
                default: throw reader.unknown(option)
                }
            }
            guard let engine else { throw reader.missing("--engine <url>", isOption: true) }
            options.engineURL = engine
            if name == "drain" {
                try reader.expectNoPositionals()
                return .drain(options)
            }
            return .sendNow(id: try reader.onlyPositional("<id>"), options)
        default:
            while let option = try reader.nextOption() { throw reader.unknown(option) }
            return .discard(id: try reader.onlyPositional("<id>"))
        }
    }
}

/// Reads one command's options and arguments, and words what is wrong with them.
private struct ArgumentReader {
    typealias UsageError = CommandLineOptions.UsageError

    let command: String
    var remaining: ArraySlice<String>
    var positionals: [String] = []
    private var onlyPositionalsFollow = false

    init(command: String, arguments: [String]) {
        self.command = command
        remaining = arguments[...]
    }

    /// The next option, collecting the positional arguments met on the way; nil at the end.
    mutating func nextOption() throws(UsageError) -> String? {
        while let argument = remaining.popFirst() {
            if argument == "--", !onlyPositionalsFollow {
                onlyPositionalsFollow = true
            } else if onlyPositionalsFollow || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
            } else {
                return argument
            }
        }
        return nil
    }

    mutating func value(for option: String, placeholder: String) throws(UsageError) -> String {
        guard let value = remaining.popFirst() else {
            throw UsageError(message: "Missing value for '\(option) <\(placeholder)>'.", command: command)
        }
        return value
    }

    mutating func integer(for option: String, placeholder: String, in range: ClosedRange<Int>) throws(UsageError)
        -> Int
    {
        let text = try value(for: option, placeholder: placeholder)
        guard let number = Int(text), range.contains(number) else {
            throw invalid(
                text, option, placeholder, "it must be a whole number \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    mutating func seconds(for option: String, atLeast minimum: Double) throws(UsageError) -> Double {
        let text = try value(for: option, placeholder: "seconds")
        guard let number = Double(text), number.isFinite, number >= minimum, number <= 86_400 else {
            throw invalid(text, option, "seconds", "it must be a number of seconds from \(minimum) to 86400")
        }
        return number
    }

    mutating func url(for option: String) throws(UsageError) -> URL {
        let text = try value(for: option, placeholder: "url")
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host?.isEmpty == false
        else {
            throw invalid(text, option, "url", "it must be an http:// or https:// URL with a host")
        }
        return url
    }

    mutating func onlyPositional(_ name: String) throws(UsageError) -> String {
        guard let first = positionals.first else { throw missing(name) }
        guard positionals.count == 1 else {
            throw UsageError(message: "Unexpected argument '\(positionals[1])'.", command: command)
        }
        return first
    }

    func expectNoPositionals() throws(UsageError) {
        if let first = positionals.first {
            throw UsageError(message: "Unexpected argument '\(first)'.", command: command)
        }
    }

    func unknown(_ option: String) -> UsageError {
        UsageError(message: "Unknown option '\(option)'.", command: command)
    }

    func missing(_ name: String, isOption: Bool = false) -> UsageError {
        UsageError(message: "Missing expected \(isOption ? "option" : "argument") '\(name)'.", command: command)
    }

    private func invalid(_ text: String, _ option: String, _ placeholder: String, _ rule: String) -> UsageError {
        UsageError(
            message: "The value '\(text)' is invalid for '\(option) <\(placeholder)>': \(rule).", command: command)
    }
}

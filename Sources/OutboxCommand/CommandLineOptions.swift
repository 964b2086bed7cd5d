import CommandLineParser
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user asked for on the command line.
struct CommandLineOptions {
    /// One command and its own options.
    enum Command {
        case add(photos: [String], kind: String, note: String, maxEdge: Int, quality: Int)
        case op(OpCommand)
        case list(emitsJSON: Bool, network: NetworkPath)
        case drain(DrainOptions)
        case sendNow(id: String, DrainOptions)
        case discard(id: String)
        case encrypt
    }

    /// How `drain` and `send-now` reach the engine and pace themselves.
    struct DrainOptions {
        var engineURL = URL(fileURLWithPath: "/")
        var watchInterval: Double?
        var timeout: Double = 30
        var retryDelay: Double = 2
        var retryLimit = 8
        var network = NetworkPath.unmetered
    }

    enum Action {
        /// A command on the store in a folder, opened with the key in `keyFile` when there is one.
        case run(store: String, keyFile: String?, Command)
        /// `keygen`: a new key file at this path.
        case makeKey(path: String)
        case showHelp(String)
        case showVersion
    }

    /// The environment variable that names the key file when `--key-file` is not given.
    static let keyFileVariable = "OUTBOX_KEY_FILE"

    /// A usage error, with the command it is about (nil for the tool as a whole), whose usage
    /// line is printed with it.
    struct CommandUsageError: Error {
        let error: UsageError
        var command: String?
    }

    static let version = "outbox \(Outbox.packageVersion)"

    /// The action, or, for a usage error, the error and the usage line on stderr and exit status 2.
    static func parseOrExit(_ arguments: [CommandLineArgument]) -> Action {
        do {
            return try parse(arguments)
        } catch {
            Terminal.writeError(
                error.error.report(
                    usage: CommandHelp.usage(for: error.command),
                    command: error.command.map { "outbox \($0)" } ?? "outbox"))
            exit(UsageError.exitStatus)
        }
    }

    /// `--store`, `--key-file` and `--help` may stand before or after the command; `--version`
    /// only before it. Without `--key-file`, the key file is `environment[OUTBOX_KEY_FILE]`, if set.
    static func parse(
        _ arguments: [CommandLineArgument], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CommandUsageError) -> Action {
        let global: ParsedArguments
        do {
            global = try ArgumentParser(options: CommandHelp.toolOptions).parse(arguments, stopsAtFirstArgument: true)
        } catch {
            throw CommandUsageError(error: error)
        }
        if global.has("help") { return .showHelp(CommandHelp.overview) }
        if global.has("version") { return .showVersion }
        guard let word = global.rest.first else {
            throw CommandUsageError(error: UsageError("Missing expected argument '<command>'"))
        }
        guard let name = word.text, let commandOptions = CommandHelp.options(for: name) else {
            let suggestion = Suggestion.nearest(to: word.text ?? "", among: CommandHelp.commandNames)
            throw CommandUsageError(
                error: UsageError("Unknown command '\(word)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")))
        }
        do throws(UsageError) {
            let parsed = try ArgumentParser(options: commandOptions + CommandHelp.storeAndHelp).parse(
                Array(global.rest.dropFirst()))
            if parsed.has("help") { return .showHelp(CommandHelp.text(for: name)) }
            if name == "keygen" { return .makeKey(path: try parsed.onlyArgument("<file>").text(for: "<file>")) }
            let command = try parseCommand(name, parsed)
            let storeBeforeCommand = try global.string("store")
            guard let store = try parsed.string("store") ?? storeBeforeCommand else {
                throw UsageError("Missing expected option '--store <folder>'")
            }
            let keyFileBeforeCommand = try global.string("key-file")
            // An empty OUTBOX_KEY_FILE is as good as none, as shells unset a variable with `NAME=`.
            let given = try parsed.string("key-file") ?? keyFileBeforeCommand
            if given?.isEmpty == true {
                throw UsageError("The value '' is invalid for '--key-file <file>': it must name a file")
            }
            let keyFile = given ?? environment[keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
            if case .encrypt = command, keyFile == nil {
                throw UsageError("Missing expected option '--key-file <file>' (or \(keyFileVariable))")
            }
            return .run(store: store, keyFile: keyFile, command)
        } catch {
            throw CommandUsageError(error: error, command: name)
        }
    }

    private static func parseCommand(_ name: String, _ parsed: ParsedArguments) throws(UsageError) -> Command {
        switch name {
        case "add":
            guard !parsed.arguments.isEmpty else { throw UsageError("Missing expected argument '<photo> ...'") }
            return .add(
                photos: try parsed.arguments.map { photo throws(UsageError) in try photo.text(for: "<photo>") },
                kind: try parsed.string("kind") ?? "photo", note: try parsed.string("note") ?? "",
                maxEdge: try parsed.integer("max-edge", in: 1...65535) ?? 2048,
                quality: try parsed.integer("quality", in: 1...100) ?? 85)
        case "op":
            try parsed.expectNoArguments()
            guard let type = try parsed.string("type") else {
                throw UsageError("Missing expected option '--type <type>'")
            }
            guard OperationType.isValidName(type) else {
                throw parsed.invalid(
                    "type", "it must be 1 to 64 letters, digits, '.', '-' or '_', starting with a letter")
            }
            let entity = try parsed.string("entity")
            if let entity, !OutboxOperation.isValidEntity(entity) {
                throw parsed.invalid("entity", "it must be 1 to 256 bytes of text without control characters")
            }
            return .op(
                OpCommand(
                    type: type, entity: entity, isLastWriteWins: parsed.has("lww"),
                    payload: try parsed.string("payload") ?? "null", attachments: try parsed.strings("attach")))
        case "list":
            try parsed.expectNoArguments()
            return .list(emitsJSON: parsed.has("json"), network: try network(parsed))
        case "drain", "send-now":
            var options = DrainOptions()
            if name == "drain" {
                options.watchInterval = try parsed.number("watch", in: 0.01...86_400, unit: "seconds")
            }
            options.timeout = try parsed.number("timeout", in: 0.01...86_400, unit: "seconds") ?? options.timeout
            options.retryDelay = try parsed.number("retry-delay", in: 0...86_400, unit: "seconds") ?? options.retryDelay
            options.retryLimit = try parsed.integer("retry-limit", in: 0...1000) ?? options.retryLimit
            options.network = try network(parsed)
            guard let engine = try parsed.string("engine") else {
                throw UsageError("Missing expected option '--engine <url>'")
            }
            // In the one form the transport compares and requests it in: `HTTP://Engine:80` is `http://engine`.
            guard let url = URL(string: engine),
                let normal = HTTPTransport.Configuration(engineURL: url).normalizedEngineURL
            else {
                throw parsed.invalid("engine", "it must be an http:// or https:// URL with a host")
            }
            options.engineURL = normal
            if name == "drain" {
                try parsed.expectNoArguments()
                return .drain(options)
            }
            return .sendNow(id: try parsed.onlyArgument("<id>").text(for: "<id>"), options)
        case "encrypt":
            try parsed.expectNoArguments()
            return .encrypt
        default:
            return .discard(id: try parsed.onlyArgument("<id>").text(for: "<id>"))
        }
    }

    /// `--network unmetered|metered|constrained|metered,constrained`: the network the machine is
    /// on, which nothing on Linux tells apart by itself; unmetered when not given.
    private static func network(_ parsed: ParsedArguments) throws(UsageError) -> NetworkPath {
        guard let text = try parsed.string("network") else { return .unmetered }
        let words = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard words == ["unmetered"] || (!words.isEmpty && Set(words).isSubset(of: ["metered", "constrained"])) else {
            throw parsed.invalid("network", "it must be unmetered, metered, constrained, or metered,constrained")
        }
        return NetworkPath(isExpensive: words.contains("metered"), isConstrained: words.contains("constrained"))
    }
}

import CommandLineParser
import CommandSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the user asked `outbox` for on the command line.
enum ToolInvocation {
    case run(any Subcommand)
    case showHelp(String)
    case showVersion

    /// A usage error, with the command it is about (nil for the tool as a whole), whose usage
    /// line is printed with it.
    struct Failure: Error {
        let error: UsageError
        var command: (any Subcommand.Type)?
    }

    /// What was asked for, or, for a usage error, the error and the usage line on stderr and exit
    /// status 2.
    static func parseOrExit(_ arguments: [CommandLineArgument]) -> ToolInvocation {
        do {
            return try parse(arguments)
        } catch {
            Terminal.writeError(
                error.error.report(
                    usage: error.command?.usage ?? OutboxTool.usage,
                    command: error.command.map { "outbox \($0.name)" } ?? "outbox"))
            exit(UsageError.exitStatus)
        }
    }

    /// `--store`, `--key-file` and `--help` may stand before or after the command; `--version`
    /// only before it.
    static func parse(
        _ arguments: [CommandLineArgument], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(Failure) -> ToolInvocation {
        let global: ParsedArguments
        do {
            global = try ArgumentParser(options: OutboxTool.toolOptions).parse(arguments, stopsAtFirstArgument: true)
        } catch {
            throw Failure(error: error)
        }
        if global.has(OutboxTool.toolHelp) { return .showHelp(OutboxTool.help.rendered) }
        if global.has(OutboxTool.versionOption) { return .showVersion }
        guard let word = global.rest.first else {
            throw Failure(error: UsageError("Missing expected argument '<command>'"))
        }
        guard let name = word.text, let command = OutboxTool.commands.first(where: { $0.name == name }) else {
            let suggestion = Suggestion.nearest(to: word.text ?? "", among: OutboxTool.commands.map { $0.name })
            throw Failure(
                error: UsageError("Unknown command '\(word)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? "")))
        }
        do throws(UsageError) {
            let parsed = try ArgumentParser(options: command.options + OutboxTool.commonOptions).parse(
                Array(global.rest.dropFirst()))
            if parsed.has(OutboxTool.commandHelp) { return .showHelp(command.help.rendered) }
            return .run(try command.init(CommandArguments(parsed: parsed, global: global, environment: environment)))
        } catch {
            throw Failure(error: error, command: command)
        }
    }
}

import CommandLineParser

/// One `outbox` command: its name, help and options, and the value it reads from its part of
/// the command line, which runs it.
///
/// `OutboxTool.commands` lists every one; the tool's help, its parser and `main` read that list
/// and nothing else, so that a new command is one new type and one line there.
protocol Subcommand: Sendable {
    /// The word that names it on the command line: `add`.
    static var name: String { get }
    /// Its line in `outbox --help`: the command with what it takes, and what it does.
    static var summary: HelpText.Entry { get }
    /// Its usage line, in its help and after a usage error about it.
    static var usage: String { get }
    /// Its own options, in the order its help lists them; `--store`, `--key-file` and `--help`
    /// come with every command.
    static var options: [Option] { get }
    /// `outbox <name> --help`.
    static var help: HelpText { get }

    /// Reads the command from its arguments: its own options and arguments first, then the
    /// store's (`CommandArguments.store()`), so that a usage error names the first thing wrong
    /// on the line as the user reads it.
    init(_ arguments: CommandArguments) throws(UsageError)

    /// Runs the command, on the main thread, where `main` calls it before anything has started
    /// a thread: a command that blocks signals (`drain`) blocks them first.
    ///
    /// - Returns: The process's exit status.
    @MainActor
    func run() async -> Int32
}

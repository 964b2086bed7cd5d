import CommandLineParser
import Outbox

/// The `outbox` tool as a whole: its commands, the options it takes before a command, and
/// `outbox --help`.
enum OutboxTool {
    /// Every command, in the order `outbox --help` lists them: the one list that the help, the
    /// parser and `main` read.
    static let commands: [any Subcommand.Type] = [
        AddCommand.self, OpCommand.self, ListCommand.self, DrainCommand.self, SendNowCommand.self,
        DiscardCommand.self, KeygenCommand.self, EncryptCommand.self,
    ]

    static let usage = "outbox --store <folder> <command> [options]"

    static let version = "outbox \(Outbox.packageVersion)"

    static let store = Option(
        "store", value: .required(placeholder: "folder"),
        help:
            "The outbox: outbox.sqlite and media/ in this folder, created when absent. Several outbox commands may use it at once."
    )
    static let keyFile = Option(
        "key-file", value: .required(placeholder: "file"),
        help:
            "The key of an encrypted outbox (made by keygen; default: $OUTBOX_KEY_FILE). A new outbox given a key is encrypted."
    )
    static let versionOption = Option("version", help: "Show the version.")
    static let toolHelp = Option(
        "help", short: "h", help: "Show this help; 'outbox <command> --help' shows a command's.")
    /// A command's `--help`.
    static let commandHelp = Option("help", short: "h", help: "Show this help.")

    /// What `outbox` takes before the command.
    static let toolOptions = [store, keyFile, versionOption, toolHelp]

    /// What every command takes besides its own options.
    static let commonOptions = [store, keyFile, commandHelp]

    static let help = HelpText(
        overview: """
            Keep captures on this device until the engine has them: queue prepared photos and other \
            operations, send them exactly once and in order, and see what is waiting.
            """,
        usage: usage,
        sections: [
            .entries(title: "COMMANDS", commands.map { $0.summary }),
            .options(title: "OPTIONS", toolOptions),
            .text(
                title: "ENCRYPTION",
                """
                With a key, every entry's payload and every photo or other file is encrypted with
                AES-256-GCM before it is written, so that whoever copies the folder reads nothing of
                them. An encrypted outbox opens only with its key; keep the key file outside the
                folder (one inside it is refused). What stays readable: ids, states, attempts,
                times, entity keys and file names. See docs/encryption.md.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 on success; 1 when something failed, or when drain left entries in the queue;
                2 for a usage error.
                """),
            .text(
                title: "EXAMPLES",
                """
                outbox --store ~/outbox add --kind plate IMG_1025.jpg IMG_1026.jpg
                outbox --store ~/outbox op --type note.update --entity note:42 --payload '{"text": "gate"}'
                outbox --store ~/outbox drain --engine http://127.0.0.1:8080
                outbox --store ~/outbox list --json
                outbox keygen ~/.outbox.key && outbox --store ~/outbox --key-file ~/.outbox.key add IMG_1027.jpg
                """),
        ]
    )
}

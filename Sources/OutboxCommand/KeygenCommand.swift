import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox keygen`: writes a new key file, for an encrypted outbox; it needs no store.
struct KeygenCommand: Subcommand {
    let path: String

    static let name = "keygen"
    static let summary = HelpText.Entry("keygen <file>", "Write a new 256-bit key to a file only you can read.")
    static let usage = "outbox keygen <file>"
    static let options: [Option] = []

    static let help = HelpText(
        overview: "Write a new 256-bit key for an encrypted outbox to a new file, readable and writable by you only.",
        usage: usage,
        sections: [
            .entries(
                title: "ARGUMENTS", [.init("<file>", "Where to write it; nothing already there is ever overwritten.")]),
            .options(title: "OPTIONS", [OutboxTool.commandHelp]),
            .text(
                title: nil,
                """
                The file holds 64 hexadecimal digits from the system's secure random generator, mode
                0600. Keep it outside every outbox folder, and keep a copy somewhere safe: an outbox
                encrypted with it cannot be read without it.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was written, 1 when it was not (something is there already), 2 for a usage error.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        path = try arguments.parsed.onlyArgument("<file>").text(for: "<file>")
    }

    /// - Returns: The exit status: 0 when the key was written, 1 otherwise.
    func run() async -> Int32 {
        do {
            try KeyFile.create(at: URL(fileURLWithPath: path))
            Terminal.writeError(
                "outbox: wrote a new 256-bit key to '\(path)', readable by you only. Keep it outside the outbox folder,"
                    + " and keep a copy somewhere safe: without it an outbox encrypted with it cannot be read.\n")
            return 0
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            return 1
        }
    }
}

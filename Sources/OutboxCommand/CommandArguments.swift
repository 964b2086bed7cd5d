import CommandLineParser

/// A command's part of the command line, as `Subcommand.init` reads it.
struct CommandArguments {
    /// The words after the command's name, read with its options and `OutboxTool.commonOptions`.
    let parsed: ParsedArguments
    /// The words before the command's name, read with `OutboxTool.toolOptions`.
    let global: ParsedArguments
    /// The process's environment, for `OUTBOX_KEY_FILE`.
    let environment: [String: String]

    /// The store the command works on: `--store` and `--key-file` may stand before or after the
    /// command's name; without `--key-file`, the key file is `$OUTBOX_KEY_FILE`, if set.
    func store() throws(UsageError) -> StoreLocation {
        let storeBeforeCommand = try global.string(OutboxTool.store)
        guard let folder = try parsed.string(OutboxTool.store) ?? storeBeforeCommand else {
            throw UsageError("Missing expected option '--store <folder>'")
        }
        let keyFileBeforeCommand = try global.string(OutboxTool.keyFile)
        // An empty OUTBOX_KEY_FILE is as good as none, as shells unset a variable with `NAME=`.
        let given = try parsed.string(OutboxTool.keyFile) ?? keyFileBeforeCommand
        if given?.isEmpty == true {
            throw UsageError("The value '' is invalid for '--key-file <file>': it must name a file")
        }
        let keyFile = given ?? environment[StoreLocation.keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        return StoreLocation(folder: folder, keyFile: keyFile)
    }
}

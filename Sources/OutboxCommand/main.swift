import CommandLineParser
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the command opens a store: as a relay, which reads and sends every operation type as it
/// is (photo captures through the contract's captures endpoint), since it interprets none.
enum StoreConfiguration {
    /// Photo captures go only on an unmetered network (`--network` says which one the machine
    /// is on); every other operation goes on any.
    static let relaying = Outbox.Configuration(
        operationTypes: [.captureCreate.sent(on: .unmetered)], relaysUndeclaredTypes: true)
}

/// The key file given with `--key-file` or `OUTBOX_KEY_FILE`, if one was.
nonisolated(unsafe) var keyFile: KeyFile?

/// The store in `folder`, opened with the key file if one was given, or exits with the reason it
/// cannot be opened.
func openStore(_ folder: URL, configuration: Outbox.Configuration = StoreConfiguration.relaying) -> Outbox {
    var configuration = configuration
    configuration.keyProvider = keyFile
    do {
        return try Outbox(folder: folder, configuration: configuration)
    } catch {
        Terminal.writeError("outbox: error: \(describe(error))\n")
        exit(1)
    }
}

/// The error's description, in the command's words where it has its own: how to give a key.
func describe(_ error: OutboxError) -> String {
    switch error {
    case .encryption(.keyRequired(let path)):
        "the outbox '\(path)' is encrypted: give its key with --key-file <file> (or \(CommandLineOptions.keyFileVariable))."
    case .encryption(.wrongKey(let path)):
        "the key in '\(keyFile?.url.path ?? "?")' does not open the outbox '\(path)': it is not the key it was encrypted with."
    case .encryption(.notEncrypted(let path)):
        "the outbox '\(path)' holds entries in plaintext: encrypt it first with 'outbox --store \(path) --key-file <file> encrypt'."
    default:
        error.description
    }
}

// `outbox add` prepares photo after photo, as prep-photo does: keep freed blocks (Platform).
Platform.keepFreedMemoryForReuse()

let action = CommandLineOptions.parseOrExit(CommandLineArgument.processArguments)

switch action {
case .showHelp(let text):
    Terminal.writeOutput(text)
case .showVersion:
    Terminal.writeOutput(CommandLineOptions.version + "\n")
case .makeKey(let path):
    do {
        try KeyFile.create(at: URL(fileURLWithPath: path))
        Terminal.writeError(
            "outbox: wrote a new 256-bit key to '\(path)', readable by you only. Keep it outside the outbox folder,"
                + " and keep a copy somewhere safe: without it an outbox encrypted with it cannot be read.\n")
        exit(0)
    } catch {
        Terminal.writeError("outbox: error: \(error)\n")
        exit(1)
    }
case .run(let folder, let keyFilePath, let command):
    keyFile = keyFilePath.map { KeyFile(url: URL(fileURLWithPath: $0)) }
    let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
    let status: Int32
    switch command {
    case .add(let photos, let kind, let note, let maxEdge, let quality):
        status = await AddCommand(photos: photos, kind: kind, note: note, maxEdge: maxEdge, quality: quality)
            .run(store: openStore(folderURL))
    case .op(let command):
        status = await command.run(store: openStore(folderURL, configuration: command.configuration))
    case .list(let emitsJSON, let network):
        status = await ListCommand(emitsJSON: emitsJSON, network: network).run(folder: folderURL, keyFile: keyFile)
    case .encrypt:
        status = await EncryptCommand(keyFile: keyFile!).run(folder: folderURL)
    case .drain(let options):
        // Before the store and URLSession start threads: threads inherit the blocked signals.
        let stop = StopSignal()
        let store = openStore(folderURL, configuration: DrainCommand.configuration(options))
        status = await DrainCommand(options: options).run(store: store, stop: stop)
    case .sendNow(let id, let options):
        let stop = StopSignal()
        let store = openStore(folderURL, configuration: DrainCommand.configuration(options))
        status = await DrainCommand(options: options).sendNow(id: id, store: store, stop: stop)
    case .discard(let id):
        do {
            try await openStore(folderURL).discard(id: id)
            Terminal.writeError("outbox: discarded '\(id)'.\n")
            status = 0
        } catch {
            Terminal.writeError("outbox: error: \(describe(error))\n")
            status = 1
        }
    }
    exit(status)
}

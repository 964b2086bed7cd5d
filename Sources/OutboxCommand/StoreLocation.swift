import CommandSupport
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

/// The store a command works on: its folder, and the key file given with `--key-file` or
/// `OUTBOX_KEY_FILE`, if one was.
struct StoreLocation {
    /// The environment variable that names the key file when `--key-file` is not given.
    static let keyFileVariable = "OUTBOX_KEY_FILE"

    let folder: URL
    let keyFile: KeyFile?

    init(folder: String, keyFile: String?) {
        self.folder = URL(fileURLWithPath: folder, isDirectory: true)
        self.keyFile = keyFile.map { KeyFile(url: URL(fileURLWithPath: $0)) }
    }

    /// `configuration` with the key file as its key provider.
    func keyed(_ configuration: Outbox.Configuration) -> Outbox.Configuration {
        var configuration = configuration
        configuration.keyProvider = keyFile
        return configuration
    }

    /// The store, opened with the key file if one was given, or exits with the reason it cannot
    /// be opened.
    func open(_ configuration: Outbox.Configuration = StoreConfiguration.relaying) -> Outbox {
        do {
            return try Outbox(folder: folder, configuration: keyed(configuration))
        } catch {
            Terminal.writeError("outbox: error: \(describe(error))\n")
            exit(1)
        }
    }

    /// The error's description, in the command's words where it has its own: how to give a key.
    func describe(_ error: OutboxError) -> String {
        switch error {
        case .encryption(.keyRequired(let path)):
            "the outbox '\(path)' is encrypted: give its key with --key-file <file> (or \(Self.keyFileVariable))."
        case .encryption(.wrongKey(let path)):
            "the key in '\(keyFile?.url.path ?? "?")' does not open the outbox '\(path)': it is not the key it was encrypted with."
        case .encryption(.notEncrypted(let path)):
            "the outbox '\(path)' holds entries in plaintext: encrypt it first with 'outbox --store \(path) --key-file <file> encrypt'."
        default:
            error.description
        }
    }
}

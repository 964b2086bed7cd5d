import CommandLineParser
import CommandSupport
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox encrypt`: turns a plaintext store into one encrypted with the key file, in place,
/// atomically (see `Outbox.encrypt(with:)`); a store encrypted already with this key is left as it is.
struct EncryptCommand: Subcommand {
    let store: StoreLocation
    let keyFile: KeyFile

    static let name = "encrypt"
    static let summary = HelpText.Entry("encrypt", "Encrypt a plaintext outbox in place with --key-file.")
    static let usage = "outbox --store <folder> --key-file <file> encrypt"
    static let options: [Option] = []

    static let help = HelpText(
        overview: "Encrypt a plaintext outbox in place with the key in --key-file.",
        usage: usage,
        sections: [
            .options(title: "OPTIONS", [OutboxTool.commandHelp]),
            .text(
                title: nil,
                """
                Every entry's payload and every file is encrypted, and the database is rewritten so
                that no page of the old plaintext stays in it or in its log. It is atomic: killed at
                any moment, the outbox is left either as it was or encrypted, with nothing lost. It
                runs only when no other outbox command has the folder open. Copies made before (a
                backup) stay as they were.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when the outbox is encrypted with the key (already, or now), 1 when it is not, 2 for
                a usage error.
                """),
        ]
    )
    init(_ arguments: CommandArguments) throws(UsageError) {
        try arguments.parsed.expectNoArguments()
        store = try arguments.store()
        guard let keyFile = store.keyFile else {
            throw UsageError("Missing expected option '--key-file <file>' (or \(StoreLocation.keyFileVariable))")
        }
        self.keyFile = keyFile
    }

    /// - Returns: The exit status: 0 when the store is now encrypted with the key, 1 otherwise.
    func run() async -> Int32 {
        let folder = store.folder
        do throws(OutboxError) {
            let store: Outbox
            do throws(OutboxError) {
                store = try Outbox(folder: folder, configuration: StoreConfiguration.relaying)
            } catch .encryption(.keyRequired) {
                var configuration = StoreConfiguration.relaying
                configuration.keyProvider = keyFile
                _ = try Outbox(folder: folder, configuration: configuration)
                Terminal.writeError("outbox: '\(folder.path)' is encrypted already, with this key.\n")
                return 0
            }
            switch try await store.encrypt(with: keyFile) {
            case .encrypted(let entries, let files):
                Terminal.writeError(
                    "outbox: encrypted '\(folder.path)': \(entries) \(entries == 1 ? "entry" : "entries") and \(files)"
                        + " \(files == 1 ? "file" : "files"). Open it with --key-file '\(keyFile.url.path)' from now on.\n"
                )
            case .alreadyEncrypted:
                Terminal.writeError("outbox: '\(folder.path)' is encrypted already, with this key.\n")
            }
            return 0
        } catch {
            Terminal.writeError("outbox: error: \(store.describe(error))\n")
            return 1
        }
    }
}

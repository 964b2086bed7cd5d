import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `outbox encrypt`: turns a plaintext store into one encrypted with the key file, in place,
/// atomically (see `Outbox.encrypt(with:)`); a store encrypted already with this key is left as it is.
struct EncryptCommand {
    let keyFile: KeyFile

    /// - Returns: The exit status: 0 when the store is now encrypted with the key, 1 otherwise.
    func run(folder: URL) async -> Int32 {
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
            Terminal.writeError("outbox: error: \(describe(error))\n")
            return 1
        }
    }
}

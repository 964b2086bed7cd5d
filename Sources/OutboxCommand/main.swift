import CommandLineParser
import Outbox

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#endif

/// How the command opens a store: as a relay, which reads and sends every operation type as it
/// is (photo captures through the contract's captures endpoint), since it interprets none.
enum StoreConfiguration {
    static let relaying = Outbox.Configuration(relaysUndeclaredTypes: true)
}

/// The store in `folder`, or exits with the reason it cannot be opened.
func openStore(_ folder: URL, configuration: Outbox.Configuration = StoreConfiguration.relaying) -> Outbox {
    do {
        return try Outbox(folder: folder, configuration: configuration)
    } catch {
        Terminal.writeError("outbox: error: \(error)\n")
        exit(1)
    }
}

let action = CommandLineOptions.parseOrExit(CommandLineArgument.processArguments)

switch action {
case .showHelp(let text):
    Terminal.writeOutput(text)
case .showVersion:
    Terminal.writeOutput(CommandLineOptions.version + "\n")
case .run(let folder, let command):
    let folderURL = URL(fileURLWithPath: folder, isDirectory: true)
    let status: Int32
    switch command {
    case .add(let photos, let kind, let note, let maxEdge, let quality):
        status = await AddCommand(photos: photos, kind: kind, note: note, maxEdge: maxEdge, quality: quality)
            .run(store: openStore(folderURL))
    case .op(let command):
        status = await command.run(store: openStore(folderURL, configuration: command.configuration))
    case .list(let emitsJSON):
        status = await ListCommand(emitsJSON: emitsJSON).run(folder: folderURL)
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
            Terminal.writeError("outbox: error: \(error)\n")
            status = 1
        }
    }
    exit(status)
}

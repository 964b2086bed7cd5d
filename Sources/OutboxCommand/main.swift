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

let action = CommandLineOptions.parseOrExit(CommandLineArgument.processArguments)

switch action {
case .showHelp(let text):
    Terminal.writeOutput(text)
case .showVersion:
    Terminal.writeOutput(CommandLineOptions.version + "\n")
case .run(let folder, let command):
    var configuration = Outbox.Configuration()
    switch command {
    case .drain(let options), .sendNow(_, let options): configuration = DrainCommand.configuration(options)
    default: break
    }
    let store: Outbox
    do {
        store = try Outbox(folder: URL(fileURLWithPath: folder, isDirectory: true), configuration: configuration)
    } catch {
        Terminal.writeError("outbox: error: \(error)\n")
        exit(1)
    }
    let status: Int32
    switch command {
    case .add(let photos, let kind, let note, let maxEdge, let quality):
        status = await AddCommand(photos: photos, kind: kind, note: note, maxEdge: maxEdge, quality: quality)
            .run(store: store)
    case .list(let emitsJSON):
        status = await ListCommand(emitsJSON: emitsJSON).run(store: store)
    case .drain(let options):
        status = await DrainCommand(options: options).run(store: store)
    case .sendNow(let id, let options):
        status = await DrainCommand(options: options).sendNow(id: id, store: store)
    case .discard(let id):
        do {
            try await store.discard(id: id)
            Terminal.writeError("outbox: discarded '\(id)'.\n")
            status = 0
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            status = 1
        }
    }
    exit(status)
}

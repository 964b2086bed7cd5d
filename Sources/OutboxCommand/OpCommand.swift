import CommandLineParser
import CommandSupport
import Foundation
import Outbox

/// `outbox op`: queues one operation of any type, as an app would, and prints its id once it is
/// durable.
struct OpCommand: Subcommand {
    let type: String
    let entity: String?
    let isLastWriteWins: Bool
    /// The payload's JSON text as given; `null` when none was.
    let payload: String
    let attachments: [String]
    let store: StoreLocation

    static let name = "op"
    static let summary = HelpText.Entry(
        "op --type <type>", "Queue one operation of any type, as an app would; print its id.")
    static let usage = "outbox --store <folder> op --type <type> [--entity <key>] [--lww] [--payload <json>]"

    enum Options {
        static let type = Option(
            "type", value: .required(placeholder: "type"),
            help: "What the operation does, for example note.update: letters, digits, '.', '-' and '_'.")
        static let entity = Option(
            "entity", value: .required(placeholder: "key", takesAnyWord: true),
            help: "What it is about, for example note:42. Operations on one entity reach the engine in order.")
        static let lastWriteWins = Option(
            "lww", help: "Last write wins: replace the entity's last operation of this type if it was never sent.")
        static let payload = Option(
            "payload", value: .required(placeholder: "json", takesAnyWord: true),
            help: "Its arguments, one JSON value, sent as they are. (default: null)")
        static let attach = Option(
            "attach", value: .required(placeholder: "file"),
            help: "A file to upload before the operation; repeat for more, in order.")
    }

    static let options = [Options.type, Options.entity, Options.lastWriteWins, Options.payload, Options.attach]

    static let help = HelpText(
        overview: "Queue one operation, as an app that edits notes or logs sets would, and print its id.",
        usage: usage,
        sections: [
            .options(title: "OPTIONS", options + [OutboxTool.commandHelp]),
            .text(
                title: nil,
                """
                The operation is version 1 of its type. drain sends it with POST /v1/operations (a
                photo capture, type capture.create, goes to /v1/captures as add's do), after its
                attachments; an entity's operations go in the order they were queued, and while one
                of them is parked or backing off the later ones wait behind it, while other
                entities go on. With --lww, an operation that was queued last for its entity, of the
                same type, and never sent is replaced: it and its files are deleted.
                """),
            .text(
                title: "OUTPUT",
                """
                The new operation's id on stdout once it is on disk (flushed: it survives a crash or
                a power cut); on stderr, the id it replaced, if it replaced one.
                """),
            .text(
                title: "EXIT STATUS",
                """
                0 when it was queued; 1 when it was not (its payload is not JSON, a file cannot be
                read); 2 for a usage error.
                """),
        ]
    )

    init(_ arguments: CommandArguments) throws(UsageError) {
        let parsed = arguments.parsed
        try parsed.expectNoArguments()
        guard let type = try parsed.string(Options.type) else {
            throw UsageError("Missing expected option '--type <type>'")
        }
        guard OperationType.isValidName(type) else {
            throw parsed.invalid(
                Options.type, "it must be 1 to 64 letters, digits, '.', '-' or '_', starting with a letter")
        }
        let entity = try parsed.string(Options.entity)
        if let entity, !OutboxOperation.isValidEntity(entity) {
            throw parsed.invalid(Options.entity, "it must be 1 to 256 bytes of text without control characters")
        }
        self.type = type
        self.entity = entity
        isLastWriteWins = parsed.has(Options.lastWriteWins)
        payload = try parsed.string(Options.payload) ?? "null"
        attachments = try parsed.strings(Options.attach)
        store = try arguments.store()
    }

    /// The outbox's configuration for queuing: every type relayed, and this one last-write-wins
    /// when asked.
    var configuration: Outbox.Configuration {
        var configuration = StoreConfiguration.relaying
        if isLastWriteWins { configuration.operationTypes.append(OperationType(type, isLastWriteWins: true)) }
        return configuration
    }

    /// Queues the operation.
    ///
    /// - Returns: The exit status: 0 when it was queued, 1 when it was not.
    func run() async -> Int32 {
        let store = store.open(configuration)
        do {
            try Self.checkJSON(payload)
            let files = try attachments.map(Self.attachment)
            let id = Self.idPrefix(type: type) + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let operation = try OutboxOperation(
                id: id, entity: entity, type: type, payloadJSON: Data(payload.utf8), attachments: files)
            let result = try await store.enqueue(operation)
            Terminal.writeOutput(id + "\n")
            if case .replaced(let earlier) = result {
                Terminal.writeError("outbox: '\(id)' took the place of '\(earlier)', which was never sent.\n")
            }
            return 0
        } catch {
            Terminal.writeError("outbox: error: \(error)\n")
            return 1
        }
    }

    /// Checks that `--payload` is one JSON value, with the parser's word on where it is not.
    static func checkJSON(_ text: String) throws(OpError) {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw OpError(description: "The payload is not valid JSON" + (detail.map { ": \($0)" } ?? "") + ".")
        }
    }

    /// An attachment from a file: its bytes and, from its first bytes, its media type.
    static func attachment(_ path: String) throws(OpError) -> OperationAttachment {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw OpError(description: "'\(path)' cannot be read: \((error as NSError).localizedDescription)")
        }
        return OperationAttachment(data: data, contentType: mediaType(of: data))
    }

    /// The media type a file's first bytes say it has; `application/octet-stream` for any other.
    static func mediaType(of data: Data) -> String {
        let signatures: [(bytes: [UInt8], type: String)] = [
            ([0xFF, 0xD8, 0xFF], "image/jpeg"), ([0x89, 0x50, 0x4E, 0x47], "image/png"),
            ([0x25, 0x50, 0x44, 0x46], "application/pdf"),
        ]
        return signatures.first { data.starts(with: $0.bytes) }?.type ?? "application/octet-stream"
    }

    /// The start of each id: the type with '.' as '-' ("note-update-…"), at most 32 characters.
    static func idPrefix(type: String) -> String {
        String(type.replacingOccurrences(of: ".", with: "-").prefix(32)) + "-"
    }
}

/// Why `op` could not queue its operation, for the message on stderr.
struct OpError: Error, CustomStringConvertible {
    let description: String
}

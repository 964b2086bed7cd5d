import Foundation
import Outbox

/// `outbox op`: queues one operation of any type, as an app would, and prints its id once it is
/// durable.
struct OpCommand {
    let type: String
    let entity: String?
    let isLastWriteWins: Bool
    /// The payload's JSON text as given; `null` when none was.
    let payload: String
    let attachments: [String]

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
    func run(store: Outbox) async -> Int32 {
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

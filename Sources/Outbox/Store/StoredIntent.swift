import Foundation

/// Everything the user gave for one operation, as the store's `intent` column holds it: its
/// type, its version, its payload and the descriptors of its attachments. It is the one column
/// of a record that says anything about what was captured; every other column only runs the
/// queue (id, sequence, state, attempts, times, entity key, the media file names).
///
/// It is JSON: `{"media":[…],"operation":"note.update","payload":"{\"text\":…}","version":1}`.
/// The payload is kept as a JSON string holding the app's JSON text, so that its bytes come back
/// exactly as they were given (numbers, key order and all) however the rest is read.
struct StoredIntent: Codable, Equatable {
    /// The operation's type.
    var operation: String
    /// The payload's version.
    var version: Int
    /// The payload's JSON text.
    var payload: String
    /// One descriptor per attachment, in order.
    var media: [MediaDescriptor]

    init(_ operation: OutboxOperation) {
        self.operation = operation.type
        version = operation.version
        payload = String(decoding: operation.payload, as: UTF8.self)
        media = operation.media
    }

    /// The column's bytes, keys sorted so that equal intents are equal bytes.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and descriptors of plain fields: encoding cannot fail.
        return try! encoder.encode(self)
    }

    /// Reads the column, checking what can be checked without knowing the type.
    ///
    /// - Returns: The intent, or why it cannot be read, in words fit for the app's UI (never a value from it).
    static func decode(_ data: Data) -> Result<StoredIntent, RecordProblem> {
        let intent: StoredIntent
        do {
            intent = try JSONDecoder().decode(StoredIntent.self, from: data)
        } catch {
            return .failure(RecordProblem(decoding: error, of: "intent"))
        }
        guard OperationType.isValidName(intent.operation) else {
            return .failure(RecordProblem("its operation type is not a type name"))
        }
        guard intent.version >= 1 else { return .failure(RecordProblem("its version is below 1")) }
        if let problem = OutboxOperation.payloadProblem(Data(intent.payload.utf8)) {
            return .failure(RecordProblem("its payload \(problem)"))
        }
        guard intent.media.count <= OutboxOperation.mostAttachments, intent.media.allSatisfy(\.isPlausible),
            Set(intent.media.map(\.index)).count == intent.media.count
        else {
            return .failure(RecordProblem("its intent describes an attachment that cannot be one"))
        }
        return .success(intent)
    }
}

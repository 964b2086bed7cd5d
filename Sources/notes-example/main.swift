// A small notes app on the outbox, as an app keeps its own rows beside the queue.
//
//     notes-example STORE ENTITY#REVISION ...      for example: notes-example /tmp/notes note:1#1 note:1#2 note:2#1
//
// Each argument is one edit of a note: in one transaction of the outbox's database it updates the
// app's own `notes` table, adds a row to its `note_edits` table, and queues the operation
// `note.edit` for the engine, on the note's entity so that its edits reach the engine in order.
// Every third revision carries a recorded memo as an attachment. The edit's id comes from the note
// and the revision, so running the same edits again (after a kill) queues and records nothing twice,
// even once the engine has them.
// It prints each edit's id once the transaction has committed. The kill tests run it. With
// OUTBOX_KEY_FILE set, the store is encrypted with that key file (the outbox's intents and files;
// the app's own tables are the app's, and hold the note's text in plaintext).

import Foundation
import Outbox

/// The operation an edit queues: the note's new text and its revision.
struct NoteEdit: Codable {
    var revision: Int
    var body: String
}

/// One edit named on the command line.
struct Edit {
    let entity: String
    let revision: Int

    init?(_ argument: String) {
        let parts = argument.split(separator: "#")
        guard parts.count == 2, let revision = Int(parts[1]), revision > 0,
            OutboxOperation.isValidEntity(String(parts[0]))
        else { return nil }
        entity = String(parts[0])
        self.revision = revision
    }
}

let arguments = CommandLine.arguments.dropFirst()
guard let store = arguments.first, let edits = Optional(arguments.dropFirst().compactMap(Edit.init)),
    edits.count == arguments.count - 1
else {
    FileHandle.standardError.write(Data("usage: notes-example STORE ENTITY#REVISION ...\n".utf8))
    exit(2)
}

let noteEdit = OperationType("note.edit")
do {
    let outbox = try Outbox(
        folder: URL(fileURLWithPath: store, isDirectory: true),
        configuration: Outbox.Configuration(
            operationTypes: [noteEdit],
            keyProvider: ProcessInfo.processInfo.environment["OUTBOX_KEY_FILE"].map {
                KeyFile(url: URL(fileURLWithPath: $0))
            }))
    // The app's schema is the app's: made here, before the first edit, never by the outbox.
    try await outbox.write { transaction in
        try transaction.execute(
            "CREATE TABLE IF NOT EXISTS notes (entity TEXT PRIMARY KEY, body TEXT, revision INTEGER)")
        try transaction.execute(
            "CREATE TABLE IF NOT EXISTS note_edits (operation_id TEXT PRIMARY KEY, entity TEXT, revision INTEGER)")
    }
    for edit in edits {
        let body = "Revision \(edit.revision) of \(edit.entity)"
        let memo =
            edit.revision % 3 == 0
            ? [
                OperationAttachment(
                    data: Data(repeating: UInt8(edit.revision % 256), count: 32 * 1024), contentType: "audio/mp4")
            ]
            : []
        let operation = try OutboxOperation(
            id: try OutboxOperation.derivedID(prefix: "note-", content: Data("\(edit.entity)\n\(edit.revision)".utf8)),
            entity: edit.entity, type: noteEdit.name, payload: NoteEdit(revision: edit.revision, body: body),
            attachments: memo)
        try await outbox.write { transaction in
            // An edit that a run killed after its commit made is recorded already, in the same
            // transaction that queued it. Asked of the app's own rows, not of the queue: by now a
            // drain may have sent and retired its operation.
            let recorded = try transaction.query(
                "SELECT 1 FROM note_edits WHERE operation_id = ?", .text(operation.id))
            guard recorded.isEmpty else { return }
            try transaction.enqueue(operation)
            try transaction.execute(
                "INSERT INTO note_edits (operation_id, entity, revision) VALUES (?, ?, ?)", .text(operation.id),
                .text(edit.entity), .integer(Int64(edit.revision)))
            try transaction.execute(
                """
                INSERT INTO notes (entity, body, revision) VALUES (?, ?, ?)
                ON CONFLICT (entity) DO UPDATE SET body = excluded.body, revision = excluded.revision
                """, .text(edit.entity), .text(body), .integer(Int64(edit.revision)))
        }
        FileHandle.standardOutput.write(Data((operation.id + "\n").utf8))
    }
} catch {
    FileHandle.standardError.write(Data("notes-example: error: \(error)\n".utf8))
    exit(1)
}

import Foundation
import ImagePrep
import Outbox
import PhotoCapture

/// A note edit, as the app queues it for the engine.
struct NoteEdit: Codable, Sendable {
    var text: String
}

/// A capture screen's view model, written as an app writes one: on the main actor, under Swift
/// 6's strict concurrency, with warnings as errors. It holds the outbox and one workspace for
/// every photo, saves the app's own row and its operation in one transaction, prepares camera
/// bytes off the main actor, and follows the outbox's events into a snapshot.
///
/// `Tests/EngineTests/AppBuildTests.swift` builds it in a scratch package that depends on this
/// package by path, and runs it (`main.swift`) against the reference engine.
@MainActor final class CaptureViewModel {
    nonisolated static let noteUpdate = OperationType("note.update", versions: 1...1, isLastWriteWins: true)

    private let outbox: Outbox
    private let preparer = PhotoPreparer()
    /// Reused for every photo of the session, so that the second one allocates nothing.
    private let workspace = PreparationWorkspace()
    private(set) var snapshot: OutboxSnapshot?
    private(set) var progress: [String: Double] = [:]
    private(set) var retired: Set<String> = []
    var draft = ""

    private init(outbox: Outbox) {
        self.outbox = outbox
    }

    /// Opens the outbox off the main actor and makes the app's own table.
    static func open(folder: URL) async throws -> CaptureViewModel {
        let configuration = Outbox.Configuration(operationTypes: [.captureCreate, noteUpdate])
        let outbox = try await Outbox.open(folder: folder, configuration: configuration)
        try await outbox.write { transaction in
            try transaction.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        }
        return CaptureViewModel(outbox: outbox)
    }

    /// Saves the draft as note `noteID`: the row and its operation commit together, or neither does.
    func saveDraft(as noteID: Int) async throws -> String {
        let body = draft
        let editID = "note-" + UUID().uuidString.lowercased()
        try await outbox.write { transaction in
            try transaction.execute(
                "INSERT OR REPLACE INTO notes (id, body) VALUES (?, ?)", .integer(Int64(noteID)), .text(body))
            try transaction.enqueue(
                OutboxOperation(
                    id: editID, entity: "note:\(noteID)", type: Self.noteUpdate.name, payload: NoteEdit(text: body)))
        }
        return editID
    }

    /// The notes as the app's own table holds them.
    func notes() async throws -> [String] {
        try await outbox.read { transaction in
            try transaction.query("SELECT body FROM notes ORDER BY id").compactMap { $0["body"]?.text }
        }
    }

    /// Prepares the camera's bytes off the main actor and saves them as a capture with the draft.
    func capture(cameraBytes: Data) async throws -> String {
        let photo = try await preparer.prepare(cameraBytes, name: "camera.jpg", workspace: workspace)
        return try await outbox.commit(idPrefix: "plate-", kind: "plate", note: draft, photos: [photo])
    }

    /// Starts the outbox's sending and follows it until every id in `ids` is retired: the
    /// snapshot after each change, each upload's progress as it comes.
    func send(to engineURL: URL, until ids: Set<String>) async throws {
        let events = outbox.events  // before the start, so that no event is missed
        try await outbox.start(transport: HTTPTransport(configuration: .init(engineURL: engineURL)))
        snapshot = try await outbox.snapshot()
        for await event in events {
            switch event {
            case .progress(let upload):
                progress[upload.id] = upload.fractionCompleted
            case .retired(let id):
                retired.insert(id)
                snapshot = try await outbox.snapshot()
            default:
                snapshot = try await outbox.snapshot()
            }
            if ids.isSubset(of: retired) { break }
        }
        await outbox.stop()
    }
}

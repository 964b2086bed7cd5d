import Foundation
import Testing

@testable import Outbox

/// The app's own rows and its operations in one transaction of the outbox's database: both or
/// neither, whatever fails; and the app's SQL kept to the app's own tables.
@Suite("One transaction with the app's rows")
struct TransactionTests {
    static func outbox(_ folder: URL, token: (@Sendable () -> String)? = nil) throws -> Outbox {
        var configuration = TestClock().configuration()
        if let token { configuration.makeFileToken = token }
        let outbox = try Outbox(folder: folder, configuration: configuration)
        return outbox
    }

    static func makeNotesTable(_ outbox: Outbox) async throws {
        try await outbox.write { transaction in
            try transaction.execute(
                "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, body TEXT NOT NULL UNIQUE)")
        }
    }

    /// The notes the app's table holds, read as the app reads them.
    static func notes(_ outbox: Outbox) async throws -> [String] {
        try await outbox.read { transaction in
            try transaction.query("SELECT body FROM notes ORDER BY id").compactMap { $0["body"]?.text }
        }
    }

    static let memo = OperationAttachment(data: Data(repeating: 9, count: 2048), contentType: "audio/mp4")

    @Test func theAppsRowAndItsOperationCommitTogetherAndSurviveReopening() async throws {
        try await withTemporaryFolder { folder in
            do {
                let outbox = try Self.outbox(folder)
                try await Self.makeNotesTable(outbox)
                let rowID = try await outbox.write { transaction in
                    try transaction.execute("INSERT INTO notes (body) VALUES (?)", .text("gate left open"))
                    let rowID = transaction.lastInsertedRowID
                    try transaction.enqueue(
                        try makeOperation(
                            id: "note-1", entity: "note:\(rowID)", type: "note.append", attachments: [Self.memo]))
                    return rowID
                }
                #expect(rowID == 1)
            }
            let outbox = try Self.outbox(folder)
            #expect(try await Self.notes(outbox) == ["gate left open"])
            #expect(try await outbox.list().entries.map(\.entity) == ["note:1"])
            #expect(try mediaFileNames(in: folder).count == 1)
        }
    }

    struct AppError: Error, Equatable {}

    /// A failure anywhere leaves neither: the body throwing after the enqueue, the app's own
    /// statement failing after it, and the enqueue failing after the app's statement.
    @Test(arguments: ["the body throws", "the app's statement fails", "the enqueue fails"])
    func aFailureAnywhereLeavesNeitherTheRowNorTheOperation(failure: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await Self.makeNotesTable(outbox)
            try await outbox.write { transaction in
                try transaction.execute("INSERT INTO notes (body) VALUES ('taken')")
            }
            await #expect(throws: (any Error).self) {
                try await outbox.write { transaction in
                    try transaction.execute("INSERT INTO notes (body) VALUES ('gate left open')")
                    if failure == "the enqueue fails" {
                        try transaction.enqueue(try makeOperation(id: "note-1", entity: "note:2", type: "memo.unknown"))
                    }
                    try transaction.enqueue(
                        try makeOperation(id: "note-1", entity: "note:2", type: "note.append", attachments: [Self.memo])
                    )
                    if failure == "the body throws" { throw AppError() }
                    if failure == "the app's statement fails" {
                        try transaction.execute("INSERT INTO notes (body) VALUES ('taken')")
                    }
                }
            }
            #expect(try await Self.notes(outbox) == ["taken"])
            #expect(try await outbox.list().entries.isEmpty)
            #expect(try mediaFileNames(in: folder).isEmpty, "the attachment written for it is removed")
            // The outbox goes on as before.
            try await outbox.enqueue(try makeOperation(id: "note-2", entity: "note:2", type: "note.append"))
            #expect(try await outbox.list().entries.map(\.id) == ["note-2"])
        }
    }

    /// An enqueue that fails half-way (its second file cannot be written) leaves nothing of
    /// itself, even when the app catches the error and commits the rest: the update it was to
    /// replace is still there with its file, and no file of the failed one is left.
    @Test func aFailedEnqueueThatTheAppCatchesLeavesNothingOfItself() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder, token: { "fixed" })
            try await Self.makeNotesTable(outbox)
            try await outbox.enqueue(try makeOperation(id: "u-1", entity: "note:1", attachments: [Self.memo]))
            let obstacle = folder.appendingPathComponent("media/u-2.1.fixed.bin")
            try FileManager.default.createDirectory(at: obstacle, withIntermediateDirectories: false)
            let failure = try await outbox.write { transaction -> OutboxError? in
                try transaction.execute("INSERT INTO notes (body) VALUES ('kept')")
                do throws(OutboxError) {
                    try transaction.enqueue(
                        try makeOperation(id: "u-2", entity: "note:1", attachments: [Self.memo, Self.memo]))
                    return nil
                } catch {
                    return error
                }
            }
            // The typed system error: the call, the path and its errno, which the message quotes.
            let exists = OutboxError.SystemError(operation: "open", path: obstacle.path, code: EEXIST)
            #expect(failure == .media(.write(path: obstacle.path, cause: .system(exists))))
            #expect(failure?.systemError == exists)
            #expect(
                failure?.description == "The photo file '\(obstacle.path)' could not be written to disk: File exists.")
            try FileManager.default.removeItem(at: obstacle)
            #expect(try await Self.notes(outbox) == ["kept"])
            let entries = try await outbox.list().entries
            #expect(entries.map(\.id) == ["u-1"])
            #expect(try mediaFileNames(in: folder) == entries[0].ownedMedia.map(\.name))
        }
    }

    /// What the app's SQL may not do, each refused before it runs, and nothing changed by it.
    @Test(arguments: [
        "UPDATE outbox_entries SET state = 'SYNCED'", "DELETE FROM outbox_entries", "SELECT * FROM outbox_entries",
        "DROP TABLE outbox_entries", "ALTER TABLE outbox_entries ADD COLUMN mine TEXT",
        "CREATE INDEX mine ON outbox_entries (state)", "CREATE TABLE outbox_mine (x)",
        "CREATE TRIGGER mine AFTER UPDATE ON outbox_entries BEGIN SELECT 1; END",
        "CREATE TRIGGER mine AFTER INSERT ON notes BEGIN DELETE FROM outbox_entries; END",
        "CREATE VIEW mine AS SELECT * FROM outbox_entries", "UPDATE sqlite_sequence SET seq = 0", "COMMIT",
        "ROLLBACK", "SAVEPOINT mine", "RELEASE mine", "ATTACH DATABASE ':memory:' AS other",
        "PRAGMA user_version = 9", "PRAGMA journal_mode = DELETE", "PRAGMA synchronous = OFF",
        "PRAGMA table_info(outbox_entries)", "INSERT INTO notes (body) VALUES ('a'); DELETE FROM outbox_entries",
    ])
    func theAppsSQLCannotTouchWhatIsNotTheApps(sql: String) async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await Self.makeNotesTable(outbox)
            try await outbox.enqueue(try makeOperation(id: "note-1", entity: "note:1", type: "note.append"))
            let error = await #expect(throws: OutboxError.self) {
                try await outbox.write { transaction in
                    try transaction.execute(sql)
                    // A trigger or a view that got past its creation must be refused where it is used.
                    try transaction.execute("INSERT INTO notes (body) VALUES ('b')")
                    if sql.contains("VIEW") { _ = try transaction.query("SELECT * FROM mine") }
                }
            }
            guard case .request(.appStatementRefused)? = error else {
                Issue.record("expected the statement to be refused, got \(String(describing: error))")
                return
            }
            let entries = try await outbox.list().entries
            #expect(entries.map(\.id) == ["note-1"] && entries.first?.state == .queued)
            #expect(try await outbox.pragma("user_version") == "\(OutboxStore.schemaVersion)")
            #expect(try await outbox.pragma("journal_mode") == "wal")
            #expect(try await Self.notes(outbox).isEmpty)
        }
    }

    @Test func theRefusalSaysWhyWithoutQuotingTheStatement() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            let error = await #expect(throws: OutboxError.self) {
                try await outbox.write { try $0.execute("UPDATE outbox_entries SET last_error = 'secret note'") }
            }
            #expect(
                error?.description.hasPrefix("The outbox refused the app's SQL statement: the app's SQL may use only")
                    == true)
            #expect(error?.description.contains("secret") == false)
        }
    }

    @Test func theAppMayDescribeItsOwnTablesAndReadTheSchema() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await Self.makeNotesTable(outbox)
            let columns = try await outbox.read { transaction in
                try transaction.query("PRAGMA table_info(notes)").compactMap { $0["name"]?.text }
            }
            #expect(columns == ["id", "body"])
            let tables = try await outbox.read { transaction in
                try transaction.query(
                    "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ?", .text("notes")
                )
                .count
            }
            #expect(tables == 1)
        }
    }

    @Test func aReadChangesNothingAndQueuesNothing() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await Self.makeNotesTable(outbox)
            await #expect(throws: OutboxError.self) {
                try await outbox.read { try $0.execute("INSERT INTO notes (body) VALUES ('x')") }
            }
            await #expect(throws: OutboxError.request(.readOnlyTransaction)) {
                try await outbox.read {
                    try $0.enqueue(try makeOperation(id: "note-1", entity: nil, type: "note.append"))
                }
            }
            #expect(try await Self.notes(outbox).isEmpty)
            #expect(try await outbox.list().entries.isEmpty)
        }
    }

    /// An app that also opens the database itself, as an app with GRDB would, reads its rows
    /// there too, beside the outbox's connection.
    @Test func anotherConnectionReadsTheAppsRows() async throws {
        try await withTemporaryFolder { folder in
            let outbox = try Self.outbox(folder)
            try await Self.makeNotesTable(outbox)
            try await outbox.write { try $0.execute("INSERT INTO notes (body) VALUES ('seen elsewhere')") }
            let bodies = try SQLiteDatabase(path: outbox.databaseURL.path).query("SELECT body FROM notes") {
                $0.text(at: 0)
            }
            #expect(bodies == ["seen elsewhere"])
        }
    }
}

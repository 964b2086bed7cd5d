import Foundation

/// The outbox's database for the length of one `Outbox.write(_:)` or `Outbox.read(_:)`: the
/// app's SQL on the app's own tables, and, in a write, operations queued in the same transaction.
///
/// It is lent to the body and cannot be kept: everything done through it commits together, or
/// not at all. Every statement is one SQL statement with `?` parameters; give values as
/// parameters rather than in the text, so that no value the user typed can change the SQL.
public struct OutboxTransaction: ~Copyable {
    private let store: OutboxStore
    private let isReadOnly: Bool
    private let now: Date
    private let makeToken: @Sendable () -> String

    init(store: OutboxStore, isReadOnly: Bool, now: Date, makeToken: @escaping @Sendable () -> String) {
        self.store = store
        self.isReadOnly = isReadOnly
        self.now = now
        self.makeToken = makeToken
    }

    /// Runs one statement of the app's (CREATE, INSERT, UPDATE, DELETE, …) on its own tables.
    ///
    /// - Parameters:
    ///   - sql: One statement, with `?` for each argument.
    ///   - arguments: The values of its parameters, in order.
    /// - Throws: `.request(.appStatementRefused)` when it would touch what is not the app's (see
    ///   `Outbox.write(_:)`), or changes something inside `read`; `.store(.database)` with SQLite's reason.
    public func execute(_ sql: String, _ arguments: SQLiteValue...) throws(OutboxError) {
        let statement = try store.database.prepareAppStatement(sql, isReadOnly: isReadOnly)
        try statement.bind(arguments)
        while try statement.step() {}
    }

    /// Runs one query of the app's on its own tables.
    ///
    /// - Parameters:
    ///   - sql: One statement, with `?` for each argument.
    ///   - arguments: The values of its parameters, in order.
    /// - Returns: Its rows, each with its columns by name.
    /// - Throws: As `execute(_:_:)`.
    public func query(_ sql: String, _ arguments: SQLiteValue...) throws(OutboxError) -> [DatabaseRow] {
        let statement = try store.database.prepareAppStatement(sql, isReadOnly: isReadOnly)
        try statement.bind(arguments)
        let names = (0..<statement.columnCount).map { statement.columnName(at: $0) }
        var rows: [DatabaseRow] = []
        while try statement.step() {
            rows.append(
                DatabaseRow(columns: names, values: (0..<statement.columnCount).map { statement.value(at: $0) }))
        }
        return rows
    }

    /// The rowid of the row the app's last INSERT made (for an `INTEGER PRIMARY KEY`, its key).
    public var lastInsertedRowID: Int64 { store.database.lastInsertedRowID }

    /// How many rows the app's last INSERT, UPDATE or DELETE changed.
    public var changes: Int { store.database.changes }

    /// Queues an operation in this transaction: it is queued exactly when the transaction
    /// commits, with the app's rows. See `Outbox.enqueue(_:)` for what it does and returns; a
    /// failure leaves nothing of this operation in the transaction, which the app may then roll
    /// back (by throwing) or carry on with.
    ///
    /// - Parameter operation: The operation, with its id.
    /// - Returns: `.enqueued`, `.replaced(earlier:)` or `.alreadyQueued`.
    /// - Throws: `.request(.readOnlyTransaction)` inside `Outbox.read`; otherwise as `Outbox.enqueue(_:)`.
    @discardableResult
    public func enqueue(_ operation: OutboxOperation) throws(OutboxError) -> EnqueueResult {
        guard !isReadOnly else { throw .request(.readOnlyTransaction) }
        return try store.insert(operation, createdAt: now, makeToken: makeToken)
    }
}

/// One row of an app's query: its values in SQLite's own types, by column.
public struct DatabaseRow: Sendable, Hashable {
    /// The columns' names, as the query names them.
    public let columns: [String]
    /// The values, in the order of `columns`.
    public let values: [SQLiteValue]

    /// The value of the column called `name`; nil when the query has no such column.
    public subscript(_ name: String) -> SQLiteValue? {
        columns.firstIndex(of: name).map { values[$0] }
    }
}

extension SQLiteValue {
    /// The text, or nil when the value is not text.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The integer, or nil when the value is not an integer.
    public var integer: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }
}

internal import CSQLite
import Foundation

/// A value in SQLite's own types: bound to a statement's parameter, or read from a column.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A signed 64-bit integer.
    case integer(Int64)
    /// A 64-bit floating-point number.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, stored as they are.
    case blob(Data)
}

/// The one owner of a sqlite3 connection: it closes the connection in `deinit`.
///
/// It is used by one owner at a time (the store inside the `Outbox` actor), so it is opened with
/// `SQLITE_OPEN_NOMUTEX` and is not `Sendable`.
struct SQLiteDatabase: ~Copyable {
    /// The database file, for error messages.
    let path: String
    private let handle: OpaquePointer

    /// Opens (creating when absent) the database file at `path` for reading and writing.
    ///
    /// A file this process may not write is opened for reading only (SQLite's rule); `isReadOnly`
    /// then says so.
    init(path: String) throws(OutboxError) {
        try self.init(path: path, uri: nil, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
    }

    /// Opens a database of its own in memory, into which others can be attached by URI
    /// (`file:...?mode=ro`): for reading a store without changing it.
    static func inMemory(describing path: String) throws(OutboxError) -> SQLiteDatabase {
        try SQLiteDatabase(path: path, uri: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI)
    }

    private init(path: String, uri: String?, flags: Int32) throws(OutboxError) {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(uri ?? path, &opened, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard let opened else {
            throw .store(.database(path: path, code: Int(code), message: String(cString: sqlite3_errstr(code))))
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            sqlite3_close_v2(opened)
            throw .store(.database(path: path, code: Int(code), message: message))
        }
        // Extended codes tell SQLITE_IOERR_FSYNC from SQLITE_IOERR_WRITE, which matters in a bug report.
        sqlite3_extended_result_codes(opened, 1)
        // The file may be planted or damaged (SQLite's own advice for such files): no schema
        // changes by hand, no functions with side effects run from the schema, and every page's
        // cell sizes checked as it is read.
        _ = csqlite_enable_defensive(opened)
        for pragma in ["PRAGMA trusted_schema=OFF", "PRAGMA cell_size_check=ON"] {
            sqlite3_exec(opened, pragma, nil, nil, nil)
        }
        self.path = path
        self.handle = opened
    }

    /// `path` as an SQLite URI (`file:/a%20b/outbox.sqlite`) with `query` after it, for ATTACH.
    static func uri(forPath path: String, query: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "/-._~")
        let escaped = path.unicodeScalars.map { scalar -> String in
            guard scalar.isASCII, allowed.contains(scalar) else {
                return String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
            }
            return String(scalar)
        }.joined()
        return "file:\(escaped)?\(query)"
    }

    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Whether the main database was opened for reading only.
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    deinit { sqlite3_close_v2(handle) }

    /// Waits up to `milliseconds` for a lock another connection (or process) holds, instead of
    /// failing at once with SQLITE_BUSY.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Prepares one SQL statement; the caller owns (and so finalizes) the result.
    func prepare(_ sql: String) throws(OutboxError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(handle, text, -1, &statement, &tail)
            // SQLite compiles only the first statement; a second one would silently never run.
            if code == SQLITE_OK, let tail {
                precondition(
                    String(cString: tail).allSatisfy { $0.isWhitespace || $0 == ";" }, "one statement per call: \(sql)")
            }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw error(code)
        }
        return SQLiteStatement(handle: statement, path: path)
    }

    /// Runs a script of several statements (a migration step), none of which take parameters.
    func execute(script: String) throws(OutboxError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, script, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw .store(
                .database(
                    path: path, code: Int(code),
                    message: message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))))
        }
    }

    /// Runs one statement that returns no rows (or whose rows are not wanted).
    func run(_ sql: String, _ values: SQLiteValue...) throws(OutboxError) {
        try run(sql, values: values)
    }

    /// Runs one statement that returns no rows, with values made at run time.
    func run(_ sql: String, values: [SQLiteValue]) throws(OutboxError) {
        let statement = try prepare(sql)
        try statement.bind(values)
        while try statement.step() {}
    }

    /// Runs one query and turns each row into a value.
    func query<Row>(
        _ sql: String, _ values: [SQLiteValue] = [],
        row: (borrowing SQLiteStatement) throws(OutboxError) -> Row
    ) throws(OutboxError) -> [Row] {
        let statement = try prepare(sql)
        try statement.bind(values)
        var rows: [Row] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: The app's statements

    /// Prepares one statement of the app's own SQL with `AppStatementRule` in force, which refuses
    /// anything that would touch the outbox's tables, SQLite's own, the transaction or the settings.
    ///
    /// - Parameter isReadOnly: Whether only a statement that changes nothing is taken (in `Outbox.read`).
    /// - Throws: `.request(.appStatementRefused)` for a statement the rule refuses, or for more than one
    ///   statement; `.store(.database)` for any other reason SQLite gives (a syntax error, a missing table).
    func prepareAppStatement(_ sql: String, isReadOnly: Bool) throws(OutboxError) -> SQLiteStatement {
        sqlite3_set_authorizer(handle, AppStatementRule.authorize, nil)
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        var statement: OpaquePointer?
        var hasMore = false
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(handle, text, -1, &statement, &tail)
            if code == SQLITE_OK, let tail {
                hasMore = !String(cString: tail).allSatisfy { $0.isWhitespace || $0 == ";" }
            }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            if code & 0xFF == SQLITE_AUTH { throw .request(.appStatementRefused(reason: AppStatementRule.refusal)) }
            throw error(code)
        }
        let prepared = SQLiteStatement(handle: statement, path: path)
        if hasMore {
            throw .request(.appStatementRefused(reason: "it holds more than one statement; run them one at a time"))
        }
        if isReadOnly, !prepared.isReadOnly {
            throw .request(.appStatementRefused(reason: "it changes the database, which 'read' does not; use 'write'"))
        }
        return prepared
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    ///
    /// IMMEDIATE takes the write lock up front: two connections that both read and then write
    /// would otherwise deadlock on the upgrade, and one of them would get SQLITE_BUSY at once.
    /// While the lock is held no other connection or process can write, which is what lets
    /// `enqueue` write media files and the sweep delete them without racing each other.
    func transaction<R>(_ body: () throws(OutboxError) -> R) throws(OutboxError) -> R {
        try run("BEGIN IMMEDIATE")
        let result: R
        do {
            result = try body()
            try run("COMMIT")
        } catch {
            // A failed COMMIT may already have ended the transaction; a ROLLBACK then has nothing to do.
            if isInTransaction { try? run("ROLLBACK") }
            throw error
        }
        return result
    }

    private func error(_ code: Int32) -> OutboxError {
        .store(.database(path: path, code: Int(code), message: String(cString: sqlite3_errmsg(handle))))
    }
}

/// The one owner of a prepared statement: it finalizes the statement in `deinit`.
struct SQLiteStatement: ~Copyable {
    private let handle: OpaquePointer
    private let path: String

    fileprivate init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to parameters 1, 2, … in order.
    func bind(_ values: [SQLiteValue]) throws(OutboxError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            // Transient: SQLite copies the bytes, so the bridged C string only lives for this call.
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, csqlite_transient())
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(handle, index, buffer.baseAddress, Int32(buffer.count), csqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw error(code) }
        }
    }

    /// Advances to the next row: true when there is one, false when the statement is done.
    func step() throws(OutboxError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(code)
        }
    }

    /// Whether the statement leaves the database as it is (a query).
    var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The number of columns a row of this statement has.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of the column at `column`, as the statement calls it.
    func columnName(at column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? ""
    }

    /// The column in SQLite's own type.
    func value(at column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT: .text(String(decoding: bytes(at: column) ?? Data(), as: UTF8.self))
        case SQLITE_BLOB: .blob(bytes(at: column) ?? Data())
        default: .null
        }
    }

    /// Whether the column holds NULL.
    func isNull(at column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as an integer, or nil when it is NULL or not an integer.
    func integer(at column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER ? sqlite3_column_int64(handle, column) : nil
    }

    /// The column as a real number (integers widen), or nil when it is NULL or text.
    func real(at column: Int32) -> Double? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_column_double(handle, column)
        default: return nil
        }
    }

    /// The column's bytes exactly as stored (text or blob), or nil when it is NULL.
    ///
    /// Bytes rather than a `String`, so that invalid UTF-8 reaches the JSON decoder (which rejects
    /// it) instead of being silently repaired.
    func bytes(at column: Int32) -> Data? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return nil
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let start = sqlite3_column_blob(handle, column) else { return Data() }
            return Data(bytes: start, count: count)
        default:
            guard let start = sqlite3_column_text(handle, column) else { return Data() }
            // Asked for after the text conversion, as SQLite's documentation requires.
            return Data(bytes: start, count: Int(sqlite3_column_bytes(handle, column)))
        }
    }

    /// The column as text, or nil when it is NULL or not text.
    func text(at column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let data = bytes(at: column) else { return nil }
        return String(data: data, encoding: .utf8)
    }

    private func error(_ code: Int32) -> OutboxError {
        .store(
            .database(path: path, code: Int(code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle)))))
    }
}

/// What the app's own SQL may do inside the outbox's database (`Outbox.write`, `Outbox.read`):
/// anything on its own tables, nothing else. Enforced by SQLite's authorizer while the app's
/// statement is prepared, so that a mistake (or a trigger, or a view) can neither read nor change
/// the queue behind the outbox's back, end the transaction that the operations are part of, or
/// change the durability settings.
///
/// Refused: every table, index, trigger or view whose name starts with `outbox_` (the outbox's,
/// now and in later versions) or `sqlite_` (SQLite's own, but for the schema table);
/// BEGIN, COMMIT, ROLLBACK and SAVEPOINT; ATTACH and DETACH; and every pragma that sets a value,
/// except the ones that describe a table (`table_info(notes)` and its kin).
enum AppStatementRule {
    static let refusal =
        "the app's SQL may use only the app's own tables: not the outbox's (outbox_*) or SQLite's (sqlite_*), "
        + "and it may not end the transaction, attach a database or change a setting"

    /// Pragmas that only describe a table or an index, and may name one.
    private static let describingPragmas: Set<String> = [
        "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
        "foreign_key_check", "integrity_check", "quick_check",
    ]

    /// The schema table, which an app may read to see its own tables.
    private static let schemaTables: Set<String> = [
        "sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema",
    ]

    /// Whether `name` is one the app may not use. The schema table is not, nor the indexes
    /// SQLite makes for the app's UNIQUE and PRIMARY KEY columns: SQLite writes those for the
    /// app's CREATE and DROP (and defensive mode keeps the app from writing the schema by hand).
    static func isReserved(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if lowered.hasPrefix("outbox_") { return true }
        return lowered.hasPrefix("sqlite_") && !schemaTables.contains(lowered)
            && !lowered.hasPrefix("sqlite_autoindex_")
    }

    /// sqlite3_set_authorizer's callback: SQLITE_OK or SQLITE_DENY for one action of a statement being prepared.
    static let authorize:
        @convention(c) (
            UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
            UnsafePointer<CChar>?
        ) -> Int32 = { _, action, first, second, _, _ in
            let first = first.map { String(cString: $0) }
            let second = second.map { String(cString: $0) }
            return AppStatementRule.allows(action: action, first, second) ? SQLITE_OK : SQLITE_DENY
        }

    /// The rule for one action; `first` and `second` are its two names, as sqlite3_set_authorizer documents them.
    static func allows(action: Int32, _ first: String?, _ second: String?) -> Bool {
        switch action {
        case SQLITE_TRANSACTION, SQLITE_SAVEPOINT, SQLITE_ATTACH, SQLITE_DETACH:
            return false
        case SQLITE_PRAGMA:
            guard let name = first?.lowercased() else { return false }
            guard let argument = second else { return true }
            return describingPragmas.contains(name) && !isReserved(argument)
        case SQLITE_FUNCTION, SQLITE_SELECT, SQLITE_RECURSIVE:
            return true
        case SQLITE_CREATE_INDEX, SQLITE_CREATE_TEMP_INDEX, SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER,
            SQLITE_DROP_INDEX, SQLITE_DROP_TEMP_INDEX, SQLITE_DROP_TRIGGER, SQLITE_DROP_TEMP_TRIGGER,
            SQLITE_ALTER_TABLE:
            // The object and its table; for ALTER TABLE the database and the table.
            return ![first, second].contains { $0.map(isReserved) ?? false }
        default:
            // The first name is the table, view or index the action is on.
            return !(first.map(isReserved) ?? false)
        }
    }
}

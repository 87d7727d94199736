import GRDB
import GRDBSQLite

/// A GRDB prepared statement run with values bound by SQLite's own calls: for the rows a store
/// writes by the hundred, where building GRDB's `StatementArguments` (an array of existential
/// values) for every row costs more than SQLite's work.
struct BoundStatement {
    private let statement: GRDB.Statement
    private let database: Database

    init(_ statement: GRDB.Statement, in database: Database) {
        self.statement = statement
        self.database = database
    }

    /// SQLite copies the bytes during the call (SQLITE_TRANSIENT).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ index: Int32, _ value: String?) {
        guard var value else {
            sqlite3_bind_null(statement.sqliteStatement, index)
            return
        }
        value.withUTF8 { bytes in
            // A zero-length text is still text (not NULL): SQLite needs a non-null pointer.
            let base = bytes.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)
            _ = sqlite3_bind_text(statement.sqliteStatement, index, base?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), Self.transient)
        }
    }

    func bind(_ index: Int32, _ value: Int?) {
        guard let value else {
            sqlite3_bind_null(statement.sqliteStatement, index)
            return
        }
        sqlite3_bind_int64(statement.sqliteStatement, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    func bind(_ index: Int32, _ value: Double?) {
        guard let value else {
            sqlite3_bind_null(statement.sqliteStatement, index)
            return
        }
        sqlite3_bind_double(statement.sqliteStatement, index, value)
    }

    /// Runs a query with the values bound and reads its first row, if any, with `read`; then
    /// clears the values for the next.
    /// - Throws: `DatabaseError` with SQLite's code and message.
    func firstRow<Value>(_ read: (OpaquePointer) -> Value?) throws -> Value? {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return read(handle) }
        guard code == SQLITE_DONE else {
            let message = database.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return nil
    }

    /// The text in `column` of the current row; nil for any other type.
    static func text(_ handle: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(handle, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// The integer in `column` of the current row; nil for any other type.
    static func integer(_ handle: OpaquePointer, _ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER ? sqlite3_column_int64(handle, column) : nil
    }

    /// Runs the statement once with the values bound, then clears them for the next row.
    /// - Throws: `DatabaseError` with SQLite's code and message.
    func run() throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        guard code == SQLITE_DONE else {
            let message = database.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }
}

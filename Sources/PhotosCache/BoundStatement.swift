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
    func firstRow<Value>(_ read: (StatementColumns) -> Value?) throws -> Value? {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return read(StatementColumns(handle: handle)) }
        guard code == SQLITE_DONE else {
            let message = database.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        return nil
    }

    /// Runs a query with the values bound and hands each row to `read`; then clears the values.
    /// - Throws: `DatabaseError` with SQLite's code and message, or what `read` throws.
    func forEachRow(_ read: (StatementColumns) throws -> Void) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                let message = database.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
            try read(StatementColumns(handle: handle))
        }
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

/// The columns of the row a statement stands on, read by SQLite's own calls with the
/// conversions GRDB's `fromDatabaseValue` makes (the disk is not trusted: a value of another type
/// reads as nil, never a trap), without building a `DatabaseValue` for each.
struct StatementColumns {
    let handle: OpaquePointer

    /// TEXT, or a BLOB that is UTF-8 (as `String.fromDatabaseValue`).
    func text(_ column: Int32) -> String? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_TEXT:
            guard let bytes = sqlite3_column_text(handle, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return count == 0 ? "" : nil }
            return String(validating: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
        default:
            return nil
        }
    }

    /// INTEGER, or a REAL within Int64's range rounded toward zero (as `Int64.fromDatabaseValue`).
    func int64(_ column: Int32) -> Int64? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return sqlite3_column_int64(handle, column)
        case SQLITE_FLOAT:
            let double = sqlite3_column_double(handle, column)
            guard double >= Double(Int64.min), double < Double(Int64.max) else { return nil }
            return Int64(double)
        default:
            return nil
        }
    }

    func int(_ column: Int32) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

    /// REAL or INTEGER (as `Double.fromDatabaseValue`).
    func double(_ column: Int32) -> Double? {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return Double(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return sqlite3_column_double(handle, column)
        default: return nil
        }
    }
}

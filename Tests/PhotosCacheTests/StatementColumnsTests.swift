import Foundation
import GRDB
import Testing

@testable import PhotosCache

/// Columns read by SQLite's own calls convert as GRDB's `fromDatabaseValue` does, for a value of
/// every storage class a damaged or hostile index may hold: nil where GRDB says nil, never a trap.
@Suite struct StatementColumnsTests {
    @Test func everyStorageClassConvertsAsGRDBConvertsIt() throws {
        let values: [DatabaseValue] = [
            .null, 0.databaseValue, (-1).databaseValue, Int64.max.databaseValue, Int64.min.databaseValue, 3.7.databaseValue,
            (-0.5).databaseValue, 1e300.databaseValue, (-1e300).databaseValue, 9.2e18.databaseValue, (-9.3e18).databaseValue,
            1024.0.databaseValue, "".databaseValue, "abc".databaseValue, "é 中文 🐕".databaseValue, "1024".databaseValue,
            Data().databaseValue, Data("bytes é".utf8).databaseValue, Data([0xFF, 0xFE, 0x41]).databaseValue,
        ]
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (n INTEGER PRIMARY KEY, v)")  // no affinity: stored as given
            for (number, value) in values.enumerated() {
                try db.execute(sql: "INSERT INTO t (n, v) VALUES (?, ?)", arguments: [number, value])
            }
            let expected = try Row.fetchAll(db, sql: "SELECT v FROM t ORDER BY n").map { $0[0] as DatabaseValue }
            var read: [(String?, Int64?, Int?, Double?)] = []
            try BoundStatement(try db.makeStatement(sql: "SELECT v FROM t ORDER BY n"), in: db).forEachRow { columns in
                read.append((columns.text(0), columns.int64(0), columns.int(0), columns.double(0)))
            }
            #expect(read.count == values.count)
            for (value, (text, int64, int, double)) in zip(expected, read) {
                #expect(text == String.fromDatabaseValue(value), "\(value)")
                #expect(int64 == Int64.fromDatabaseValue(value), "\(value)")
                #expect(int == Int.fromDatabaseValue(value), "\(value)")
                #expect(double == Double.fromDatabaseValue(value), "\(value)")
            }
        }
    }
}

import Foundation
import GRDB
import Testing

@testable import PhotosCache

/// A new index is created with `CacheSchema.currentSchema` in one go; an older one is migrated.
/// Both must end with the same schema.
@Suite struct CacheSchemaTests {
    /// The schema as SQLite describes it: each table's columns (name, type, not null, default,
    /// primary key position) and whether it has a rowid, each index's columns, uniqueness and
    /// origin, and the version.
    static func describe(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in
            var lines: [String] = []
            let tables = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
            for table in tables {
                let name: String = table["name"]
                let sql: String = table["sql"]
                lines.append("table \(name) rowid \(!sql.uppercased().contains("WITHOUT ROWID"))")
                for column in try Row.fetchAll(db, sql: "PRAGMA table_xinfo(\(name))") {
                    let parts: [String] = [
                        column["name"], column["type"], String(column["notnull"] as Int), column["dflt_value"] ?? "-",
                        String(column["pk"] as Int), String(column["hidden"] as Int),
                    ]
                    lines.append("  column " + parts.joined(separator: " "))
                }
                for index in try Row.fetchAll(db, sql: "PRAGMA index_list(\(name))") {
                    let indexName: String = index["name"]
                    let origin: String = index["origin"]
                    let columns = try Row.fetchAll(db, sql: "PRAGMA index_xinfo(\(indexName))")
                        .filter { ($0["key"] as Int) == 1 }
                        .map { ($0["name"] as String?) ?? "rowid" }
                    // Indexes SQLite makes itself are named after the table they were made for:
                    // told apart by origin and columns only.
                    let label = origin == "c" ? indexName : "automatic"
                    lines.append("  index \(label) \(origin) unique \(index["unique"] as Int) on \(columns.joined(separator: ","))")
                }
            }
            lines.append("version \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1)")
            return lines
        }
    }

    @Test func aNewIndexGetsTheSchemaTheMigrationsBuild() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photos-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let migrated = try DatabaseQueue(path: folder.appendingPathComponent("migrated.sqlite").path)
        try migrated.write { db in
            for migration in CacheSchema.migrations { try migration(db) }
            try db.execute(sql: "PRAGMA user_version = \(CacheSchema.migrations.count)")
        }
        let created = try DatabaseQueue(path: folder.appendingPathComponent("created.sqlite").path)
        try CacheSchema.migrate(created)
        let expected = try Self.describe(migrated)
        #expect(expected.count > 40, "the description covers every table")
        #expect(try Self.describe(created) == expected)
    }
}

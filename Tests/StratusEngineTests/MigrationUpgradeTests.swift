import Foundation
import Logging
import StratusEngine
import StratusModel
import StratusSQLite
import StratusStore
import Testing

@Suite("schema upgrades")
struct MigrationUpgradeTests {
    @Test("a data folder from before migrations 7 and 8 opens with the leaner change log and keeps its history")
    func changeLogIndexesDropped() async throws {
        let fixture = try await EngineFixture.make(sqliteOnly: true)
        let path = fixture.folder.appendingPathComponent("stratus.sqlite").path
        defer { try? FileManager.default.removeItem(at: fixture.folder) }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let scope = try await fixture.scope(.private, user: user.webAuthToken)
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let notes: [String: JSONValue] = ["zoneID": ["zoneName": "Notes"]]
        try await fixture.modify(scope, [createOp("keep", fields: ["v": 1]), createOp("drop", fields: ["v": 1])], extra: notes)
        let before = try await fixture.engine.zoneChanges(scope, body: ["zones": [["zoneID": ["zoneName": "Notes"]]]])
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "drop"]]], extra: notes)
        try await fixture.storage.close()

        // Put the file back in the shape version 6 left it in: a rowid change log with three
        // indexes beside its primary key.
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let old = try SQLiteDatabase.open(path: path, readerCount: 1, logger: logger)
        try await old.withWriteTransaction { sql in
            try await sql.execute(
                """
                CREATE TABLE changes_v6 (store_id BIGINT NOT NULL, seq BIGINT NOT NULL, zone_name TEXT NOT NULL,
                    record_name TEXT NOT NULL, op TEXT NOT NULL, at_ms BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (store_id, seq))
                """)
            try await sql.execute("INSERT INTO changes_v6 SELECT store_id, seq, zone_name, record_name, op, at_ms FROM changes")
            try await sql.execute("DROP TABLE changes")
            try await sql.execute("ALTER TABLE changes_v6 RENAME TO changes")
            try await sql.execute("CREATE INDEX changes_by_zone ON changes (store_id, zone_name, seq)")
            try await sql.execute("CREATE INDEX changes_by_time ON changes (at_ms)")
            try await sql.execute("CREATE INDEX changes_deletes_by_zone ON changes (store_id, zone_name, op, seq)")
            // Version 15 added the deletions' record types to the table rebuilt here.
            try await sql.execute("DELETE FROM stratus_migrations WHERE version IN (7, 8, 15)")
        }
        try await old.close()

        let storage = try await SQLiteStorage.open(path: path, readerCount: 1, logger: logger)
        let engine = Engine(storage: storage, secret: Array(repeating: 7, count: 32), limits: EngineLimits(), logger: logger)
        let reopened = EngineFixture(engine: engine, storage: storage, folder: fixture.folder, apiToken: fixture.apiToken)
        defer { Task { try? await storage.close() } }
        let scopeAgain = try await reopened.scope(.private, user: user.webAuthToken)
        let since = try await engine.zoneChanges(scopeAgain, body: ["zones": [["zoneID": ["zoneName": "Notes"], "syncToken": before["zones"]?[0]?["syncToken"] ?? .null]]])
        #expect(since["zones"]?[0]?["records"]?[0]?["recordName"]?.stringValue == "drop")
        #expect(since["zones"]?[0]?["records"]?[0]?["deleted"] == .bool(true), "the tombstone written before the upgrade is still served")
        #expect(since["zones"]?[0]?["records"]?[0]?["recordType"] == nil, "a deletion logged before migration 15 has no type to report")
        try await reopened.modify(scopeAgain, [createOp("after", fields: ["v": 2])], extra: notes)
        let fresh = try await engine.zoneChanges(scopeAgain, body: ["zones": [["zoneID": ["zoneName": "Notes"]]]])
        #expect(reopened.names(try #require(fresh["zones"]?[0])).sorted() == ["after", "keep"])
        try await reopened.modify(scopeAgain, [["operationType": "forceDelete", "record": ["recordName": "after"]]], extra: notes)
        let deletion = try await engine.zoneChanges(scopeAgain, body: ["zones": [["zoneID": ["zoneName": "Notes"], "syncToken": fresh["zones"]?[0]?["syncToken"] ?? .null]]])
        #expect(deletion["zones"]?[0]?["records"]?[0]?["recordType"]?.stringValue == "Item", "a deletion after the upgrade keeps its type")

        let check = try SQLiteDatabase.open(path: path, readerCount: 1, logger: logger)
        let (indexes, table, versions) = try await check.withReadTransaction { sql in
            let indexes = try await sql.query("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'changes' AND sql IS NOT NULL")
                .compactMap { row in row[0].text.map { ($0, row[1].text ?? "") } }
            let table = try await sql.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'changes'").first?[0].text ?? ""
            let versions = try await sql.query("SELECT version FROM stratus_migrations").compactMap { $0[0].integer }
            return (indexes, table, versions)
        }
        try await check.close()
        #expect(indexes.map(\.0) == ["changes_deletions_by_zone"], "indexes left: \(indexes)")
        #expect(indexes.first?.1.contains("WHERE op = 'delete'") == true, "the deletions index holds deletions only")
        #expect(table.contains("WITHOUT ROWID"), "the change log is one B-tree: \(table)")
        #expect(versions.contains(7) && versions.contains(8) && versions.contains(15))
    }
}

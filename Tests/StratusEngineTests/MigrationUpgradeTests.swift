import Foundation
import Logging
import StratusEngine
import StratusModel
import StratusSQLite
import StratusStore
import Testing

@Suite("schema upgrades")
struct MigrationUpgradeTests {
    @Test("a data folder from before migration 7 opens, loses the two write-only change-log indexes and keeps its history")
    func changeLogIndexesDropped() async throws {
        let fixture = try await EngineFixture.make()
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

        // Put the file back in the shape version 6 left it in.
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let old = try SQLiteDatabase.open(path: path, readerCount: 1, logger: logger)
        try await old.withWriteTransaction { sql in
            try await sql.execute("CREATE INDEX changes_by_zone ON changes (store_id, zone_name, seq)")
            try await sql.execute("CREATE INDEX changes_by_time ON changes (at_ms)")
            try await sql.execute("DELETE FROM stratus_migrations WHERE version = 7")
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
        try await reopened.modify(scopeAgain, [createOp("after", fields: ["v": 2])], extra: notes)
        let fresh = try await engine.zoneChanges(scopeAgain, body: ["zones": [["zoneID": ["zoneName": "Notes"]]]])
        #expect(reopened.names(try #require(fresh["zones"]?[0])).sorted() == ["after", "keep"])

        let check = try SQLiteDatabase.open(path: path, readerCount: 1, logger: logger)
        let indexes = try await check.withReadTransaction { sql in
            try await sql.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'changes'").compactMap { $0[0].text }
        }
        let versions = try await check.withReadTransaction { sql in
            try await sql.query("SELECT version FROM stratus_migrations").compactMap { $0[0].integer }
        }
        try await check.close()
        #expect(!indexes.contains("changes_by_zone") && !indexes.contains("changes_by_time"), "indexes left: \(indexes)")
        #expect(indexes.contains("changes_deletes_by_zone"))
        #expect(versions.contains(7))
    }
}

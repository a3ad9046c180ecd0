import Foundation
import Logging
import StratusEngine
import StratusPostgres
import StratusSQLite
import StratusStore
import StratusTestSupport
import Testing

@Suite("migrations between instances")
struct MigrationGuardTests {
    /// The storage's SQL layer, whichever backend the suite runs on.
    func records(_ storage: any RecordStorage) -> SQLRecordStorage? {
        (storage as? SQLiteStorage)?.records ?? (storage as? PostgresStorage)?.records
    }

    @Test("a database migrated by a newer version is refused with a message that says so")
    func newerDatabaseIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-newer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (first, second, close) = try await TestBackend.openTwo(folder: folder, logger: Logger(label: "test"))
        let sql = try #require(records(first))
        try await sql.database.withWriteTransaction { sql in
            try await sql.execute("INSERT INTO stratus_migrations (version, applied_ms) VALUES (999, 0)")
        }
        do {
            try await #require(records(second)).migrate()
            Issue.record("migrated a database a newer version had migrated")
        } catch let error as MigrationRunner.NewerSchema {
            #expect(error.description.contains("schema version 999"))
            #expect(error.description.contains("upgrade this one"))
        }
        await close()
    }

    @Test("instances starting at once on a new database migrate it once", .postgresOnly)
    func simultaneousStartsMigrateOnce() async throws {
        let server = try #require(TestBackend.postgresServer)
        let database = try await TestBackend.createDatabase(on: server)
        let logger = Logger(label: "test")
        let storages = try await withThrowingTaskGroup(of: PostgresStorage.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresStorage.open(database, maximumConnections: 2, connectionWait: .seconds(60), logger: logger) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let versions = try await storages[0].records.database.withReadTransaction { sql in
            try await sql.query("SELECT version FROM stratus_migrations ORDER BY version").compactMap { $0[0].integer }
        }
        // Every migration the backend knows, each recorded once.
        let known = storages[0].records.database.dialect.migrations.map { Int64($0.version) }.sorted()
        #expect(versions == known, "each migration recorded once: \(versions)")
        for storage in storages { try await storage.close() }
        await TestBackend.dropDatabase(database, on: server)
    }
}

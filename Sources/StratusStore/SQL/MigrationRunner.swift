import Foundation
import StratusEngine

/// Brings a database to the newest schema, each migration in its own write transaction, recording
/// what ran in `stratus_migrations`. Safe to run from several processes at once: each migration
/// takes the dialect's migration lock and skips versions already recorded, so it runs once.
public struct MigrationRunner: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    /// Applies the pending migrations. `upgrading` is called before each one that runs on a
    /// database that already had migrations applied (an existing data folder, where a migration
    /// may rewrite a large table), not on a new database. Throws `NewerSchema` on a database a
    /// newer version of Stratus migrated.
    public func run(upgrading: @Sendable (_ version: Int) -> Void = { _ in }) async throws {
        let dialect = database.dialect
        // What ran already, read once: every start (each CLI command too) used to open one write
        // transaction per migration just to find it recorded.
        let applied: Set<Int64> = try await database.withWriteTransaction { sql in
            if let lock = dialect.lockMigrations { try await sql.execute(lock) }
            try await sql.execute("CREATE TABLE IF NOT EXISTS stratus_migrations (version BIGINT PRIMARY KEY, applied_ms BIGINT NOT NULL)")
            return Set(try await sql.query("SELECT version FROM stratus_migrations").compactMap { $0[0].integer })
        }
        let known = dialect.migrations.map(\.version).max() ?? 0
        if let newest = applied.max(), newest > Int64(known) {
            throw NewerSchema(databaseVersion: Int(newest), knownVersion: known)
        }
        for migration in dialect.migrations.sorted(by: { $0.version < $1.version })
        where !applied.contains(Int64(migration.version)) {
            try await database.withWriteTransaction { sql in
                if let lock = dialect.lockMigrations { try await sql.execute(lock) }
                // Another process may have applied it since the read above.
                let done = try await sql.query("SELECT 1 FROM stratus_migrations WHERE version = \(bind: migration.version)")
                if !done.isEmpty { return }
                if !applied.isEmpty { upgrading(migration.version) }
                for statement in migration.statements {
                    try await sql.execute(SQLFragment(text: statement))
                }
                try await sql.execute("INSERT INTO stratus_migrations (version, applied_ms) VALUES (\(bind: migration.version), \(bind: nowMilliseconds()))")
            }
        }
    }

    /// The database was migrated by a newer Stratus than this one: running on it could corrupt it.
    public struct NewerSchema: Error, CustomStringConvertible {
        public let databaseVersion: Int
        public let knownVersion: Int

        public var description: String {
            "the database is at schema version \(databaseVersion), newer than this stratus knows (\(knownVersion)); run the newer stratus that migrated it, or upgrade this one"
        }
    }
}

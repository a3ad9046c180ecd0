import Foundation

/// Brings a database to the newest schema, each migration in its own write transaction, recording
/// what ran in `stratus_migrations`. Safe to run from several processes: versions already
/// recorded are skipped.
public struct MigrationRunner: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    /// Applies the pending migrations. `upgrading` is called before each one that runs on a
    /// database that already had migrations applied (an existing data folder, where a migration
    /// may rewrite a large table), not on a new database.
    public func run(upgrading: @Sendable (_ version: Int) -> Void = { _ in }) async throws {
        // What ran already, read once: every start (each CLI command too) used to open one write
        // transaction per migration just to find it recorded.
        let applied: Set<Int64> = try await database.withWriteTransaction { sql in
            try await sql.execute("CREATE TABLE IF NOT EXISTS stratus_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)")
            return Set(try await sql.query("SELECT version FROM stratus_migrations").compactMap { $0[0].integer })
        }
        for migration in database.dialect.migrations.sorted(by: { $0.version < $1.version })
        where !applied.contains(Int64(migration.version)) {
            try await database.withWriteTransaction { sql in
                // Another process may have applied it since the read above.
                let done = try await sql.query("SELECT 1 FROM stratus_migrations WHERE version = \(bind: migration.version)")
                if !done.isEmpty { return }
                if !applied.isEmpty { upgrading(migration.version) }
                for statement in migration.statements {
                    try await sql.execute(SQLFragment(text: statement))
                }
                let now = Int64(Date.now.timeIntervalSince1970 * 1000)
                try await sql.execute("INSERT INTO stratus_migrations (version, applied_ms) VALUES (\(bind: migration.version), \(bind: now))")
            }
        }
    }
}

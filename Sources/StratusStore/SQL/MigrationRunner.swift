import Foundation

/// Brings a database to the newest schema, each migration in its own write transaction, recording
/// what ran in `stratus_migrations`. Safe to run from several processes: versions already
/// recorded are skipped.
public struct MigrationRunner: Sendable {
    public let database: any SQLDatabase

    public init(database: any SQLDatabase) { self.database = database }

    public func run() async throws {
        let migrations = database.dialect.migrations
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            try await database.withWriteTransaction { sql in
                try await sql.execute("CREATE TABLE IF NOT EXISTS stratus_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL)")
                let done = try await sql.query("SELECT 1 FROM stratus_migrations WHERE version = \(bind: migration.version)")
                if !done.isEmpty { return }
                for statement in migration.statements {
                    try await sql.execute(SQLFragment(text: statement))
                }
                let now = Int64(Date.now.timeIntervalSince1970 * 1000)
                try await sql.execute("INSERT INTO stratus_migrations (version, applied_ms) VALUES (\(bind: migration.version), \(bind: now))")
            }
        }
    }
}

import Foundation
import StratusModel
import StratusSQLiteCore
import StratusSQLValue

/// The engine's SQLite file: the cached records of the synced zones, the pending-changes queue,
/// and the change tokens. Every method runs one transaction; a method that returns has committed,
/// so what it wrote survives a killed process (WAL, `synchronous = NORMAL`; `FULL` also survives
/// power loss).
///
/// Not thread-safe by itself: the ``SyncEngine`` actor owns it and calls it from one task at a time.
final class LocalStore {
    let connection: DirectConnection
    let path: String

    init(path: String, durability: SyncEngine.Durability) throws {
        self.path = path
        connection = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
        try connection.run("PRAGMA journal_mode = WAL")
        try connection.run("PRAGMA synchronous = \(durability == .powerLossSafe ? "FULL" : "NORMAL")")
        try transaction { try LocalSchema.migrate(self.connection) }
    }

    deinit { connection.close() }

    /// Runs `body` in one write transaction; rolls back and rethrows when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try connection.run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try connection.run("COMMIT")
            return result
        } catch {
            _ = try? connection.run("ROLLBACK")
            throw error
        }
    }

    @discardableResult
    func run(_ sql: String, _ binds: [SQLValue] = []) throws -> [SQLRow] { try connection.run(sql, binds) }

    func close() { connection.close() }
}

/// The local file's tables. Versioned with `PRAGMA user_version`; each version's statements are
/// never edited once shipped, later versions add to them.
enum LocalSchema {
    static let versions: [[String]] = [
        [
            // Small key/value state: the database change token, the fetch epoch counter.
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            // Zones the engine syncs. `needs_create`: made locally, not yet on the server.
            """
            CREATE TABLE zones (zone_name TEXT NOT NULL, owner_name TEXT NOT NULL, change_token TEXT,
                needs_create INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (zone_name, owner_name))
            """,
            // One row per record: `local` is what the app sees (NULL: deleted locally, delete
            // pending), `server` the last version the server confirmed (the merge ancestor;
            // NULL: not on the server as far as the engine knows). `seen_epoch` marks records
            // seen by a from-scratch refetch, so records missing from it can be dropped.
            """
            CREATE TABLE records (zone_name TEXT NOT NULL, owner_name TEXT NOT NULL, record_name TEXT NOT NULL,
                record_type TEXT NOT NULL, local TEXT, server TEXT, seen_epoch INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (zone_name, owner_name, record_name))
            """,
            "CREATE INDEX records_by_type ON records (record_type, zone_name)",
            // The pending-changes queue: one row per record with an unsent change, in the order
            // first changed. `version` grows with each local change, so a send that finishes
            // after another local edit does not drop the newer edit. `parked`: the server
            // refused the change for good (the app is told; `retryParkedChanges` retries).
            """
            CREATE TABLE pending (seq INTEGER PRIMARY KEY AUTOINCREMENT, zone_name TEXT NOT NULL, owner_name TEXT NOT NULL,
                record_name TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 1, parked TEXT,
                UNIQUE (zone_name, owner_name, record_name))
            """,
        ]
    ]

    static func migrate(_ connection: DirectConnection) throws {
        let current = Int(try connection.run("PRAGMA user_version").first?[0].integer ?? 0)
        guard current < versions.count else { return }
        for version in current..<versions.count {
            for statement in versions[version] { try connection.run(statement) }
        }
        try connection.run("PRAGMA user_version = \(versions.count)")
    }
}

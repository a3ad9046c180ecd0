import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import StratusEngine
import StratusStore

/// The PostgreSQL backend: `RecordStorage` on a connection pool, and a `Service` that closes the
/// pool when the server shuts down. Any number of instances may run on one database.
public final class PostgresStorage: RecordStorage, SigningKeySource, Service {
    public let records: SQLRecordStorage
    public let url: PostgresURL
    let database: PostgresDatabase

    /// The oldest server this backend runs on.
    static let minimumServerVersion = 150_000

    /// Connects, checks the server and applies pending migrations (one instance migrates; others
    /// starting at once wait for it). Fails with a `StartFailure` that says what to fix.
    /// `connectionWait`: how long a request waits for a pooled connection before it is answered
    /// TRY_AGAIN_LATER (the server is down, or every connection is busy).
    public static func open(
        _ url: PostgresURL, maximumConnections: Int = 20, connectionWait: Duration = .seconds(5),
        logger: Logger
    ) async throws -> PostgresStorage {
        try await checkServer(url, logger: logger)
        let pool = PostgresConnectionPool(connector: PostgresConnector(url: url, logger: logger), maximum: maximumConnections)
        let database = PostgresDatabase(pool: pool, leaseTimeout: connectionWait, logger: logger)
        let records = SQLRecordStorage(database: database)
        do {
            try await records.migrate { version in
                logger.notice("upgrading the database at \(url) to schema version \(version); let it finish")
            }
        } catch {
            await pool.close()
            if let newer = error as? MigrationRunner.NewerSchema { throw StartFailure(newer.description) }
            throw StartFailure("could not prepare the database at \(url): \(describe(error))")
        }
        return PostgresStorage(url: url, database: database, records: records)
    }

    init(url: PostgresURL, database: PostgresDatabase, records: SQLRecordStorage) {
        self.url = url
        self.database = database
        self.records = records
    }

    /// One connection outside the pool, so an unreachable server or a wrong password fails at
    /// once with the server's own words instead of a pool that keeps retrying.
    static func checkServer(_ url: PostgresURL, logger: Logger) async throws {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnector(url: url, logger: logger).connect()
        } catch let failure as PostgresConnector.NoServer where url.endpoints.count > 1 {
            throw StartFailure("cannot connect to PostgreSQL: \(failure); check that the servers run, that one is the primary, and that the URL's user, password and database are right")
        } catch {
            throw StartFailure("cannot connect to PostgreSQL at \(url): \(describe(error)); check that the server runs and the URL's user, password and database are right")
        }
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SELECT current_setting('server_version_num')::int, current_setting('server_version')", logger: logger)
        for try await row in rows {
            let number = try row.makeRandomAccess()[0].decode(Int32.self)
            let version = try row.makeRandomAccess()[1].decode(String.self)
            if number < minimumServerVersion {
                throw StartFailure("PostgreSQL \(version) is too old: Stratus needs PostgreSQL 15 or newer; upgrade the server")
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if let failure = error as? PSQLError { return PostgresFailure.describe(failure) }
        if let failure = error as? PostgresConnector.NoServer, failure.refusals.count == 1 {
            // One host: its own reason, without the list around it.
            return String(failure.refusals[0].drop { $0 != " " }.dropFirst())
        }
        return "\(error)"
    }

    public func read<T: Sendable>(_ body: @Sendable (any StorageReader) async throws -> T) async throws -> T {
        do { return try await records.read(body) } catch { throw PostgresFailure.clientError(error) }
    }

    public func write<T: Sendable>(_ body: @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        do { return try await records.write(body) } catch { throw PostgresFailure.clientError(error) }
    }

    /// The keys that sign continuation markers, sync tokens, asset URLs and receipts, the same
    /// for every instance on this database, kept in `stratus_settings`: `secret` (hex) signs and
    /// is made by the first instance that asks; `secret.previous` lists retired secrets that
    /// still verify (`SigningKeys.previousText`). (With SQLite they are data folder files.)
    public func loadSigningKeys() async throws -> SigningKeys {
        let candidate = hexString(SigningKeys.randomSecret())
        let (current, previous) = try await database.withWriteTransaction { sql in
            try await sql.execute("INSERT INTO stratus_settings (name, value) VALUES ('secret', \(bind: candidate)) ON CONFLICT (name) DO NOTHING")
            return try await Self.storedKeys(sql)
        }
        return try Self.signingKeys(current: current, previous: previous)
    }

    /// Makes a new current secret; the old one verifies for `overlap` more milliseconds. One
    /// transaction, the `secret` row locked, so concurrent rotations queue. Tell the fleet
    /// afterwards (`FleetEvent.signingKeysChanged`).
    public func rotateSecret(overlap: Int64) async throws -> SigningKeys {
        let rotated = try await database.withWriteTransaction { sql in
            try await sql.execute("INSERT INTO stratus_settings (name, value) VALUES ('secret', \(bind: hexString(SigningKeys.randomSecret()))) ON CONFLICT (name) DO NOTHING")
            _ = try await sql.query("SELECT value FROM stratus_settings WHERE name = 'secret' FOR UPDATE")
            let (current, previous) = try await Self.storedKeys(sql)
            let rotated = try Self.signingKeys(current: current, previous: previous)
                .rotated(to: SigningKeys.randomSecret(), now: nowMilliseconds(), overlap: overlap)
            try await sql.execute("UPDATE stratus_settings SET value = \(bind: hexString(rotated.current)) WHERE name = 'secret'")
            try await sql.execute(
                """
                INSERT INTO stratus_settings (name, value) VALUES ('secret.previous', \(bind: rotated.previousText))
                ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
                """)
            return rotated
        }
        return rotated
    }

    private static func storedKeys(_ sql: any SQLExecutor) async throws -> (current: String?, previous: String?) {
        let rows = try await sql.query("SELECT name, value FROM stratus_settings WHERE name IN ('secret', 'secret.previous')")
        var current: String?, previous: String?
        for row in rows {
            if row[0].text == "secret" { current = row[1].text } else { previous = row[1].text }
        }
        return (current, previous)
    }

    private static func signingKeys(current: String?, previous: String?) throws -> SigningKeys {
        guard let current, current.count == 64, let secret = SigningKeys.bytes(hex: current) else {
            throw StartFailure("the database's stored secret is damaged; delete the 'secret' row of stratus_settings to make a new one (outstanding tokens stop working)")
        }
        guard let retired = SigningKeys.parsePrevious(previous ?? "") else {
            throw StartFailure("the database's retired secrets are damaged; delete the 'secret.previous' row of stratus_settings (tokens signed before the last rotation stop working)")
        }
        return SigningKeys(current: secret, previous: retired)
    }

    /// Whether any container exists: a new database gets the default container on first start, a
    /// database set up by hand (`stratus container create`) does not.
    public func hasContainers() async throws -> Bool {
        try await database.withReadTransaction { sql in !(try await sql.query("SELECT 1 FROM containers LIMIT 1")).isEmpty }
    }

    public var servesSeveralInstances: Bool { records.servesSeveralInstances }

    public func announce(_ events: [FleetEvent]) async throws {
        do { try await records.announce(events) } catch { throw PostgresFailure.clientError(error) }
    }

    public func close() async throws {
        try await database.close()
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }

    /// Why the backend could not start, in one line that says what to fix.
    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

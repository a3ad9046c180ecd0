import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import StratusEngine
import StratusPostgres
import StratusSQLite
import Synchronization

/// The storage backend the conformance suites run on. SQLite in the test's folder by default;
/// with `STRATUS_TEST_DATABASE_URL` (a PostgreSQL server's URL whose user may create databases,
/// as `scripts/with-postgres` sets it), a fresh database of its own on that server for every
/// fixture, dropped when the fixture closes. `scripts/test` runs the suites once each way.
public enum TestBackend {
    /// The PostgreSQL server the tests use, or nil for SQLite.
    public static var postgresServer: PostgresURL? {
        guard let text = ProcessInfo.processInfo.environment["STRATUS_TEST_DATABASE_URL"], !text.isEmpty else { return nil }
        return try? PostgresURL(text)
    }

    public static var isPostgres: Bool { postgresServer != nil }

    /// Opens the backend's storage for one fixture; `sqliteOnly` for tests of SQLite itself.
    public static func open(folder: URL, readerCount: Int = 4, sqliteOnly: Bool = false, logger: Logger) async throws -> any RecordStorage & Service {
        guard let server = postgresServer, !sqliteOnly else {
            return try await SQLiteStorage.open(
                path: folder.appendingPathComponent("stratus.sqlite").path, readerCount: readerCount,
                logger: logger)
        }
        let database = try await createDatabase(on: server)
        // A generous wait: the whole suite opens databases on one server at once.
        return DroppingStorage(
            storage: try await PostgresStorage.open(database, maximumConnections: 8, connectionWait: .seconds(60), logger: logger),
            database: database, server: server)
    }

    /// Starts the listener a server on this storage runs for other instances' events (PostgreSQL
    /// only; nil for SQLite, which serves one process). Cancel the task to stop it.
    public static func listen(_ storage: any RecordStorage, logger: Logger, deliver: @escaping @Sendable (FleetEvent) -> Void) -> Task<Void, Never>? {
        let postgres = (storage as? PostgresStorage) ?? (storage as? DroppingStorage)?.storage
        guard let postgres else { return nil }
        let listener = PostgresFleetListener(url: postgres.url, logger: logger, deliver: deliver)
        return Task { try? await listener.run() }
    }

    /// The flags a `stratus` command needs to open the same data as `storage` (a fixture's
    /// storage in `folder`): `--database URL` on PostgreSQL, `--data FOLDER` on SQLite.
    public static func commandFlags(for storage: any RecordStorage, folder: URL) -> [String] {
        guard let postgres = (storage as? PostgresStorage) ?? (storage as? DroppingStorage)?.storage else { return ["--data", folder.path] }
        return ["--data", folder.path, "--database", postgres.url.urlString]
    }

    /// Two storages on one database, as two server instances (or a server and a command) see it:
    /// the same SQLite file opened twice, or one PostgreSQL database through two connection pools.
    /// `close` closes both and drops the database.
    public static func openTwo(folder: URL, logger: Logger) async throws -> (
        first: any RecordStorage, second: any RecordStorage,
        close: @Sendable () async -> Void
    ) {
        guard let server = postgresServer else {
            let path = folder.appendingPathComponent("stratus.sqlite").path
            let first = try await SQLiteStorage.open(path: path, readerCount: 2, logger: logger)
            let second = try await SQLiteStorage.open(path: path, readerCount: 2, logger: logger)
            return (
                first, second,
                {
                    try? await first.close(); try? await second.close()
                }
            )
        }
        let database = try await createDatabase(on: server)
        let first = try await PostgresStorage.open(database, maximumConnections: 8, connectionWait: .seconds(60), logger: logger)
        let second = try await PostgresStorage.open(database, maximumConnections: 8, connectionWait: .seconds(60), logger: logger)
        return (
            first, second,
            {
                try? await first.close()
                try? await second.close()
                await dropDatabase(database, on: server)
            }
        )
    }

    /// A new empty database on `server` (named for this test process and a counter), as a URL.
    public static func createDatabase(on server: PostgresURL) async throws -> PostgresURL {
        try await createDatabase(named: "stratus_test_\(UUID().uuidString.prefix(8).lowercased())_\(counter.next())", on: server)
    }

    /// Creates database `name` on `server` (an error if it exists) and returns its URL.
    private static func createDatabase(named name: String, on server: PostgresURL) async throws -> PostgresURL {
        try await onServer(server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE template0 ENCODING 'UTF8'"), logger: logger)
        }
        var url = server
        url.database = name
        return url
    }

    /// Drops a database `createDatabase` made, disconnecting whoever still uses it.
    public static func dropDatabase(_ database: PostgresURL, on server: PostgresURL) async {
        try? await onServer(server) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database.database) WITH (FORCE)"), logger: logger)
        }
    }

    /// Environment that points a `stratus` command with `--data FOLDER` among `arguments` at the
    /// backend: nothing for SQLite (the folder holds the database); for PostgreSQL,
    /// `STRATUS_DATABASE_URL` naming a database of that folder's own, made on first use, so a
    /// server and the commands run on its folder share one database as they share the folder.
    public static func commandEnvironment(arguments: [String]) async throws -> [String: String] {
        guard let server = postgresServer, let flag = arguments.firstIndex(of: "--data"), flag + 1 < arguments.count else { return [:] }
        var database = server
        database.database = "stratus_folder_\(stableHash(arguments[flag + 1]))"
        do {
            database = try await createDatabase(named: database.database, on: server)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P04" {
            // Made by an earlier command on the same folder.
        }
        return ["STRATUS_DATABASE_URL": database.urlString]
    }

    /// FNV-1a of the text, in hex: the same name for the same folder in every process.
    private static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    private static func onServer(_ server: PostgresURL, _ body: (PostgresConnection) async throws -> Void) async throws {
        var admin = server
        admin.database = "postgres"
        let connection = try await admin.connect(logger: logger)
        do { try await body(connection) } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    private static let logger = Logger(label: "stratus-test-backend")
    private static let counter = Counter()

    private final class Counter: Sendable {
        private let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1; return $0
            }
        }
    }
}

/// PostgreSQL storage whose database is dropped when it closes.
final class DroppingStorage: RecordStorage, Service {
    let storage: PostgresStorage
    let database: PostgresURL
    let server: PostgresURL

    init(storage: PostgresStorage, database: PostgresURL, server: PostgresURL) {
        self.storage = storage
        self.database = database
        self.server = server
    }

    func read<T: Sendable>(_ body: @Sendable (any StorageReader) async throws -> T) async throws -> T { try await storage.read(body) }

    func write<T: Sendable>(_ body: @Sendable (any StorageWriter) async throws -> T) async throws -> T { try await storage.write(body) }

    var servesSeveralInstances: Bool { storage.servesSeveralInstances }

    func announce(_ events: [FleetEvent]) async throws { try await storage.announce(events) }

    func close() async throws {
        try await storage.close()
        await TestBackend.dropDatabase(database, on: server)
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}

import Foundation
import Logging
import PostgresNIO
import StratusEngine
import StratusModel
import StratusPostgres
import StratusTestSupport
import Testing

/// A PostgreSQL server that cannot be reached stops the start with a line that says what to check,
/// and a URL's hosts are tried in order for one that fits. (Connections the server ends are
/// retried on new ones: `PostgresConnectionPoolTests`.)
@Suite("database outages", .postgresOnly)
struct DatabaseOutageTests {
    @Test("a server that cannot be reached fails the start with one line that says what to check")
    func unreachableServer() async throws {
        let url = try PostgresURL("postgres://stratus@127.0.0.1:1/stratus?sslmode=disable")
        do {
            _ = try await PostgresStorage.open(url, logger: Logger(label: "test"))
            Issue.record("opened a server that does not exist")
        } catch let failure as PostgresStorage.StartFailure {
            #expect(failure.description.contains("cannot connect to PostgreSQL at postgres://stratus@127.0.0.1:1/stratus"))
            #expect(failure.description.contains("check that the server runs"))
        }
    }

    @Test("hosts are tried in order: one that refuses is passed over for the next")
    func refusingHostIsSkipped() async throws {
        let server = try #require(TestBackend.postgresServer)
        let url = try PostgresURL("postgres://\(server.username)@127.0.0.1:1,\(server.endpoints[0])/\(server.database)?sslmode=disable&target_session_attrs=primary")
        let connection = try await url.connect(logger: Logger(label: "test"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SELECT pg_is_in_recovery()", logger: Logger(label: "test"))
        for try await inRecovery in rows.decode(Bool.self) { #expect(!inRecovery) }
    }

    @Test("read-write passes over a read-only server and says why when none is left")
    func readOnlyServerIsSkipped() async throws {
        let server = try #require(TestBackend.postgresServer)
        let readOnly = try await TestBackend.createDatabase(on: server)
        defer { Task { await TestBackend.dropDatabase(readOnly, on: server) } }
        let admin = try await server.connect(logger: Logger(label: "test"))
        try await admin.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(readOnly.database) SET default_transaction_read_only = on"), logger: Logger(label: "test"))
        try await admin.close()

        var url = readOnly
        url.targetSessionAttributes = .readWrite
        do {
            let connection = try await url.connect(logger: Logger(label: "test"))
            try? await connection.close()
            Issue.record("read-write connected to a read-only server")
        } catch {
            #expect("\(error)".contains("\(server.endpoints[0]): read-only (default_transaction_read_only is on)"), "\(error)")
            #expect("\(error)".contains("target_session_attrs=read-write"), "\(error)")
        }
        // The same server is fine for `primary` (it is not in recovery) and for `any`.
        url.targetSessionAttributes = .primary
        try await url.connect(logger: Logger(label: "test")).close()
        url.targetSessionAttributes = .any
        try await url.connect(logger: Logger(label: "test")).close()
        // A whole storage refuses to start with the reason.
        url.targetSessionAttributes = .readWrite
        url.endpoints.append(url.endpoints[0])
        do {
            _ = try await PostgresStorage.open(url, logger: Logger(label: "test"))
            Issue.record("opened a read-only server for writes")
        } catch let failure as PostgresStorage.StartFailure {
            #expect(failure.description.contains("read-only"), "\(failure)")
            #expect(failure.description.contains("that one is the primary"), "\(failure)")
        }
    }

    @Test("a host that takes the connection and never answers is given up after connect_timeout", .timeLimit(.minutes(1)))
    func silentHostIsSkipped() async throws {
        let server = try #require(TestBackend.postgresServer)
        let silent = try SilentListener()
        defer { silent.close() }
        let url = try PostgresURL(
            "postgres://\(server.username)@127.0.0.1:\(silent.port),\(server.endpoints[0])/\(server.database)?sslmode=disable&connect_timeout=1")
        let clock = ContinuousClock(), started = clock.now
        let connection = try await url.connect(logger: Logger(label: "test"))
        try await connection.close()
        #expect(clock.now - started >= .seconds(1), "the silent host was waited for")
        #expect(clock.now - started < .seconds(4), "and given up after its connect timeout: \(clock.now - started)")
    }
}

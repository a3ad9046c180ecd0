import Foundation
import Logging
import Synchronization
import PostgresNIO
import StratusEngine
@testable import StratusPostgres
import StratusTestSupport
import Testing

/// The backend's own pool on a real server: connections are reused, a full pool makes a lease
/// wait and then give up, and while no server fits a lease keeps trying until its deadline.
@Suite("PostgreSQL connection pool", .postgresOnly)
struct PostgresConnectionPoolTests {
    let logger = Logger(label: "test")

    @Test("a released connection is leased again, a broken one is replaced")
    func reuse() async throws {
        let server = try #require(TestBackend.postgresServer)
        let pool = PostgresConnectionPool(connector: PostgresConnector(url: server, logger: logger), maximum: 2)
        let first = try await pool.lease(within: .seconds(5))
        await pool.release(first, broken: false)
        let again = try await pool.lease(within: .seconds(5))
        #expect(again === first)
        await pool.release(again, broken: true)
        let replaced = try await pool.lease(within: .seconds(5))
        #expect(replaced !== first)
        await pool.release(replaced, broken: false)
        await pool.close()
    }

    @Test("a full pool makes a lease wait for a release, and then give up at its deadline")
    func fullPool() async throws {
        let server = try #require(TestBackend.postgresServer)
        let pool = PostgresConnectionPool(connector: PostgresConnector(url: server, logger: logger), maximum: 1)
        let held = try await pool.lease(within: .seconds(5))
        let waiting = Task { try await pool.lease(within: .seconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        await pool.release(held, broken: false)
        let handed = try await waiting.value
        #expect(handed === held, "the waiting lease got the released connection")

        let clock = ContinuousClock(), started = clock.now
        do {
            _ = try await pool.lease(within: .milliseconds(300))
            Issue.record("leased a second connection from a pool of one")
        } catch let failure as NoConnection {
            #expect(failure.reason.contains("stayed busy"))
            #expect(clock.now - started >= .milliseconds(300))
        }
        await pool.release(handed, broken: false)
        await pool.close()
    }

    @Test("while no host fits, a lease keeps trying until its deadline and says why")
    func noServer() async throws {
        let url = try PostgresURL("postgres://stratus@127.0.0.1:1,127.0.0.1:2/stratus?sslmode=disable&target_session_attrs=read-write")
        let pool = PostgresConnectionPool(connector: PostgresConnector(url: url, logger: logger), maximum: 4)
        let clock = ContinuousClock(), started = clock.now
        do {
            _ = try await pool.lease(within: .seconds(1))
            Issue.record("leased a connection to nothing")
        } catch let failure as NoConnection {
            #expect(clock.now - started >= .milliseconds(700), "it kept trying")
            #expect(clock.now - started < .seconds(3), "it gave up at the deadline")
            #expect(failure.reason.contains("127.0.0.1:1: connection refused; 127.0.0.1:2: connection refused"), "\(failure.reason)")
        }
        // The client sees TRY_AGAIN_LATER with a retry hint, never the hosts.
        let answer = PostgresFailure.clientError(NoConnection(reason: "127.0.0.1:1: connection refused"))
        let error = try #require(answer as? CloudKitError)
        #expect(error.code == .tryAgainLater)
        #expect(error.retryAfter != nil)
        #expect(!error.reason.contains("127.0.0.1"))
        await pool.close()
    }

    @Test("a connection the server ends inside a transaction fails its next statement at once", .timeLimit(.minutes(1)))
    func endedInsideATransaction() async throws {
        let server = try #require(TestBackend.postgresServer)
        let connection = try await server.connect(logger: logger)
        let pid = try #require(try await GuardedStatement.rows("SELECT pg_backend_pid()", on: connection, logger: logger).first?[0].integer)
        _ = try await GuardedStatement.rows("BEGIN", on: connection, logger: logger)
        try await terminate(pid, on: server)
        let clock = ContinuousClock(), started = clock.now
        do {
            _ = try await GuardedStatement.rows("SELECT 1", on: connection, logger: logger)
            Issue.record("a statement on a terminated connection was answered")
        } catch {
            #expect(clock.now - started < .seconds(5), "failed after \(clock.now - started): \(error)")
        }
        try? await connection.close()
    }

    @Test("a write transaction whose connection is ended runs again on a new one")
    func transactionRunsAgain() async throws {
        let server = try #require(TestBackend.postgresServer)
        let pool = PostgresConnectionPool(connector: PostgresConnector(url: server, logger: logger), maximum: 4)
        let database = PostgresDatabase(pool: pool, leaseTimeout: .seconds(5), logger: logger)
        let attempts = Counter()
        let answer = try await database.withWriteTransaction { sql in
            if attempts.next() == 1 {
                // The server ends this very connection, as a dying primary does.
                let pid = try #require(try await sql.query("SELECT pg_backend_pid()").first?[0].integer)
                try await terminate(pid, on: server)
                try await Task.sleep(for: .milliseconds(200))
            }
            return try await sql.query("SELECT 42").first?[0].integer
        }
        #expect(answer == 42)
        #expect(attempts.value == 2, "one attempt on the ended connection, one on a new one")
        await pool.close()
    }

    /// Ends a server process from another connection, as `pg_terminate_backend` does for a DBA.
    func terminate(_ pid: Int64, on server: PostgresURL) async throws {
        let admin = try await server.connect(logger: logger)
        do {
            _ = try await GuardedStatement.rows(PostgresQuery(unsafeSQL: "SELECT pg_terminate_backend(\(pid))"), on: admin, logger: logger)
        } catch {
            try? await admin.close()
            throw error
        }
        try await admin.close()
    }
}

/// Counts across the attempts of a transaction body.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func next() -> Int {
        count.withLock {
            $0 += 1
            return $0
        }
    }
}

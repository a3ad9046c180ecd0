import Logging
import PostgresNIO
import StratusStore

/// `SQLDatabase` on a PostgreSQL connection pool. Reads run in REPEATABLE READ READ ONLY
/// transactions (one snapshot for every statement of a change-feed page); writes run in READ
/// COMMITTED transactions that lock what they change (`SQLStorageWriter`), so writes to different
/// stores run in parallel, here and on other instances. Serialization failures, deadlocks and
/// connections lost before COMMIT are retried a bounded number of times.
public final class PostgresDatabase: SQLDatabase {
    public let dialect: any SQLDialect = PostgresDialect()
    let pool: PostgresConnectionPool
    let logger: Logger

    /// Attempts of one transaction that meets a serialization failure, a deadlock or a lost
    /// connection.
    static let maximumAttempts = 5
    /// How long a transaction waits for a connection. While no server fits (down, or a failover
    /// under way) the pool keeps trying the URL's hosts, so a request made during a failover is
    /// answered once the standby is promoted, or TRY_AGAIN_LATER after this instead of waiting
    /// for as long as the outage lasts.
    let leaseTimeout: Duration

    init(pool: PostgresConnectionPool, leaseTimeout: Duration, logger: Logger) {
        self.pool = pool
        self.leaseTimeout = leaseTimeout
        self.logger = logger
    }

    public func withReadTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await retrying {
            try await self.leasing { connection in
                let executor = PostgresExecutor(connection: connection, logger: self.logger)
                return try await PostgresDatabase.transaction(executor, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
            }
        }
    }

    public func withWriteTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let (result, deferred) = try await retrying {
            try await self.leasing { connection in
                let executor = PostgresExecutor(connection: connection, logger: self.logger)
                let result = try await PostgresDatabase.transaction(executor, begin: "BEGIN", body)
                return (result, executor.afterCommit)
            }
        }
        // Built in the background: a concurrent build waits for every older transaction to end,
        // and the request that asked for the index should not wait with it.
        if !deferred.isEmpty { Task { await self.buildIndexes(deferred) } }
        return result
    }

    /// Runs `body` on a pooled connection, or throws `NoConnection` when none is to be had within
    /// `timeout` (default `leaseTimeout`). A connection that broke under `body` is closed rather than pooled, and
    /// the idle ones go with it (they lead to the same server).
    func leasing<T: Sendable>(
        within timeout: Duration? = nil, _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await pool.lease(within: timeout ?? leaseTimeout)
        do {
            let result = try await body(connection)
            await pool.release(connection, broken: false)
            return result
        } catch {
            let lost = PostgresDatabase.lostConnection(error)
            if lost { await pool.dropIdle() }
            await pool.release(connection, broken: lost || error is CancellationError)
            throw error
        }
    }

    /// Whether `error` means the connection is gone or leads to a server that is no longer the
    /// primary.
    static func lostConnection(_ error: any Error) -> Bool {
        if error is CommitOutcomeUnknown || error is ConnectionClosed { return true }
        if let failure = error as? PSQLError { return PostgresFailure.isConnectionLoss(failure) }
        return false
    }

    static func transaction<T: Sendable>(
        _ executor: PostgresExecutor, begin: SQLFragment,
        _ body: @Sendable (any SQLExecutor) async throws -> T
    ) async throws -> T {
        try await executor.execute(begin)
        do {
            let result = try await body(executor)
            do {
                try await executor.execute("COMMIT")
            } catch let error as PSQLError where PostgresFailure.isConnectionLoss(error) {
                throw CommitOutcomeUnknown(underlying: error)
            } catch let closed as ConnectionClosed where closed.maybeSent {
                throw CommitOutcomeUnknown(underlying: closed)
            }
            return result
        } catch {
            // A connection whose ROLLBACK fails is in no known state: closed, so the pool drops it.
            do { try await executor.execute("ROLLBACK") } catch { try? await executor.connection.close() }
            throw error
        }
    }

    /// Runs `attempt` again after a serialization failure or deadlock, or when its connection was
    /// lost before COMMIT (the pool replaces broken connections), with a short random pause, up
    /// to `maximumAttempts` times; then the error reaches the storage (TRY_AGAIN_LATER).
    func retrying<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try await attempt()
            } catch let error as PSQLError
                where (PostgresFailure.isRetryable(error) || PostgresFailure.isConnectionLoss(error))
                && attempts < PostgresDatabase.maximumAttempts
            {
                logger.debug("retrying a transaction after \(PostgresFailure.sqlState(error) ?? "?") (attempt \(attempts))")
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempts))))
            } catch is ConnectionClosed where attempts < PostgresDatabase.maximumAttempts {
                // The transaction did not commit (a COMMIT that may have been sent is
                // CommitOutcomeUnknown instead): safe to run again.
                logger.debug("retrying a transaction whose connection had closed (attempt \(attempts))")
            }
        }
    }

    /// Index builds a schema change asked for, each `CONCURRENTLY` (other writers go on during
    /// the build) outside any transaction. One instance builds at a time (a session advisory
    /// lock, tried rather than waited for: a session waiting for it inside a statement would hold
    /// a snapshot the other's concurrent build waits for, a deadlock). A build that failed earlier
    /// leaves an invalid index behind, which `IF NOT EXISTS` would keep forever: it is dropped and
    /// built again. A failure here is logged, not thrown: the schema change has committed, and
    /// queries are answered without the index meanwhile.
    ///
    /// Two rules keep a build from stalling the pool. A builder waiting for the lock gives its
    /// connection back between attempts: builders that held theirs while they waited filled a
    /// small pool, and then the open transaction the running build waited for could not get the
    /// connection it needed to finish, so nothing moved again. And a build waits at most
    /// `indexBuildLockTimeout` for older transactions to end (`lock_timeout`): past that it gives up,
    /// leaving an invalid index the next build replaces, rather than waiting on a transaction that
    /// may itself be waiting for this connection.
    func buildIndexes(_ statements: [SQLFragment]) async {
        do {
            for _ in 0..<600 {
                if try await leasing({ connection in try await self.buildIfUnlocked(statements, on: connection) }) { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            logger.warning("another instance has been building indexes for a minute; the indexes of this schema change are built with the next one")
        } catch {
            logger.warning("could not build an index (queries work without it, more slowly; it is built again with the next schema change that needs it): \(String(reflecting: error))")
        }
    }

    /// How long an index build waits for the transactions older than it.
    static let indexBuildLockTimeout = "10s"

    /// Builds `statements` on `connection` if this session takes the build lock; false if another
    /// build holds it.
    private func buildIfUnlocked(_ statements: [SQLFragment], on connection: PostgresConnection) async throws -> Bool {
        let executor = PostgresExecutor(connection: connection, logger: logger)
        guard try await executor.query("SELECT pg_try_advisory_lock(\(bind: PostgresLockSpace.indexBuild))").first?[0].integer == 1 else {
            return false
        }
        do {
            try await executor.execute(SQLFragment(text: "SET lock_timeout = '\(PostgresDatabase.indexBuildLockTimeout)'"))
            for statement in statements {
                if let name = PostgresDatabase.indexName(statement.text) {
                    let invalid = try await executor.query(
                        """
                        SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid
                        WHERE pg_class.relname = \(bind: name) AND NOT pg_index.indisvalid
                        """)
                    if !invalid.isEmpty {
                        logger.warning("rebuilding index \(name), left invalid by an interrupted build")
                        try await executor.execute(SQLFragment(text: "DROP INDEX CONCURRENTLY IF EXISTS \"\(name)\""))
                    }
                }
                try await executor.execute(statement)
            }
        } catch {
            _ = try? await executor.execute("RESET lock_timeout")
            _ = try? await executor.execute("SELECT pg_advisory_unlock(\(bind: PostgresLockSpace.indexBuild))")
            throw error
        }
        try await executor.execute("RESET lock_timeout")
        try await executor.execute("SELECT pg_advisory_unlock(\(bind: PostgresLockSpace.indexBuild))")
        return true
    }

    /// The quoted index name of a `CREATE INDEX … "name" ON …` statement.
    static func indexName(_ statement: String) -> String? {
        let parts = statement.split(separator: "\"", omittingEmptySubsequences: false)
        return parts.count >= 3 && statement.hasPrefix("CREATE INDEX") ? String(parts[1]) : nil
    }

    public func close() async throws { await pool.close() }
}

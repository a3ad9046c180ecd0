import Logging
import PostgresNIO
import StratusStore

/// `SQLDatabase` on a PostgreSQL connection pool. Reads run in REPEATABLE READ READ ONLY
/// transactions (one snapshot for every statement of a change-feed page); writes run in READ
/// COMMITTED transactions that lock what they change (`SQLStorageWriter`), so writes to different
/// stores run in parallel, here and on other instances. Serialization failures and deadlocks are
/// retried a bounded number of times.
public final class PostgresDatabase: SQLDatabase {
    public let dialect: any SQLDialect = PostgresDialect()
    let client: PostgresClient
    let logger: Logger

    /// Attempts of one transaction that meets a serialization failure or a deadlock.
    static let maximumAttempts = 5

    init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    public func withReadTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await retrying {
            try await self.client.withConnection { connection in
                let executor = PostgresExecutor(connection: connection, logger: self.logger)
                return try await PostgresDatabase.transaction(executor, begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
            }
        }
    }

    public func withWriteTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let (result, deferred) = try await retrying {
            try await self.client.withConnection { connection in
                let executor = PostgresExecutor(connection: connection, logger: self.logger)
                let result = try await PostgresDatabase.transaction(executor, begin: "BEGIN", body)
                return (result, executor.afterCommit)
            }
        }
        if !deferred.isEmpty { await buildIndexes(deferred) }
        return result
    }

    static func transaction<T: Sendable>(_ executor: PostgresExecutor, begin: SQLFragment,
                                         _ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await executor.execute(begin)
        do {
            let result = try await body(executor)
            try await executor.execute("COMMIT")
            return result
        } catch {
            // A broken connection fails the rollback too; the pool drops that connection.
            try? await executor.execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `attempt` again after a serialization failure or deadlock, with a short random pause,
    /// up to `maximumAttempts` times; then the error reaches the storage (TRY_AGAIN_LATER).
    func retrying<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
        var attempts = 0
        while true {
            attempts += 1
            do {
                return try await attempt()
            } catch let error as PSQLError where PostgresFailure.isRetryable(error) && attempts < PostgresDatabase.maximumAttempts {
                logger.debug("retrying a transaction after \(PostgresFailure.sqlState(error) ?? "?") (attempt \(attempts))")
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempts))))
            }
        }
    }

    /// Index builds a schema change asked for, each `CONCURRENTLY` (other writers go on during
    /// the build) outside any transaction. One instance builds at a time (a session advisory
    /// lock). A build that failed earlier leaves an invalid index behind, which `IF NOT EXISTS`
    /// would keep forever: it is dropped and built again. A failure here is logged, not thrown:
    /// the schema change has committed, and queries are answered without the index meanwhile.
    func buildIndexes(_ statements: [SQLFragment]) async {
        do {
            try await client.withConnection { connection in
                let executor = PostgresExecutor(connection: connection, logger: logger)
                try await executor.execute("SELECT pg_advisory_lock(\(bind: PostgresLockSpace.indexBuild))")
                do {
                    for statement in statements {
                        if let name = PostgresDatabase.indexName(statement.text) {
                            let invalid = try await executor.query("""
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
                    _ = try? await executor.execute("SELECT pg_advisory_unlock(\(bind: PostgresLockSpace.indexBuild))")
                    throw error
                }
                try await executor.execute("SELECT pg_advisory_unlock(\(bind: PostgresLockSpace.indexBuild))")
            }
        } catch {
            logger.warning("could not build an index (queries work without it, more slowly; it is built again with the next schema change that needs it): \(String(reflecting: error))")
        }
    }

    /// The quoted index name of a `CREATE INDEX … "name" ON …` statement.
    static func indexName(_ statement: String) -> String? {
        let parts = statement.split(separator: "\"", omittingEmptySubsequences: false)
        return parts.count >= 3 && statement.hasPrefix("CREATE INDEX") ? String(parts[1]) : nil
    }

    public func close() async throws {}
}

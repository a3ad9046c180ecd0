import Foundation
import Logging
// Re-exported: the connection wrapper and SQLiteFailure were part of this module before they
// moved to StratusSQLiteCore (shared with StratusSync); users of StratusSQLite keep seeing them.
@_exported import StratusSQLiteCore
import StratusStore

/// One SQLite file in WAL mode: a single writer connection (SQLite allows one writer at a time;
/// queueing here is cheaper than lock contention in the file) whose transactions commit in groups
/// (`GroupCommitWriter`), and a pool of readers that run concurrently with it on snapshots.
/// Statements run inline on the task holding a connection.
public final class SQLiteDatabase: SQLDatabase {
    public let dialect: any SQLDialect = SQLiteDialect()
    /// Write transactions run one at a time, in arrival order, and commit in groups.
    let writer: GroupCommitWriter
    let readers: ConnectionPool
    let checkpointer: WALCheckpointer
    let logger: Logger

    /// Durability of a commit. `normal` survives a killed process (the WAL is in the OS's page
    /// cache); `full` also survives power loss, at the cost of an fsync per commit.
    public enum Synchronous: String, Sendable { case normal = "NORMAL", full = "FULL" }

    /// How long a statement waits, by default, for another process (a `stratus` command on the
    /// same folder) to release the database before failing with TRY_AGAIN_LATER.
    public static let defaultBusyTimeoutMilliseconds: Int32 = 10_000

    public static func open(
        path: String, readerCount: Int = 4, synchronous: Synchronous = .normal,
        busyTimeoutMilliseconds: Int32 = defaultBusyTimeoutMilliseconds,
        logger: Logger
    ) throws -> SQLiteDatabase {
        let writer = try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        // No memory-mapped I/O: a reader whose snapshot is older than the last commit unmaps and
        // remaps the whole file when it starts its next transaction (seen with strace: an
        // munmap/mmap pair per request under writes). Plain reads through the page cache cost
        // less per request.
        //
        // The writer's cache is 32 MB like the readers': a small one makes 200-record batches
        // slower (docs/decisions/0011-page-cache-skips-empty-truncations.md). A large cache used to cost every commit after
        // a B-tree rebalance a walk over all of it; StratusPageCache (a C target) removes that walk.
        for pragma in [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = \(synchronous.rawValue)", "PRAGMA temp_store = MEMORY",
            "PRAGMA cache_size = -32000", "PRAGMA foreign_keys = OFF",
            "PRAGMA wal_autocheckpoint = \(WALCheckpointer.backstopPages)",
        ] {
            try writer.run(pragma)
        }
        var readers: [DirectConnection] = []
        for _ in 0..<max(1, readerCount) {
            let reader = try DirectConnection(path: path, readOnly: true, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
            for pragma in ["PRAGMA temp_store = MEMORY", "PRAGMA cache_size = -32000"] {
                try reader.run(pragma)
            }
            readers.append(reader)
        }
        let checkpointer = WALCheckpointer(connection: try DirectConnection(path: path, readOnly: false, busyTimeoutMilliseconds: busyTimeoutMilliseconds))
        return SQLiteDatabase(writer: writer, readers: readers, checkpointer: checkpointer, logger: logger)
    }

    init(writer: DirectConnection, readers: [DirectConnection], checkpointer: WALCheckpointer, logger: Logger) {
        self.writer = GroupCommitWriter(connection: writer, didCommit: { [checkpointer] in checkpointer.noteCommit() })
        self.readers = ConnectionPool(readers)
        self.checkpointer = checkpointer
        self.logger = logger
    }

    public func withWriteTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await writer.write { connection in try await body(DirectExecutor(connection: connection)) }
    }

    /// Checkpoints the WAL in the background until cancelled (see `WALCheckpointer`).
    public func checkpointInBackground() async {
        await checkpointer.run(restartingLogOf: writer)
    }

    public func withReadTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await readers.with { connection in
            try connection.run("BEGIN")
            do {
                let result = try await body(DirectExecutor(connection: connection))
                try connection.run("COMMIT")
                return result
            } catch {
                _ = try? connection.run("ROLLBACK")
                throw error
            }
        }
    }

    /// Waits for the transactions in progress, checkpoints the WAL and closes every connection.
    /// Transactions that start afterwards fail (the server answers INTERNAL_ERROR while it stops).
    public func close() async throws {
        let writer = await self.writer.takeForClose()
        await checkpointer.close()
        _ = try? writer.run("PRAGMA wal_checkpoint(TRUNCATE)")
        writer.close()
        var held: [DirectConnection] = []
        for _ in 0..<readers.size { held.append(await readers.take()) }
        for reader in held { reader.close() }
        for reader in held { readers.give(reader) }
        self.writer.passTurn()
    }
}

/// Runs statements inline on the connection the transaction holds.
struct DirectExecutor: SQLExecutor {
    let connection: DirectConnection

    func query(_ sql: SQLFragment) async throws -> [SQLRow] { try connection.run(sql.text, sql.binds) }

    func execute(_ sql: SQLFragment) async throws { try connection.run(sql.text, sql.binds) }

    /// SQLite builds an index inside the transaction: there is only one writer anyway.
    func executeAfterCommit(_ sql: SQLFragment) async throws { try await execute(sql) }
}

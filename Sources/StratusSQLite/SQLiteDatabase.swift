import Foundation
import Logging
import NIOPosix
import SQLiteNIO
import StratusModel
import StratusStore

/// One SQLite file in WAL mode: a single writer connection (SQLite allows one writer at a time;
/// queueing here is cheaper than lock contention in the file) and a pool of readers that run
/// concurrently with it on snapshots.
public final class SQLiteDatabase: SQLDatabase {
    public let dialect: any SQLDialect = SQLiteDialect()
    let writer: SQLiteConnection
    let readers: [SQLiteConnection]
    let writeGate = AsyncSemaphore(value: 1)
    let readGate: AsyncSemaphore
    let pool: ReaderPool
    let threadPool: NIOThreadPool
    let logger: Logger

    /// Durability of a commit. `normal` survives a killed process (the WAL is in the OS's page
    /// cache); `full` also survives power loss, at the cost of an fsync per commit.
    public enum Synchronous: String, Sendable { case normal = "NORMAL", full = "FULL" }

    public static func open(path: String, readerCount: Int = 4, synchronous: Synchronous = .normal,
                            logger: Logger) async throws -> SQLiteDatabase {
        let threadPool = NIOThreadPool(numberOfThreads: readerCount + 1)
        threadPool.start()
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        func connect(readOnly: Bool) async throws -> SQLiteConnection {
            let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threadPool, logger: logger, on: eventLoop)
            do {
                try await connection.install(customFunction: distanceFunction)
                for pragma in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = \(synchronous.rawValue)", "PRAGMA temp_store = MEMORY",
                               "PRAGMA cache_size = -32000", "PRAGMA mmap_size = 268435456", "PRAGMA foreign_keys = OFF"] {
                    _ = try await connection.query(pragma)
                }
                if readOnly { _ = try await connection.query("PRAGMA query_only = 1") }
                return connection
            } catch {
                try? await connection.close()
                throw error
            }
        }
        var opened: [SQLiteConnection] = []
        do {
            let writer = try await connect(readOnly: false)
            opened.append(writer)
            for _ in 0..<max(1, readerCount) { opened.append(try await connect(readOnly: true)) }
            return SQLiteDatabase(writer: writer, readers: Array(opened.dropFirst()), threadPool: threadPool, logger: logger)
        } catch {
            // A file that is not a database fails at the first PRAGMA: close what was opened so
            // nothing is left for deinit to trip over.
            for connection in opened { try? await connection.close() }
            try? await threadPool.shutdownGracefully()
            throw error
        }
    }

    init(writer: SQLiteConnection, readers: [SQLiteConnection], threadPool: NIOThreadPool, logger: Logger) {
        self.writer = writer
        self.readers = readers
        self.readGate = AsyncSemaphore(value: readers.count)
        self.pool = ReaderPool(readers)
        self.threadPool = threadPool
        self.logger = logger
    }

    public func withWriteTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        await writeGate.wait()
        defer { Task { await writeGate.signal() } }
        let executor = SQLiteExecutor(connection: writer)
        _ = try await writer.query("BEGIN IMMEDIATE")
        do {
            let result = try await body(executor)
            _ = try await writer.query("COMMIT")
            return result
        } catch {
            _ = try? await writer.query("ROLLBACK")
            throw error
        }
    }

    public func withReadTransaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        await readGate.wait()
        let connection = await pool.take()
        defer {
            Task {
                await pool.give(connection)
                await readGate.signal()
            }
        }
        _ = try await connection.query("BEGIN")
        do {
            let result = try await body(SQLiteExecutor(connection: connection))
            _ = try await connection.query("COMMIT")
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK")
            throw error
        }
    }

    /// Waits for the write in progress, then closes every connection.
    public func close() async throws {
        await writeGate.wait()
        for reader in readers { try? await reader.close() }
        _ = try? await writer.query("PRAGMA wal_checkpoint(TRUNCATE)")
        try await writer.close()
        try await threadPool.shutdownGracefully()
    }
}

/// Idle reader connections.
actor ReaderPool {
    private var idle: [SQLiteConnection]

    init(_ connections: [SQLiteConnection]) { idle = connections }

    /// Only called after the read gate admitted the caller, so a connection is always idle.
    func take() -> SQLiteConnection { idle.removeLast() }

    func give(_ connection: SQLiteConnection) { idle.append(connection) }
}

/// `stratus_distance(lat1, lon1, lat2, lon2)`: metres along a great circle, for NEAR filters and
/// distance sorts.
let distanceFunction = SQLiteCustomFunction("stratus_distance", argumentCount: 4, pure: true) { arguments in
    let values = arguments.map { $0.double }
    guard let lat1 = values[0], let lon1 = values[1], let lat2 = values[2], let lon2 = values[3] else { return nil as Double? }
    return LocationValue.haversineMetres(lat1, lon1, lat2, lon2)
}

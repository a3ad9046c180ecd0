import Foundation
import Logging
import ServiceLifecycle
import StratusEngine
import StratusSQLiteCore
import StratusStore

/// The embedded backend: `RecordStorage` on one SQLite file, and a `Service` that closes it
/// cleanly when the server shuts down.
public final class SQLiteStorage: RecordStorage, Service {
    public let records: SQLRecordStorage
    let database: SQLiteDatabase

    /// Opens (creating if needed) the database file and applies pending migrations.
    public static func open(
        path: String, readerCount: Int = 4, synchronous: SQLiteDatabase.Synchronous = .normal,
        busyTimeoutMilliseconds: Int32 = SQLiteDatabase.defaultBusyTimeoutMilliseconds,
        logger: Logger
    ) async throws -> SQLiteStorage {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = try SQLiteDatabase.open(
            path: path, readerCount: readerCount, synchronous: synchronous,
            busyTimeoutMilliseconds: busyTimeoutMilliseconds, logger: logger)
        let records = SQLRecordStorage(database: database)
        try await records.migrate { version in
            logger.notice("upgrading the database at \(path) to schema version \(version); a large data folder takes a while, let it finish")
        }
        return SQLiteStorage(database: database, records: records)
    }

    init(database: SQLiteDatabase, records: SQLRecordStorage) {
        self.database = database
        self.records = records
    }

    public func read<T: Sendable>(_ body: @Sendable (any StorageReader) async throws -> T) async throws -> T {
        do { return try await records.read(body) } catch let failure as SQLiteFailure { throw SQLiteStorage.clientError(failure) }
    }

    public func write<T: Sendable>(_ body: @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        do { return try await records.write(body) } catch let failure as SQLiteFailure { throw SQLiteStorage.clientError(failure) }
    }

    /// A full disk and a lock held by another process past the busy timeout are transient: TRY_AGAIN_LATER with a
    /// retry hint (clients retry it; StratusKit does automatically). Anything else stays an
    /// internal error whose text is logged, never sent.
    static func clientError(_ failure: SQLiteFailure) -> any Error {
        if failure.isDiskFull { return SQLiteStorage.diskFull }
        guard failure.isBusy else { return failure }
        return CloudKitError(
            .tryAgainLater, "the database is busy (another process holds its write lock); retry after a moment",
            retryAfter: 1)
    }

    /// SQLite rolled the transaction back whole, so nothing of it was saved; writes succeed again
    /// as soon as there is room, without a restart.
    static let diskFull = CloudKitError(
        .tryAgainLater, "the server's disk is full, so nothing of this request was saved; retry once the server's operator has freed space",
        retryAfter: 30)

    public var servesSeveralInstances: Bool { records.servesSeveralInstances }

    public func announce(_ events: [FleetEvent]) async throws {
        do { try await records.announce(events) } catch let failure as SQLiteFailure { throw SQLiteStorage.clientError(failure) }
    }

    public func close() async throws {
        try await records.close()
    }

    /// Checkpoints the WAL in the background until graceful shutdown, then closes after the
    /// write in progress commits.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.database.checkpointInBackground() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        try await close()
    }
}

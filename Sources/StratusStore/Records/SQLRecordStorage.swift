import StratusEngine
import StratusModel
import Synchronization

/// `RecordStorage` for any SQL backend: tables, side indexes and queries written once against
/// `SQLDatabase` and `SQLDialect`.
public final class SQLRecordStorage: RecordStorage, StorageTimingSource {
    public let database: any SQLDatabase
    /// Store ids never change once committed, so they are cached for the life of the process.
    let storeIDs = Mutex<[StoreKey: Int64]>([:])
    /// Told of every transaction's timings when metrics are on; nil: nothing is timed.
    private let timingObserver = Mutex<(any StorageTimingObserver)?>(nil)

    public init(database: any SQLDatabase) {
        self.database = database
    }

    /// Applies pending migrations. Call once before serving; `upgrading` hears of each migration
    /// applied to an existing database.
    public func migrate(upgrading: @Sendable (_ version: Int) -> Void = { _ in }) async throws {
        try await MigrationRunner(database: database).run(upgrading: upgrading)
    }

    public func observeTimings(_ observer: any StorageTimingObserver) {
        timingObserver.withLock { $0 = observer }
    }

    private func timer(_ kind: StorageTransactionKind) -> TransactionTimer? {
        timingObserver.withLock { $0 }.map { TransactionTimer(kind, $0) }
    }

    /// Traced as a `storage read` span: the wait for a reader connection and the transaction.
    public func read<T: Sendable>(_ body: @Sendable (any StorageReader) async throws -> T) async throws -> T {
        let timing = timer(.read)
        defer { timing?.end() }
        return try await TraceSpans.child("storage read") {
            try await database.withReadTransaction { sql in
                timing?.begin()
                return try await body(SQLStorageReader(sql: sql, storage: self))
            }
        }
    }

    /// Traced as a `storage write` span: the wait for the writer (on SQLite, for the group commit
    /// this transaction joins) and the transaction up to its commit.
    public func write<T: Sendable>(_ body: @Sendable (any StorageWriter) async throws -> T) async throws -> T {
        let timing = timer(.write)
        defer { timing?.end() }
        do {
            return try await TraceSpans.child("storage write") {
                try await database.withWriteTransaction { sql in
                    timing?.begin()
                    let writer = SQLStorageWriter(sql: sql, storage: self)
                    let result = try await body(writer)
                    try await writer.flushPending()
                    return result
                }
            }
        } catch {
            // A backend may commit several write transactions together (SQLite's group commit):
            // this one may have cached the id of a store another member created, and that
            // member's rollback or a failed group commit frees the id again.
            storeIDs.withLock { $0.removeAll() }
            throw error
        }
    }

    public var servesSeveralInstances: Bool { !database.dialect.serializesWriters }

    public func announce(_ events: [FleetEvent]) async throws {
        let statements = events.compactMap { database.dialect.announce($0.payload) }
        guard !statements.isEmpty else { return }
        try await database.withWriteTransaction { sql in
            for statement in statements { try await sql.execute(statement) }
        }
    }

    public func close() async throws {
        try await database.close()
    }

    func cachedStoreID(_ key: StoreKey) -> Int64? { storeIDs.withLock { $0[key] } }

    func cacheStoreID(_ key: StoreKey, _ id: Int64) { storeIDs.withLock { $0[key] = id } }
}

/// Columns selected for a record, in the order `decodeRecord` reads them.
let recordColumns = "records.zone_name, records.record_name, records.record_type, records.change_tag, records.fields, records.created_ms, records.created_by, records.modified_ms, records.modified_by"
let recordColumnCount = 9

/// A record row with its fields left as the stored text: most reads send them back as they
/// are, and the engine decodes them only when something needs them typed.
func decodeRecord(_ row: SQLRow) -> RecordRow {
    RecordRow(
        zoneName: row[0].text ?? "", recordName: row[1].text ?? "", recordType: row[2].text ?? "", changeTag: row[3].text ?? "",
        storedFields: StoredFields(text: row[4].text ?? "{}"),
        created: RecordStamp(timestamp: row[5].integer ?? 0, userRecordName: row[6].text ?? ""),
        modified: RecordStamp(timestamp: row[7].integer ?? 0, userRecordName: row[8].text ?? ""))
}

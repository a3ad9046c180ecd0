import StratusModel

/// The storage the engine runs on. A backend (SQLite, PostgreSQL) implements it; the engine and
/// the server never see SQL or a driver type.
///
/// This protocol lives in the engine (not in `StratusStore`) so that dependencies point one way:
/// `StratusStore` implements it with a shared SQL layer, backends plug a driver into that layer.
public protocol RecordStorage: Sendable {
    /// Runs `body` in a read transaction: a consistent snapshot.
    func read<T: Sendable>(_ body: @Sendable (any StorageReader) async throws -> T) async throws -> T
    /// Runs `body` in a write transaction: all of it commits or none of it does. Writes are
    /// serialized; `body` must not call `read` or `write` again.
    func write<T: Sendable>(_ body: @Sendable (any StorageWriter) async throws -> T) async throws -> T
    /// Whether several server processes may serve this storage at once (PostgreSQL), so what
    /// they must agree on (rate-limit budgets) is kept in it rather than in memory.
    var servesSeveralInstances: Bool { get }
    /// Broadcasts events to every instance on this storage, this one included (storage that
    /// serves one process does nothing).
    func announce(_ events: [FleetEvent]) async throws
    /// Flushes and closes. Pending writes complete first.
    func close() async throws
}

/// Reads within one transaction.
public protocol StorageReader: NotificationStorageReader, AssetStorageReader, IdentityStorageReader, ShareStorageReader,
    ConsoleStorageReader, TelemetryStorageReader, UserAdministrationStorageReader,
    DevelopmentResetStorageReader, UserDataStorageReader, QueueDepthReader, HookOutboxStorageReader, WebhookStorageReader
{
    func container(_ identifier: String) async throws -> ContainerRow?
    /// The container an API token (given as its SHA-256 hex digest) belongs to.
    func containerForAPIToken(digest: String) async throws -> String?
    /// The user a web auth token (SHA-256 hex digest) signs in, within a container.
    func userForWebAuthToken(digest: String, container: String) async throws -> UserRow?
    func schema(container: String, environment: DatabaseEnvironment) async throws -> Schema

    func zones(_ store: StoreKey) async throws -> [ZoneRow]
    func zone(_ store: StoreKey, name: String) async throws -> ZoneRow?
    /// Records by name within one zone; missing names are absent from the result.
    func records(_ store: StoreKey, zoneName: String, names: [String]) async throws -> [String: RecordRow]
    func query(_ store: StoreKey, plan: QueryPlan) async throws -> [QueryRow]
    /// How many records match the plan's filters (its sorts, position and limit do not apply).
    func count(_ store: StoreKey, plan: QueryPlan) async throws -> Int
    /// The groups of an aggregate, the largest first, `plan.limit` after `plan.offset`.
    func aggregate(_ store: StoreKey, plan: AggregatePlan) async throws -> [AggregateRow]
    /// Records that hold a DELETE_SELF or VALIDATE reference to the given record.
    func referrers(_ store: StoreKey, zoneName: String, recordName: String) async throws -> [ReferrerRow]
    /// The change log after `sequence`, oldest first.
    func changes(_ store: StoreKey, after sequence: Int64, limit: Int) async throws -> [ChangeRow]

    /// The store's newest change sequence, and the sequence up to which its log was compacted
    /// (tokens older than that can no longer be served).
    func sequenceState(_ store: StoreKey) async throws -> SequenceState
    /// Records of one zone written after `sequence` (each once, at its latest write), and — when
    /// `includeDeletions` — tombstones of records deleted after it and not recreated; ordered by
    /// sequence, at most `limit`.
    func zoneChanges(
        _ store: StoreKey, zoneName: String, after sequence: Int64, includeDeletions: Bool,
        limit: Int
    ) async throws -> [ZoneChange]
    /// Zones with changes after `sequence`, each once at its latest change, ordered by that change.
    func changedZones(_ store: StoreKey, after sequence: Int64, limit: Int) async throws -> [ZoneRow]
}

/// See `StorageReader.sequenceState`.
public struct SequenceState: Sendable, Hashable {
    public var last: Int64
    public var compacted: Int64

    public init(last: Int64, compacted: Int64) {
        self.last = last
        self.compacted = compacted
    }
}

/// One entry of a zone's change feed.
public struct ZoneChange: Sendable, Hashable {
    public var recordName: String
    public var sequence: Int64
    public var deleted: Bool
    /// The record's type; for a deletion logged before deletions kept their type, nil.
    public var recordType: String?

    public init(recordName: String, sequence: Int64, deleted: Bool, recordType: String? = nil) {
        self.recordName = recordName
        self.sequence = sequence
        self.deleted = deleted
        self.recordType = recordType
    }
}

/// Writes within one transaction. Every record and zone write appends to the store's change log
/// in the same transaction; implementations must not offer a way around that.
public protocol StorageWriter: StorageReader, NotificationStorageWriter, AssetStorageWriter, IdentityStorageWriter, FleetStorageWriter, ShareStorageWriter,
    ConsoleStorageWriter, TelemetryStorageWriter, UserAdministrationStorageWriter,
    DevelopmentResetStorageWriter, UserDataStorageWriter, HookOutboxStorageWriter, WebhookStorageWriter
{
    func createContainer(_ container: ContainerRow) async throws
    func addAPIToken(digest: String, container: String) async throws
    func addUser(_ user: UserRow, webAuthTokenDigest: String) async throws

    /// Makes this transaction the only one changing the schema of a container environment until it
    /// commits. Call before reading the stored types a change merges onto.
    func lockSchema(container: String, environment: DatabaseEnvironment) async throws
    /// Replaces the schema of one record type and creates the database indexes it declares.
    func saveRecordType(_ recordType: RecordTypeSchema, container: String, environment: DatabaseEnvironment) async throws

    /// Creates a zone (no-op when it exists). Returns whether it was created.
    func createZone(_ store: StoreKey, name: String) async throws -> Bool
    /// Deletes a zone and every record in it.
    func deleteZone(_ store: StoreKey, name: String) async throws

    /// Inserts or replaces a record. Assigns a new change tag, maintains side indexes (lists,
    /// full text, references) per `recordType`, appends a `save` change. Returns the stored row.
    /// `replacing` says whether a record of that name exists (its side-index rows are replaced).
    /// `encodedFields` is `RecordRow.encodedFields(record.fields)` when the caller already has it
    /// (the size check makes it), so a save serializes its fields once; `nil`: storage encodes.
    func saveRecord(_ store: StoreKey, record: RecordRow, encodedFields: String?, recordType: RecordTypeSchema, replacing: Bool) async throws -> RecordRow
    /// Deletes a record and its side-index rows, appending a `delete` change.
    func deleteRecord(_ store: StoreKey, zoneName: String, recordName: String) async throws

    /// Drops change-log entries (and so tombstones) written before `cutoffMilliseconds`, in every
    /// store, and records per store how far the log was compacted. Returns the entries removed.
    func compactChangeLog(before cutoffMilliseconds: Int64) async throws -> Int
}

extension StorageWriter {
    /// Saves a record whose fields are not encoded yet.
    public func saveRecord(_ store: StoreKey, record: RecordRow, recordType: RecordTypeSchema, replacing: Bool) async throws -> RecordRow {
        try await saveRecord(store, record: record, encodedFields: nil, recordType: recordType, replacing: replacing)
    }
}

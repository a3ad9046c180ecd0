import Foundation
import StratusKit
import StratusModel

/// An offline-first sync engine: a local SQLite copy of the records in the private database's
/// custom zones (or the shared database's zones, see ``Configuration/databaseScope``) that the
/// app reads and writes offline, kept in step with the server.
///
/// Local saves and deletes are written to the local file and a durable pending-changes queue
/// before the call returns; ``sendChanges()`` sends the queue in batches within the server's
/// limits, ``fetchChanges()`` applies server changes since the stored change tokens, and
/// ``start()`` does both automatically — after local edits and whenever a notification arrives.
/// Records changed on both sides go to the configured ``SyncConflictResolver``
/// (``FieldMergeResolver`` by default). What happens is reported on ``events``.
///
/// In the spirit of Apple's `CKSyncEngine`, with the local store built in: the app does not
/// keep its own copy of records or hand records to the engine on demand.
public actor SyncEngine {
    /// How durable a local change is once `save`/`deleteRecord` returns.
    public enum Durability: Sendable {
        /// Survives the app being killed or crashing (the default; SQLite WAL, synchronous=NORMAL).
        case processCrashSafe
        /// Also survives power loss (an fsync per local change).
        case powerLossSafe
    }

    /// What the engine syncs, where it keeps its local copy, and how it sends and retries.
    public struct Configuration: Sendable {
        /// The container whose database is synced.
        public var container: CKContainer
        /// The database synced: `.private` (the default) or `.shared` — the zones other users
        /// shared with this user. In the shared database edits are sent within the share's
        /// permission (a refused edit is reported as ``SyncEvent/changeRefused(recordID:error:)``),
        /// and a zone whose share ended (the user was removed, left, or the owner stopped
        /// sharing) is removed locally with ``SyncEvent/zoneDeleted(zoneID:droppedPendingChanges:)``.
        public var databaseScope: CKDatabase.Scope
        /// The local SQLite file (created when missing).
        public var storeURL: URL
        /// Decides records changed on both sides.
        public var resolver: any SyncConflictResolver
        public var durability: Durability
        /// The most operations sent in one request (the server's limit is 200).
        public var maximumBatchOperations: Int
        /// The most record bytes (as JSON) sent in one request.
        public var maximumBatchBytes: Int
        /// Records per fetched page (the server's limit is 200).
        public var fetchPageSize: Int
        /// How transient failures are retried.
        public var retry: SyncRetryPolicy
        /// The database subscription ``start()`` makes so the server notifies this engine.
        public var subscriptionID: String
        /// The zones to sync; `nil` (the default) syncs every custom zone of the database.
        public var zoneIDs: Set<CKRecordZone.ID>?

        public init(
            container: CKContainer, storeURL: URL, resolver: any SyncConflictResolver = FieldMergeResolver(),
            durability: Durability = .processCrashSafe, maximumBatchOperations: Int = 200,
            maximumBatchBytes: Int = 4 * 1024 * 1024, fetchPageSize: Int = 200,
            retry: SyncRetryPolicy = SyncRetryPolicy(), subscriptionID: String = "stratus-sync",
            zoneIDs: Set<CKRecordZone.ID>? = nil, databaseScope: CKDatabase.Scope = .private
        ) {
            self.container = container
            self.databaseScope = databaseScope
            self.storeURL = storeURL
            self.resolver = resolver
            self.durability = durability
            self.maximumBatchOperations = max(1, min(maximumBatchOperations, 200))
            self.maximumBatchBytes = maximumBatchBytes
            self.fetchPageSize = max(1, min(fetchPageSize, 200))
            self.retry = retry
            self.subscriptionID = subscriptionID
            self.zoneIDs = zoneIDs
        }
    }

    let configuration: Configuration
    var database: CKDatabase
    let store: LocalStore
    let broadcaster = EventBroadcaster()
    /// Set when the server refused the credentials; syncing stops until ``resume(with:)``.
    var authenticationError: CKError?
    /// The last sync job; each new one waits for it, so sends and fetches never overlap.
    var lastJob: Task<Void, any Error>?
    var automatic: AutomaticSync?

    /// Opens (or creates) the local store.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        self.database = configuration.container.database(with: configuration.databaseScope)
        do {
            store = try LocalStore(path: configuration.storeURL.path, durability: configuration.durability)
        } catch {
            throw SyncError.localStoreUnavailable(path: configuration.storeURL.path, underlying: "\(error)")
        }
    }

    /// Events, in order, from now on. Each call gives a new, independent sequence.
    public nonisolated var events: AsyncStream<SyncEvent> { broadcaster.stream() }

    func emit(_ event: SyncEvent) { broadcaster.emit(event) }

    // MARK: Local reads and writes (work offline)

    /// Saves a record locally and queues it for the server. Returns once the change is on disk.
    /// A record in a zone the engine does not know yet creates that zone on the next send.
    public func save(_ record: CKRecord) throws {
        let zoneID = record.recordID.zoneID
        guard zoneID.zoneName != CKRecordZone.ID.defaultZoneName else { throw SyncError.defaultZoneNotSynced }
        let document = record.archiveDocument
        try store.transaction {
            if try store.zone(zoneID) == nil { try store.addZone(zoneID, needsCreate: true) }
            let existing = try store.storedRecord(record.recordID)
            try store.put(StoredRecord(recordID: record.recordID, recordType: record.recordType, local: document, server: existing?.server))
            try store.enqueue(record.recordID)
        }
        automatic?.requestSync()
    }

    /// Deletes a record locally and queues the delete. Deleting a record the engine does not
    /// hold does nothing.
    public func deleteRecord(withID recordID: CKRecord.ID) throws {
        try store.transaction {
            guard var row = try store.storedRecord(recordID), row.local != nil else { return }
            row.local = nil
            try store.put(row)
            try store.enqueue(recordID)
        }
        automatic?.requestSync()
    }

    /// The local version of a record; `nil` when the engine holds none (or it was deleted).
    public func record(for recordID: CKRecord.ID) throws -> CKRecord? {
        try store.storedRecord(recordID)?.local.flatMap(CKRecord.init(archiveDocument:))
    }

    /// The local records of a type (optionally in one zone) that pass `isIncluded`, read page by
    /// page from the local file.
    public func records(
        ofType recordType: CKRecord.RecordType, in zoneID: CKRecordZone.ID? = nil,
        where isIncluded: (CKRecord) -> Bool = { _ in true }
    ) throws -> [CKRecord] {
        var found: [CKRecord] = []
        try store.forEachLocal(type: recordType, zoneID: zoneID) { document in
            if let record = CKRecord(archiveDocument: document), isIncluded(record) { found.append(record) }
            return true
        }
        return found
    }

    /// How many local records the engine holds.
    public func recordCount() throws -> Int { try store.recordCount() }

    /// Records with a change not yet on the server, oldest first.
    public func pendingRecordIDs() throws -> [CKRecord.ID] { try store.pendingIDs() }

    /// Puts changes the server refused for good (see ``SyncEvent/changeRefused(recordID:error:)``)
    /// back in the queue, for after the app fixed what was wrong.
    public func retryParkedChanges() throws { try store.transaction { try store.unparkAll() } }

    /// Goes on syncing with new credentials after ``SyncEvent/authenticationFailed(error:)``
    /// (a new API token, the user signed in again). Pending changes were kept and are sent.
    public func resume(with container: CKContainer) {
        database = container.database(with: configuration.databaseScope)
        authenticationError = nil
        automatic?.requestSync()
    }

    /// The zones the engine syncs.
    public func zoneIDs() throws -> [CKRecordZone.ID] { try store.zones().map(\.zoneID) }
}

/// Failures of the engine's own (not the server's).
public enum SyncError: Error, CustomStringConvertible {
    case localStoreUnavailable(path: String, underlying: String)
    case defaultZoneNotSynced
    /// The server refused the credentials earlier; call ``SyncEngine/resume(with:)`` with a
    /// container whose API token and web auth token are valid.
    case stoppedAfterAuthenticationFailure(CKError)

    public var description: String {
        switch self {
        case .localStoreUnavailable(let path, let underlying):
            return "cannot open the sync store at \(path) (\(underlying)); check the folder exists and is writable"
        case .defaultZoneNotSynced:
            return "the default zone has no change tracking; save synced records in a custom zone (CKRecordZone.ID(zoneName: \"…\"))"
        case .stoppedAfterAuthenticationFailure(let error):
            return "syncing stopped: the server refused the credentials (\(error.localizedDescription)); sign in again or use a valid API token"
        }
    }
}

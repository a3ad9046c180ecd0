import StratusModel

/// An after-hook event as the write that caused it queues it, in the write's transaction.
public struct NewHookEvent: Sendable {
    public var hook: String
    public var store: StoreKey
    /// The database as the caller addressed it (`.shared` for a participant's write).
    public var database: DatabaseScope
    public var kind: RecordChangeKind
    public var caller: Caller
    /// The record as committed; for a delete, its last state.
    public var record: RecordRow

    public init(hook: String, store: StoreKey, database: DatabaseScope, kind: RecordChangeKind, caller: Caller, record: RecordRow) {
        self.hook = hook
        self.store = store
        self.database = database
        self.kind = kind
        self.caller = caller
        self.record = record
    }

    /// A record's events run one at a time, in commit order, whichever hooks they are for (an
    /// afterDelete never overtakes the record's last afterSave).
    public var orderKey: String {
        [store.container, store.environment.rawValue, store.scope.rawValue, store.owner, record.zoneName, record.recordName]
            .joined(separator: "\u{1F}")
    }
}

/// A queued after-hook event, leased to the instance that runs it.
public struct HookEventRow: Sendable {
    public var id: Int64
    public var event: NewHookEvent
    public var createdMilliseconds: Int64
    /// This attempt's number, from 1.
    public var attempts: Int
    public var lastError: String

    public init(id: Int64, event: NewHookEvent, createdMilliseconds: Int64, attempts: Int, lastError: String) {
        self.id = id
        self.event = event
        self.createdMilliseconds = createdMilliseconds
        self.attempts = attempts
        self.lastError = lastError
    }
}

/// Reads of the hook outbox.
public protocol HookOutboxStorageReader: Sendable {
    /// Whether an event is due and not leased: a read, so an idle outbox costs no write transaction.
    func hasDueHookEvent(nowMilliseconds: Int64) async throws -> Bool
    /// Events waiting to run (claimed or not), and events given up on.
    func hookOutboxDepth() async throws -> (pending: Int, failed: Int)
    /// Events given up on, newest first.
    func failedHookEvents(limit: Int) async throws -> [HookEventRow]
}

/// Writes of the hook outbox. Rows are claimed with a lease so that several instances on one
/// database run each event once; a row goes only once its hook returned.
public protocol HookOutboxStorageWriter: HookOutboxStorageReader {
    func enqueueHookEvents(_ events: [NewHookEvent], nowMilliseconds: Int64) async throws
    /// Leases up to `limit` due events to `holder` until `leaseUntil`: at most one per order key,
    /// none of `excludingKeys` (running here already), oldest first.
    func claimHookEvents(holder: String, nowMilliseconds: Int64, leaseUntil: Int64, limit: Int, excludingKeys: [String]) async throws
        -> [HookEventRow]
    /// Releases every lease (a single server starting: leases of its previous run are dead).
    func releaseHookLeases() async throws
    /// Removes an event whose hook returned. False when this holder's lease was lost.
    func completeHookEvent(id: Int64, holder: String) async throws -> Bool
    /// Releases an event to run again at `nextAttempt`; the later events of its order key wait too.
    func retryHookEvent(id: Int64, holder: String, orderKey: String, nextAttemptMilliseconds: Int64, error: String) async throws
    /// Keeps an event as failed: it no longer runs, and no longer holds back its order key.
    func failHookEvent(id: Int64, holder: String, error: String, nowMilliseconds: Int64) async throws
}

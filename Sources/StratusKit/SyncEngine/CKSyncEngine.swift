import Foundation
import Synchronization

/// Apple's sync engine: the app keeps its own store, tells the engine what changed locally
/// (`state.add(pendingRecordZoneChanges:)`), hands it records when it asks
/// (`nextRecordZoneChangeBatch`), and applies the server's changes it delivers as events. It syncs
/// custom zones of the private or shared database; the default zone has no change tracking.
///
/// With `automaticallySync` (the default) the engine fetches when it starts and whenever the
/// server notifies it (it saves a database subscription and reads the container's notification
/// stream), and sends shortly after pending changes are added. `fetchChanges` and `sendChanges`
/// run a sync now and return when it is done. Events are delivered one at a time, in order; do
/// not await `fetchChanges` or `sendChanges` inside `handleEvent` (they wait for it to return).
public final class CKSyncEngine: Sendable {
    /// How an engine is set up.
    public struct Configuration: Sendable {
        public var database: CKDatabase
        /// The state from the last `stateUpdate` event of a previous engine, or `nil` to start afresh.
        public var stateSerialization: State.Serialization?
        /// Receives events and supplies records. The engine does not keep it alive.
        public var delegate: any CKSyncEngineDelegate
        public var automaticallySync = true
        /// The database subscription the engine saves to hear of server changes; `nil` uses the
        /// engine's own.
        public var subscriptionID: CKSubscription.ID?

        public init(database: CKDatabase, stateSerialization: State.Serialization?, delegate: any CKSyncEngineDelegate) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }
    }

    public let database: CKDatabase
    public let state: State
    let runner: SyncEngineRunner

    public init(_ configuration: Configuration) {
        database = configuration.database
        state = State(configuration.stateSerialization?.snapshot.contents ?? State.Contents())
        runner = SyncEngineRunner(
            database: configuration.database, state: state, delegate: configuration.delegate,
            subscriptionID: configuration.subscriptionID ?? SyncEngineRunner.defaultSubscriptionID)
        runner.engine.withLock { $0 = WeakEngine(self) }
        let runner = self.runner
        let automatic = configuration.automaticallySync
        state.changed.withLock {
            $0 = {
                runner.scheduleStateUpdate()
                if automatic { runner.scheduleSend() }
            }
        }
        if automatic { runner.startAutomaticSync() }
    }

    deinit {
        runner.stopAutomaticSync()
    }

    /// Fetches the server's changes now (database changes, then the changed zones' records) and
    /// returns when every event of the fetch has been handled.
    public func fetchChanges(_ options: FetchChangesOptions = FetchChangesOptions()) async throws {
        try await runner.fetch(options, reason: .manual)
    }

    /// Sends the pending changes now (zone changes, then record batches from the delegate) and
    /// returns when every event of the send has been handled.
    public func sendChanges(_ options: SendChangesOptions = SendChangesOptions()) async throws {
        try await runner.send(options, reason: .manual)
    }

    /// Cancels the fetches and sends in progress; they throw `CKError.operationCancelled`.
    public func cancelOperations() async {
        await runner.cancelRunning()
    }
}

/// The delegate of a ``CKSyncEngine``.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    /// One event; the next is delivered after this returns.
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async
    /// The next records to send, usually built from `syncEngine.state.pendingRecordZoneChanges`
    /// filtered by `context.options.scope`; `nil` when there is nothing more.
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?
    /// The options of a fetch about to start; by default, `context.options`.
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions
}

extension CKSyncEngineDelegate {
    public func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}

/// The engine as its runner sees it: weakly, so an engine the app drops goes away.
struct WeakEngine: @unchecked Sendable {
    // @unchecked Sendable: a weak reference to a Sendable class, read under the runner's lock.
    weak var engine: CKSyncEngine?
    init(_ engine: CKSyncEngine) { self.engine = engine }
}

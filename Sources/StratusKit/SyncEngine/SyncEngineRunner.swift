import Foundation
import StratusModel
import Synchronization

/// Runs a ``CKSyncEngine``'s fetches and sends one after another (so its events are serial) and
/// its automatic sync: a fetch at start and on each server notification, a send shortly after
/// pending changes are added.
final class SyncEngineRunner: Sendable {
    static let defaultSubscriptionID = "stratus-sync-engine"
    /// How long a send waits after pending changes are added, so a burst of edits goes together.
    static let sendDelay: Duration = .milliseconds(500)

    let database: CKDatabase
    let state: CKSyncEngine.State
    let subscriptionID: CKSubscription.ID
    let engine = Mutex<WeakEngine?>(nil)
    private let delegateBox: Mutex<WeakDelegate>
    private let jobs = SyncJobQueue()
    private let automatic = Mutex<AutomaticTasks?>(nil)
    private let sendScheduled = Mutex(false)
    private let stateUpdateScheduled = Mutex(false)
    private let fetchScheduled = Mutex(false)
    /// Whether a user is signed in, once the first fetch or send has asked the server.
    private let account = Mutex<Bool?>(nil)

    init(database: CKDatabase, state: CKSyncEngine.State, delegate: any CKSyncEngineDelegate, subscriptionID: CKSubscription.ID) {
        self.database = database
        self.state = state
        self.subscriptionID = subscriptionID
        delegateBox = Mutex(WeakDelegate(delegate))
    }

    /// The engine and its delegate, while both are alive.
    var participants: (CKSyncEngine, any CKSyncEngineDelegate)? {
        guard let engine = engine.withLock({ $0?.engine }), let delegate = delegateBox.withLock({ $0.delegate }) else { return nil }
        return (engine, delegate)
    }

    func fetch(_ options: CKSyncEngine.FetchChangesOptions, reason: CKSyncEngine.SyncReason) async throws {
        try await jobs.run { try await self.performFetch(options, reason: reason) }
    }

    func send(_ options: CKSyncEngine.SendChangesOptions, reason: CKSyncEngine.SyncReason) async throws {
        try await jobs.run { try await self.performSend(options, reason: reason) }
    }

    func cancelRunning() async {
        await jobs.cancelAll()
    }

    /// Delivers one event and waits for the delegate to handle it.
    func emit(_ event: CKSyncEngine.Event) async {
        guard let (engine, delegate) = participants else { return }
        await delegate.handleEvent(event, syncEngine: engine)
    }

    func emitStateUpdate() async {
        await emit(.stateUpdate(CKSyncEngine.Event.StateUpdate(stateSerialization: state.serialization)))
    }

    /// Reports a change of signed-in user once per engine, before its first fetch or send, and says
    /// whether a user is signed in. A new or different user starts from empty state, as Apple's
    /// engine does; with nobody signed in the engine does not sync (the private and shared
    /// databases have no owner to answer for). A failed check is tried again next time.
    func checkAccount() async throws -> Bool {
        if let known = account.withLock({ $0 }) { return known }
        let current = try await signedInUser()
        account.withLock { $0 = current != nil }
        let previous = state.contents.withLock { $0.userRecordName }
        guard previous != current else { return current != nil }
        let change: CKSyncEngine.Event.AccountChange.ChangeType
        switch (previous, current) {
        case (nil, let current?): change = .signIn(currentUser: CKRecord.ID(recordName: current))
        case (let previous?, nil): change = .signOut(previousUser: CKRecord.ID(recordName: previous))
        case (let previous?, let current?):
            change = .switchAccounts(previousUser: CKRecord.ID(recordName: previous), currentUser: CKRecord.ID(recordName: current))
        case (nil, nil): return false
        }
        state.contents.withLock { contents in
            if previous != nil { contents = CKSyncEngine.State.Contents() }
            contents.userRecordName = current
        }
        await emit(.accountChange(CKSyncEngine.Event.AccountChange(changeType: change)))
        await emitStateUpdate()
        return current != nil
    }

    /// The signed-in user's record name; `nil` when nobody is signed in.
    private func signedInUser() async throws -> String? {
        let answer: JSONValue
        do {
            answer = try await database.client.send(.public, "users/caller", method: "GET")
        } catch {
            if error.code == .notAuthenticated { return nil }
            throw error
        }
        return answer["userRecordName"]?.stringValue ?? answer["users"]?.arrayValue?.first?["userRecordName"]?.stringValue
    }

    // MARK: - Automatic sync

    func startAutomaticSync() {
        let fetcher = Task<Void, Never> { [weak self] in
            try? await self?.fetch(CKSyncEngine.FetchChangesOptions(), reason: .scheduled)
            if let self, !self.state.pendingRecordZoneChanges.isEmpty || !self.state.pendingDatabaseChanges.isEmpty {
                self.scheduleSend()
            }
        }
        let listener = Task<Void, Never> { [weak self] in await self?.listenForServerChanges() }
        automatic.withLock { $0 = AutomaticTasks(tasks: [fetcher, listener]) }
    }

    func stopAutomaticSync() {
        automatic.withLock {
            $0?.tasks.forEach { $0.cancel() }; $0 = nil
        }
    }

    /// Reports the state after the app changed its pending changes, once for a burst of
    /// changes, in order with the other events.
    func scheduleStateUpdate() {
        guard
            stateUpdateScheduled.withLock({ scheduled in
                defer { scheduled = true }; return !scheduled
            })
        else { return }
        Task { [weak self] in
            guard let self else { return }
            try? await self.jobs.run {
                self.stateUpdateScheduled.withLock { $0 = false }
                await self.emitStateUpdate()
            }
        }
    }

    /// Sends soon; changes added meanwhile go in the same send.
    func scheduleSend() {
        guard
            sendScheduled.withLock({ scheduled in
                defer { scheduled = true }; return !scheduled
            })
        else { return }
        Task { [weak self] in
            try? await Task.sleep(for: SyncEngineRunner.sendDelay)
            guard let self else { return }
            self.sendScheduled.withLock { $0 = false }
            try? await self.send(CKSyncEngine.SendChangesOptions(), reason: .scheduled)
        }
    }

    /// Saves the engine's database subscription, registers a push token, fetches once the token
    /// is registered (a change made before that queued no notification for it), then fetches on
    /// every notification; starts over with backoff when the courier fails.
    private func listenForServerChanges() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let subscription = CKDatabaseSubscription(subscriptionID: subscriptionID)
                let info = CKSubscription.NotificationInfo()
                info.shouldSendContentAvailable = true
                subscription.notificationInfo = info
                _ = try await database.save(subscription)
                let courier = try await WebCourier.register(database.client)
                scheduleFetch()
                try await courier.poll { _ in
                    failures = 0
                    self.scheduleFetch()
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                try? await Task.sleep(for: .seconds(min(60, 1 << min(failures, 6))))
            }
        }
    }

    /// Fetches soon; notifications that arrive meanwhile are covered by the same fetch.
    func scheduleFetch() {
        guard
            fetchScheduled.withLock({ scheduled in
                defer { scheduled = true }; return !scheduled
            })
        else { return }
        Task { [weak self] in
            guard let self else { return }
            self.fetchScheduled.withLock { $0 = false }
            try? await self.fetch(CKSyncEngine.FetchChangesOptions(), reason: .scheduled)
        }
    }
}

/// The delegate, held weakly as Apple's engine holds it.
struct WeakDelegate: @unchecked Sendable {
    // @unchecked Sendable: the delegate is Sendable; the reference is read under a lock.
    weak var delegate: (any CKSyncEngineDelegate)?
    init(_ delegate: any CKSyncEngineDelegate) { self.delegate = delegate }
}

struct AutomaticTasks: Sendable {
    let tasks: [Task<Void, Never>]
}

/// Runs jobs one after another and can cancel the running ones.
actor SyncJobQueue {
    private var last: Task<Void, any Error>?
    private var running: [UUID: Task<Void, any Error>] = [:]

    func run(_ work: @escaping @Sendable () async throws -> Void) async throws {
        let previous = last
        let id = UUID()
        let job = Task {
            _ = await previous?.result
            try Task.checkCancellation()
            try await work()
        }
        last = job
        running[id] = job
        defer { running[id] = nil }
        do {
            try await job.value
        } catch is CancellationError {
            throw CKError(.operationCancelled, "the sync engine's operations were cancelled")
        }
    }

    func cancelAll() {
        running.values.forEach { $0.cancel() }
    }
}

extension CKError {
    /// Failures that go away by waiting: the sync engines (this one and StratusSync) wait them
    /// out and retry, as Apple's engine does.
    package var isRetriedBySyncEngine: Bool {
        switch code {
        case .requestRateLimited, .serviceUnavailable, .zoneBusy, .networkFailure, .networkUnavailable,
            .serverResponseLost, .accountTemporarilyUnavailable:
            return true
        default:
            return false
        }
    }
}

extension SyncEngineRunner {
    /// Runs `body`, waiting out and retrying failures the engine retries (the server's
    /// `retryAfter` when it gave one, else backoff) a few times before giving up.
    func retrying<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let error as CKError where error.isRetriedBySyncEngine && attempt < 4 {
                attempt += 1
                let wait = min(60, error.retryAfterSeconds ?? 0.5 * pow(2, Double(attempt)))
                try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
            }
        }
    }
}

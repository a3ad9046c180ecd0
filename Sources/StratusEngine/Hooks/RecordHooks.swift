/// The server-side logic registered for records: `beforeSave` and `beforeDelete` hooks run
/// before a write's transaction and may refuse it; `afterSave` and `afterDelete` hooks run after
/// its commit, from the durable hook outbox (`HookOutboxRunner`). Empty unless an app built on
/// `StratusApp` registers hooks; an engine without hooks does no hook work at all.
public struct RecordHooks: Sendable {
    public typealias BeforeSave = @Sendable (_ record: inout SavingRecord, _ context: HookContext) async throws -> Void
    public typealias BeforeDelete = @Sendable (_ record: RecordRow, _ context: HookContext) async throws -> Void
    public typealias After = @Sendable (_ event: RecordHookEvent, _ context: HookContext) async throws -> Void

    struct Registered<Body: Sendable>: Sendable {
        /// Names the hook in logs, metrics and the outbox; writes a hook makes through its
        /// context do not run the hook of the same name again.
        let name: String
        let selector: HookSelector
        /// The changes an after hook runs for (empty for before hooks, which name theirs).
        var kinds: Set<RecordChangeKind> = []
        let body: Body
    }

    private(set) var beforeSaves: [Registered<BeforeSave>] = []
    private(set) var beforeDeletes: [Registered<BeforeDelete>] = []
    /// afterSave and afterDelete hooks alike: what an event is is in the event.
    private(set) var afters: [Registered<After>] = []

    /// How long a before hook may take; past it the record fails with TRY_AGAIN_LATER and
    /// nothing is written.
    public var timeLimit: Duration = .seconds(2)

    public init() {}

    public var isEmpty: Bool { beforeSaves.isEmpty && beforeDeletes.isEmpty && afters.isEmpty }
    public var hasAfterHooks: Bool { !afters.isEmpty }

    public mutating func beforeSave(_ selector: HookSelector, name: String? = nil, _ body: @escaping BeforeSave) {
        beforeSaves.append(Registered(name: name ?? uniqueName("beforeSave", selector), selector: selector, body: body))
    }

    public mutating func beforeDelete(_ selector: HookSelector, name: String? = nil, _ body: @escaping BeforeDelete) {
        beforeDeletes.append(Registered(name: name ?? uniqueName("beforeDelete", selector), selector: selector, body: body))
    }

    /// Runs after a create or update commits. The default name is stable across restarts as long
    /// as hooks are registered in the same order: queued events find their hook by it.
    public mutating func afterSave(_ selector: HookSelector, name: String? = nil, _ body: @escaping After) {
        after("afterSave", [.create, .update], selector, name, body)
    }

    /// Runs after a delete commits (a DELETE_SELF cascade's deletions included).
    public mutating func afterDelete(_ selector: HookSelector, name: String? = nil, _ body: @escaping After) {
        after("afterDelete", [.delete], selector, name, body)
    }

    private mutating func after(
        _ kind: String, _ kinds: Set<RecordChangeKind>, _ selector: HookSelector, _ name: String?, _ body: @escaping After
    ) {
        let name = name ?? uniqueName(kind, selector)
        precondition(afterHook(named: name) == nil, "two after hooks are named '\(name)'; give each its own name")
        afters.append(Registered(name: name, selector: selector, kinds: kinds, body: body))
    }

    private func uniqueName(_ kind: String, _ selector: HookSelector) -> String {
        let base = "\(kind) \(selector)"
        let taken = Set(beforeSaves.map(\.name) + beforeDeletes.map(\.name) + afters.map(\.name))
        var name = base
        var index = 2
        while taken.contains(name) {
            name = "\(base) #\(index)"
            index += 1
        }
        return name
    }

    func afterHook(named name: String) -> Registered<After>? {
        afters.first { $0.name == name }
    }

    /// The after hooks an event of `kind` on a record of `recordType` queues for.
    func afterHooks(for kind: RecordChangeKind, recordType: String, store: StoreKey, database: DatabaseScope) -> [String] {
        afters.filter {
            $0.kinds.contains(kind)
                && $0.selector.matches(recordType: recordType, container: store.container, environment: store.environment, database: database)
        }.map(\.name)
    }
}

/// A committed change handed to an after hook.
public struct RecordHookEvent: Sendable {
    /// Stable across retries and restarts: an idempotency key for whatever the hook does outside.
    public var id: String
    public var kind: RecordChangeKind
    /// The record as committed; for a delete, its last state.
    public var record: RecordRow
    public var container: String
    public var environment: DatabaseEnvironment
    public var database: DatabaseScope
    /// The attempt this is, from 1: a hook that failed runs again with backoff.
    public var attempt: Int
}

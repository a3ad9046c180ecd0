@_exported import StratusEngine
@_exported import StratusModel
import StratusServer
import Synchronization

/// The `stratus` command with an app's own server-side logic: register hooks, functions and
/// scheduled jobs, then `run()`, which reads the command line exactly as `stratus` does (every
/// command, flag and environment variable), so `my-server serve --data ./data` is the same server
/// with the app's logic in it. See docs/server-logic.md.
public struct Stratus: Sendable {
    public private(set) var hooks = RecordHooks()
    public private(set) var functions = ServerFunctions()
    public private(set) var jobs: [ScheduledJob] = []

    public init() {}

    /// How long a `beforeSave` or `beforeDelete` hook may take before its record fails with
    /// TRY_AGAIN_LATER (2 seconds unless set).
    public var hookTimeLimit: Duration {
        get { hooks.timeLimit }
        set { hooks.timeLimit = newValue }
    }

    /// Runs before a record of `recordType` is created or updated, outside the write's
    /// transaction: change `record`'s fields, or throw `HookRejection` to refuse it.
    public mutating func beforeSave(
        _ recordType: String, container: String? = nil, environment: DatabaseEnvironment? = nil, database: DatabaseScope? = nil,
        name: String? = nil, _ body: @escaping RecordHooks.BeforeSave
    ) {
        hooks.beforeSave(HookSelector(recordType, container: container, environment: environment, database: database), name: name, body)
    }

    /// Runs before a stored record of `recordType` is deleted: throw `HookRejection` to refuse it.
    public mutating func beforeDelete(
        _ recordType: String, container: String? = nil, environment: DatabaseEnvironment? = nil, database: DatabaseScope? = nil,
        name: String? = nil, _ body: @escaping RecordHooks.BeforeDelete
    ) {
        hooks.beforeDelete(HookSelector(recordType, container: container, environment: environment, database: database), name: name, body)
    }

    /// Runs after a create or update of a `recordType` record commits, at least once, in commit
    /// order per record, from the durable hook outbox.
    public mutating func afterSave(
        _ recordType: String, container: String? = nil, environment: DatabaseEnvironment? = nil, database: DatabaseScope? = nil,
        name: String? = nil, _ body: @escaping RecordHooks.After
    ) {
        hooks.afterSave(HookSelector(recordType, container: container, environment: environment, database: database), name: name, body)
    }

    /// Runs after a `recordType` record's deletion commits, like `afterSave`.
    public mutating func afterDelete(
        _ recordType: String, container: String? = nil, environment: DatabaseEnvironment? = nil, database: DatabaseScope? = nil,
        name: String? = nil, _ body: @escaping RecordHooks.After
    ) {
        hooks.afterDelete(HookSelector(recordType, container: container, environment: environment, database: database), name: name, body)
    }

    /// Serves `POST /functions/1/{container}/{environment}/{name}`: the JSON body in, the
    /// returned JSON out.
    public mutating func function(_ name: String, container: String? = nil, _ body: @escaping ServerFunctions.Body) {
        functions.add(name, container: container, body)
    }

    /// Runs `body` every `interval`, on one instance at a time among those on one database.
    public mutating func every(_ interval: Duration, name: String, _ body: @escaping ScheduledJob.Body) {
        precondition(!jobs.contains { $0.name == name }, "two scheduled jobs are named '\(name)'")
        jobs.append(ScheduledJob(name: name, interval: interval, body: body))
    }

    /// Reads the command line and runs the command, as `stratus` does; returns when it ends
    /// (a server, once it has shut down).
    public func run() async {
        Stratus.installed.withLock { $0 = self }
        await StratusCommand.main()
    }

    /// What `run()` was called with, for `serve` to build its engine and server from.
    static let installed = Mutex(Stratus())
}

import Logging
import StratusModel

/// What a hook knows of the write that ran it, and its way back into the database.
public struct HookContext: Sendable {
    /// Who made the write: a signed-in user, or the developer (an API token alone, a
    /// server-to-server key).
    public let caller: Caller
    public let container: String
    public let environment: DatabaseEnvironment
    /// The database as the caller addressed it.
    public let database: DatabaseScope
    /// Logs under the hook's name.
    public let logger: Logger
    let engine: Engine
    let callerScope: RequestScope
    let hookName: String

    init(engine: Engine, scope: RequestScope, database: DatabaseScope, hookName: String) {
        self.engine = engine
        self.callerScope = scope
        self.caller = scope.caller
        self.container = scope.store.container
        self.environment = scope.store.environment
        self.database = database
        self.hookName = hookName
        var logger = engine.logger
        logger[metadataKey: "hook"] = .string(hookName)
        self.logger = logger
    }

    /// The hook's database read and written as the caller, with the caller's permissions.
    public var asCaller: HookDatabase {
        HookDatabase(engine: engine, scope: callerScope.suppressing(hookName))
    }

    /// The hook's database read and written as the developer: every permission, and records
    /// stamped with the container's developer identity.
    public var asDeveloper: HookDatabase {
        HookDatabase(
            engine: engine, scope: .developer(callerScope.store, caller.developerRecordName, assetBaseURL: callerScope.assetBaseURL).suppressing(hookName))
    }
}

/// Typed reads and writes from inside a hook, through the same engine operations as a client's
/// requests: change tags, change feeds, subscriptions and permissions apply. A write here does
/// not run the hook that made it again (`retriggering()` lets it).
public struct HookDatabase: Sendable {
    let engine: Engine
    var scope: RequestScope

    /// The same database whose writes run every matching hook, the calling one included.
    public func retriggering() -> HookDatabase {
        var copy = self
        copy.scope.suppressedHooks = []
        return copy
    }

    /// The records found among `names`; names not found (or not readable) are left out.
    public func records(_ names: [String], zone: ZoneID = .default) async throws -> [String: RecordRow] {
        try await engine.foundRecords(scope, zone, names)
    }

    public func record(_ name: String, zone: ZoneID = .default) async throws -> RecordRow? {
        try await records([name], zone: zone)[name]
    }

    /// One page of a query.
    public func query(_ query: RecordQuery) async throws -> QueryPage {
        try await engine.query(scope, query)
    }

    /// Saves and deletes, one result per operation (see `Engine.modify`).
    public func modify(_ modification: RecordModification) async throws -> ModifiedRecords {
        try await engine.modify(scope, modification)
    }

    /// Saves one record: `changeTag` makes it an update that fails with CONFLICT when the record
    /// changed since that tag was read; without one the record is created, or replaced
    /// unconditionally when `force` is set. Throws the record's error.
    @discardableResult
    public func save(
        _ recordName: String, type recordType: String, fields: [String: FieldValue], changeTag: String? = nil,
        force: Bool = false, zone: ZoneID = .default
    ) async throws -> RecordRow {
        let operationType: RecordOperationType = changeTag != nil ? .update : force ? .forceUpdate : .create
        let inputs = fields.mapValues { FieldInput.value($0) }
        let operation = RecordOperation(operationType, recordName: recordName, recordType: recordType, changeTag: changeTag, fields: inputs, zoneID: zone)
        let result = try await modify(RecordModification(operations: [operation], zoneID: zone, atomic: false))
        guard case .saved(let record) = try result.results[0].get() else { throw CloudKitError(.internalError, "the save answered a deletion") }
        return record
    }

    /// Deletes one record unconditionally. Throws the record's error (NOT_FOUND included).
    public func delete(_ recordName: String, zone: ZoneID = .default) async throws {
        let operation = RecordOperation(.forceDelete, recordName: recordName, zoneID: zone)
        _ = try await modify(RecordModification(operations: [operation], zoneID: zone, atomic: false)).results[0].get()
    }
}

extension Engine {
    /// The records found among `names`, by name; names not found or not readable are left out.
    func foundRecords(_ scope: RequestScope, _ zoneID: ZoneID, _ names: [String]) async throws -> [String: RecordRow] {
        var found: [String: RecordRow] = [:]
        for case .success(let record) in try await lookup(scope, RecordLookup(zoneID: zoneID, recordNames: names)).results {
            found[record.recordName] = record
        }
        return found
    }
}

extension RequestScope {
    /// The container's developer on `store`, with every permission (hooks, functions, jobs).
    static func developer(_ store: StoreKey, _ developerRecordName: String, assetBaseURL: String? = nil) -> RequestScope {
        var scope = RequestScope(store: store, caller: Caller(userRecordName: nil, developerRecordName: developerRecordName), access: .unrestricted)
        scope.assetBaseURL = assetBaseURL
        return scope
    }

    func suppressing(_ hookName: String) -> RequestScope {
        var scope = self
        scope.suppressedHooks.insert(hookName)
        return scope
    }
}

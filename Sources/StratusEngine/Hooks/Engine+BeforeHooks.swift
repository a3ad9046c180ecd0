import StratusModel

/// A modification after its `beforeSave` and `beforeDelete` hooks ran: the operations to write
/// (with the fields the hooks changed) and the operations the hooks refused, by index.
struct ScreenedModification {
    var request: RecordModification
    var refused: [Int: CloudKitError] = [:]
}

extension Engine {
    /// Whether any before hook could apply to a write in `store` addressed as `database`.
    func hasBeforeHooks(_ store: StoreKey, database: DatabaseScope) -> Bool {
        !hooks.beforeTypes(container: store.container, environment: store.environment, database: database).isEmpty
    }

    /// Runs the before hooks for each operation on a hooked record type, outside any write
    /// transaction (a hook may take as long as its time limit). The stored records the hooks
    /// see are read once, as the caller reads them.
    func screen(_ scope: RequestScope, _ request: RecordModification) async throws -> ScreenedModification {
        let database = scope.store.scope
        let hooked = hooks.beforeTypes(container: scope.store.container, environment: scope.store.environment, database: database)
        var screened = ScreenedModification(request: request)
        // An operation without a record type is an update or delete of a stored record: its type
        // is the stored one.
        let candidates = request.operations.indices.filter { index in
            request.operations[index].recordType.map(hooked.contains) ?? true
        }
        guard !candidates.isEmpty else { return screened }
        let stored = try await storedRecords(scope, request.zoneID, candidates.map { request.operations[$0].recordName })
        let schema = try await self.schema(container: scope.store.container, environment: scope.store.environment)
        let mode = SchemaMode(scope.store.environment)
        for index in candidates {
            let operation = request.operations[index]
            let original = stored[operation.recordName]
            guard let recordType = operation.recordType ?? original?.recordType, hooked.contains(recordType) else { continue }
            do {
                if operation.type.isDelete {
                    guard let original else { continue }
                    for hook in hooks.beforeDeletes(recordType, scope.store, database) where !scope.suppressedHooks.contains(hook.name) {
                        let context = HookContext(engine: self, scope: scope, database: database, hookName: hook.name)
                        try await runWithTimeLimit(hook.name, recordName: operation.recordName) {
                            try await hook.body(original, context)
                        }
                    }
                    continue
                }
                // Fields that do not decode are the write's to report: the hook is skipped.
                guard
                    let resolved = try? FieldResolver(mode: mode).resolve(
                        fields: operation.fields, recordType: recordType, existing: schema.recordTypes[recordType], path: "\(operation.path).record.fields"
                    ).fields
                else { continue }
                var merged = (operation.type.replacesFields ? [:] : original?.userFields) ?? [:]
                for (name, value) in resolved { merged[name] = value }
                var record = SavingRecord(
                    recordName: operation.recordName, recordType: recordType, zoneName: request.zoneID.zoneName, original: original, fields: merged)
                for hook in hooks.beforeSaves(recordType, scope.store, database) where !scope.suppressedHooks.contains(hook.name) {
                    let context = HookContext(engine: self, scope: scope, database: database, hookName: hook.name)
                    record = try await runWithTimeLimit(hook.name, recordName: operation.recordName) { [record] in
                        var changed = record
                        try await hook.body(&changed, context)
                        return changed
                    }
                }
                screened.request.operations[index].fields = Self.inputs(operation, keeping: merged, saving: record.fields, replaces: operation.type.replacesFields)
            } catch let error as CloudKitError {
                screened.refused[index] = error
            }
        }
        return screened
    }

    /// The stored records among `names`, as the caller may read them.
    private func storedRecords(_ scope: RequestScope, _ zoneID: ZoneID, _ names: [String]) async throws -> [String: RecordRow] {
        do {
            return try await foundRecords(scope, zoneID, names)
        } catch is CloudKitError {
            // A zone that does not exist (or is not the caller's to read): the write reports it.
            return [:]
        }
    }

    /// The operation's fields after the hooks: the request's own input where a hook left the
    /// value as it was, the hook's value where it changed one, and a clear where it removed one.
    static func inputs(
        _ operation: RecordOperation, keeping before: [String: FieldValue], saving after: [String: FieldValue], replaces: Bool
    ) -> [String: FieldInput] {
        var inputs: [String: FieldInput] = [:]
        for (name, value) in after {
            let path = "\(operation.path).record.fields.\(name)"
            inputs[name] = before[name] == value ? operation.fields[name] ?? .value(value, path: path) : .value(value, path: path)
        }
        // A replace writes only what it names; an update keeps what it does not name, so a
        // removed field is cleared.
        if !replaces {
            for name in before.keys where after[name] == nil { inputs[name] = .clear(path: "\(operation.path).record.fields.\(name)") }
        }
        return inputs
    }

    /// Runs `body` within the hooks' time limit. A rejection is BAD_REQUEST with the hook's reason;
    /// running out of time is TRY_AGAIN_LATER; a CloudKitError the hook throws is the record's
    /// error as it is; any other error is INTERNAL_ERROR (its detail is logged, not sent).
    func runWithTimeLimit<T: Sendable>(_ hookName: String, recordName: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            return try await TimeLimit.run(hooks.timeLimit, body)
        } catch is TimeLimit.Exceeded {
            logger.warning("hook \(hookName) did not finish within \(hooks.timeLimit) for record \(recordName)")
            throw CloudKitError(
                .tryAgainLater, "record '\(recordName)': the server's \(hookName) hook did not finish in time; nothing was written — retry",
                retryAfter: 1)
        } catch let error as CloudKitError {
            throw error
        } catch let rejection as HookRejection {
            logger.notice("hook \(hookName) rejected record \(recordName): \(rejection.reason)")
            throw CloudKitError(.badRequest, "record '\(recordName)': \(rejection.reason)")
        } catch {
            logger.error("hook \(hookName) failed for record \(recordName): \(error)")
            throw CloudKitError(.internalError, "record '\(recordName)': the server's \(hookName) hook failed; nothing was written (the server log has the cause)")
        }
    }
}

extension RecordHooks {
    /// The record types some before hook watches in a container environment's database.
    func beforeTypes(container: String, environment: DatabaseEnvironment, database: DatabaseScope) -> Set<String> {
        let selectors = beforeSaves.map(\.selector) + beforeDeletes.map(\.selector)
        return Set(
            selectors.filter { $0.matches(recordType: $0.recordType, container: container, environment: environment, database: database) }
                .map(\.recordType))
    }

    func beforeSaves(_ recordType: String, _ store: StoreKey, _ database: DatabaseScope) -> [Registered<BeforeSave>] {
        beforeSaves.filter { $0.selector.matches(recordType: recordType, container: store.container, environment: store.environment, database: database) }
    }

    func beforeDeletes(_ recordType: String, _ store: StoreKey, _ database: DatabaseScope) -> [Registered<BeforeDelete>] {
        beforeDeletes.filter { $0.selector.matches(recordType: recordType, container: store.container, environment: store.environment, database: database) }
    }
}

import StratusModel

extension Engine {
    /// Queues an event per after hook watching each committed change, in the write's transaction.
    func queueHookEvents(
        _ store: StoreKey, database: DatabaseScope, caller: Caller, events: [RecordEvent], suppressed: Set<String>,
        writer: any StorageWriter
    ) async throws {
        guard !events.isEmpty else { return }
        let webhooks = try await webhooks(of: store.container, reader: writer)
        guard hooks.hasAfterHooks || !webhooks.isEmpty else { return }
        var queued: [NewHookEvent] = []
        for event in events {
            let recordType = event.record.recordType
            var names = hooks.afterHooks(for: event.kind, recordType: recordType, store: store, database: database)
            names += webhooks.filter { $0.matches(event.kind, recordType: recordType, environment: store.environment, database: database) }.map(\.hookName)
            for hook in names where !suppressed.contains(hook) {
                queued.append(NewHookEvent(hook: hook, store: store, database: database, kind: event.kind, caller: caller, record: event.record))
            }
        }
        guard !queued.isEmpty else { return }
        try await writer.enqueueHookEvents(queued, nowMilliseconds: nowMilliseconds())
    }
}

/// What running a queued after-hook event came to.
public enum HookEventOutcome: Sendable {
    case done
    /// The hook threw (or ran out of time): run it again later.
    case failed(String)
    /// The event can never run here (its hook is no longer registered): keep it as failed.
    case unrunnable(String)
}

extension Engine {
    /// How long an after hook may run before its event counts as failed (and is retried). The
    /// outbox lease outlives it, so no other instance starts the same event meanwhile.
    public static let afterHookTimeLimit: Duration = .seconds(10)

    /// Runs a claimed event's hook, as the caller who made the change.
    public func runHookEvent(_ row: HookEventRow) async -> HookEventOutcome {
        let event = row.event
        guard let hook = hooks.afterHook(named: event.hook) else {
            return .unrunnable("no hook named '\(event.hook)' is registered in this server")
        }
        do {
            let access =
                event.store.scope == .public
                ? try await accessPolicy(container: event.store.container, environment: event.store.environment, user: event.caller.userRecordName)
                : .unrestricted
            var scope = RequestScope(store: event.store, caller: event.caller, access: access)
            scope.viaSharedDatabase = event.database == .shared
            let context = HookContext(engine: self, scope: scope, database: event.database, hookName: event.hook)
            let handed = RecordHookEvent(
                id: String(row.id), kind: event.kind, record: event.record, container: event.store.container,
                environment: event.store.environment, database: event.database, attempt: row.attempts)
            try await TimeLimit.run(Self.afterHookTimeLimit) { try await hook.body(handed, context) }
            return .done
        } catch is TimeLimit.Exceeded {
            return .failed("did not finish within \(Self.afterHookTimeLimit)")
        } catch {
            return .failed("\(error)")
        }
    }
}

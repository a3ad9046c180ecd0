import Foundation
import StratusModel

extension Engine {
    /// records/modify: the operations applied in one transaction, one result per operation; an
    /// atomic batch with a failed operation throws `AtomicBatchFailure`, nothing written. Before
    /// hooks run first, outside the transaction; after hooks are queued in it.
    public func modify(_ scope: RequestScope, _ request: RecordModification) async throws -> ModifiedRecords {
        guard hasBeforeHooks(scope.store, database: scope.store.scope) else { return try await write(scope, request) }
        try check(request)
        let screened = try await screen(scope, request)
        guard let firstRefused = screened.refused.keys.min() else { return try await write(scope, screened.request) }
        if request.atomic && !request.zoneID.isDefault {
            throw AtomicBatchFailure(
                recordNames: request.operations.map(\.recordName), failedOperation: request.operations[firstRefused].recordName,
                error: screened.refused[firstRefused]!)
        }
        // The refused operations keep their errors; the others are written as one request.
        var results: [Result<RecordWriteOutcome, CloudKitError>?] = request.operations.indices.map { screened.refused[$0].map { .failure($0) } }
        let kept = request.operations.indices.filter { screened.refused[$0] == nil }
        var readScope = scope
        if !kept.isEmpty {
            var remaining = screened.request
            remaining.operations = kept.map { screened.request.operations[$0] }
            let written = try await write(scope, remaining)
            readScope = written.readScope
            for (offset, index) in kept.enumerated() { results[index] = written.results[offset] }
        }
        return ModifiedRecords(readScope: readScope, results: results.map { $0! })
    }

    /// The operations applied in one transaction, after the before hooks.
    private func write(_ scope: RequestScope, _ request: RecordModification) async throws -> ModifiedRecords {
        let addressedDatabase = scope.store.scope
        // A participant's shared-database write runs on the owner's store, judged by ShareAccess.
        let scope = scope.store.scope == .shared ? try ownerScope(scope, zoneID: request.zoneID) : scope
        try check(request)
        let zoneName = request.zoneID.zoneName
        let atomic = request.atomic && !request.zoneID.isDefault
        let store = scope.store
        let caller = scope.caller
        let mode = SchemaMode(store.environment)
        let limits = self.limits
        let now = nowMilliseconds()

        let outcome: [OperationOutcome]
        let queued: [QueuedNotification]
        let schemaChanged: Bool
        do {
            (outcome, queued, schemaChanged) = try await writeWithSchema(container: store.container, environment: store.environment) { writer in
                try await self.checkZoneExists(store, request.zoneID, reader: writer)
                var schema = try await self.schema(container: store.container, environment: store.environment, reader: writer)
                var slots: [OperationOutcome?] = Array(repeating: nil, count: request.operations.count)
                var changedTypes = Set<String>()
                let shareAccess: ShareAccess? =
                    if scope.viaSharedDatabase {
                        try await ShareAccess.load(caller: caller.effectiveRecordName, store: store, zoneName: zoneName, reader: writer)
                    } else { nil }
                let participantsBefore = try await self.acceptedParticipants(store, zoneName: zoneName, reader: writer)
                // Every operation's current record in one read instead of one read per operation. It
                // stays current until a delete (whose DELETE_SELF cascade may remove records later
                // operations name); a save changes only its own record, which no other operation names.
                var current =
                    request.operations.count > 1
                    ? try await writer.records(store, zoneName: zoneName, names: request.operations.map(\.recordName)) : nil
                // Shares are saved after the request's other records: their roots come first.
                for index in ShareRequest.sharesLast(request.operations) {
                    let operation = request.operations[index]
                    var context = OperationContext(
                        store: store, zoneName: zoneName, caller: caller, access: scope.access, mode: mode, limits: limits, now: now,
                        receiptEnvelope: self.envelope(), assetQuota: self.assetQuota(store))
                    context.shareAccess = shareAccess
                    do {
                        if let shared = try await context.applySharing(operation, batch: request.operations, writer: writer) {
                            slots[index] = shared.outcome
                            if let root = shared.root, let rootIndex = request.operations.firstIndex(where: { $0.recordName == root.recordName }),
                                case .saved(_, let kind)? = slots[rootIndex]
                            {
                                slots[rootIndex] = .saved(root, kind)
                            }
                        } else {
                            slots[index] = try await context.apply(operation, current: current, schema: &schema, changedTypes: &changedTypes, writer: writer)
                        }
                    } catch let error as CloudKitError {
                        // An anonymous caller who must sign in gets 421 for the whole request, nothing
                        // written, so browser clients start their sign-in flow (CloudKit's behaviour).
                        if error.code == .authenticationRequired { throw error }
                        if atomic { throw AtomicFailureSignal(failedOperation: operation.recordName, error: error) }
                        slots[index] = .failed(operation.recordName, error)
                    }
                    if operation.type.isDelete { current = nil }
                }
                if request.operations.contains(where: \.type.isDelete), store.scope == .private, !request.zoneID.isDefault {
                    try await ShareWriter(writer: writer, now: now).reconcile(store: store, zoneName: zoneName, by: caller.effectiveRecordName)
                }
                let outcomes = slots.map { $0! }
                try await self.saveSchemaChanges(
                    changedTypes.compactMap { schema.recordTypes[$0] },
                    container: store.container, environment: store.environment, writer: writer)
                let events = outcomes.flatMap(\.events)
                try await self.queueHookEvents(
                    store, database: addressedDatabase, caller: caller, events: events, suppressed: scope.suppressedHooks, writer: writer)
                let queued =
                    try await self.queueNotifications(store, events: events, writer: writer)
                    + self.notifyParticipants(store, zoneName: zoneName, events: events, before: participantsBefore, writer: writer)
                return (outcomes, queued, !changedTypes.isEmpty)
            }
        } catch let signal as AtomicFailureSignal {
            throw atomicFailure(signal, request: request)
        }
        if schemaChanged { await announce([.schemaChanged(container: store.container, environment: store.environment)]) }
        await announceQueued(queued)
        let results = outcome.map { outcome -> Result<RecordWriteOutcome, CloudKitError> in
            switch outcome {
            case .saved(let record, _): return .success(.saved(record))
            case .deleted(let zone, let name, _, _): return .success(.deleted(zoneName: zone, recordName: name))
            case .failed(_, let error): return .failure(error)
            }
        }
        return ModifiedRecords(readScope: scope, results: results)
    }

    /// What a decoder checks of a request, checked again for requests built in code.
    func check(_ request: RecordModification) throws(CloudKitError) {
        if request.operations.isEmpty { throw .badRequest("operations is empty; send at least one operation") }
        if request.operations.count > limits.maximumOperationsPerRequest {
            throw .badRequest("operations has \(request.operations.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request — split the batch")
        }
        var seen = Set<String>()
        for operation in request.operations where !seen.insert(operation.recordName).inserted {
            throw .badRequest("\(operation.path): record '\(operation.recordName)' appears in more than one operation; send one operation per record per request")
        }
        if let stray = request.operations.first(where: { $0.zoneID.map { $0.zoneName != request.zoneID.zoneName } ?? false }) {
            throw .badRequest("\(stray.path).record.zoneID names zone '\(stray.zoneID!.zoneName)' but the request writes to '\(request.zoneID.zoneName)'; a records/modify request writes to one zone")
        }
    }

    /// Rolls the transaction back and reports the atomic failure shape.
    func atomicFailure(_ signal: AtomicFailureSignal, request: RecordModification) -> AtomicBatchFailure {
        AtomicBatchFailure(recordNames: request.operations.map(\.recordName), failedOperation: signal.failedOperation, error: signal.error)
    }
}

struct AtomicFailureSignal: Error {
    let failedOperation: String
    let error: CloudKitError
}

enum OperationOutcome: Sendable {
    /// The stored row, and whether the save created or updated it.
    case saved(RecordRow, RecordChangeKind)
    /// The record's last state before the delete (what subscriptions evaluate), and the last
    /// states of the records its DELETE_SELF references deleted with it.
    case deleted(zone: String, name: String, last: RecordRow, cascaded: [RecordRow])
    case failed(String, CloudKitError)
}

extension OperationOutcome {
    /// The committed changes subscriptions see: a save, or a delete and its cascade.
    var events: [RecordEvent] {
        switch self {
        case .saved(let record, let kind): return [RecordEvent(record: record, kind: kind)]
        case .deleted(_, _, let last, let cascaded): return ([last] + cascaded).map { RecordEvent(record: $0, kind: .delete) }
        case .failed: return []
        }
    }
}

import Foundation
import StratusEngine
import StratusModel

/// records/modify on the wire.
extension Engine {
    public func modifyRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try ModifyRequest(json: body, limits: limits)
        let modified = try await modify(scope, request.modification)
        let links = assetLinks(modified.readScope)
        let operations = request.modification.operations
        var records: [JSONValue] = []
        records.reserveCapacity(operations.count)
        for (position, result) in modified.results.enumerated() {
            let keys = (request.desiredKeysByOperation[position] ?? request.desiredKeys).map(Set.init)
            let renderer = RecordRenderer(
                store: modified.readScope.store, desiredKeys: keys, numbersAsStrings: request.numbersAsStrings,
                assetLinks: links, viewer: scope.caller.userRecordName)
            switch result {
            case .success(.saved(let record)): records.append(renderer.render(record))
            case .success(.deleted(let zoneName, let recordName)): records.append(renderer.renderDeleted(zoneName: zoneName, recordName: recordName))
            case .failure(let error): records.append(recordErrorJSON(recordName: operations[position].recordName, error, uuid: UUID.random().uuidString))
            }
        }
        return .object(["records": .array(records)])
    }
}

extension AtomicBatchFailure {
    /// `{"records": [...], "uuid": uuid}`, each record error carrying `uuid` too. The uuid is the
    /// request's (its `X-Apple-Request-UUID` header), so a client quoting either finds the same request.
    public func body(uuid: String) -> JSONValue {
        let records: [JSONValue] = recordNames.map { name in
            if name == failedOperation { return recordErrorJSON(recordName: name, error, uuid: uuid) }
            return recordErrorJSON(
                recordName: name,
                CloudKitError(.atomicError, "atomic batch failed because '\(failedOperation)' failed: \(error.code.rawValue); nothing was written"),
                uuid: uuid)
        }
        return .object(["records": .array(records), "uuid": .string(uuid)])
    }
}

import StratusEngine
import StratusModel

/// zones/list, zones/lookup and zones/modify on the wire: the body decoded, the engine's typed
/// answer rendered as CKWS zone dictionaries and per-zone errors.
extension Engine {
    public func listZones(_ scope: RequestScope) async throws -> JSONValue {
        .object(["zones": .array(try await zones(scope).map(\.json))])
    }

    public func lookupZones(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try ZoneLookupRequest(json: body)
        let results = try await lookupZones(scope, request.zoneIDs)
        return .object([
            "zones": .array(
                zip(request.zoneIDs, results).map { zoneID, result in
                    switch result {
                    case .success(let zone): zone.json
                    case .failure(let error): zoneErrorJSON(zoneID, error)
                    }
                })
        ])
    }

    public func modifyZones(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try ZoneModifyRequest(json: body)
        let results = try await modifyZones(scope, request.modification)
        let owner = zoneOwner(scope.store)
        return .object([
            "zones": .array(
                zip(request.modification.operations, results).map { operation, result in
                    switch result {
                    case .success(.saved(let zone)): zone.json
                    case .success(.deleted(let zoneID)): .object(["zoneID": zoneID.json, "deleted": .bool(true)])
                    case .failure(let error): zoneErrorJSON(ZoneID(zoneName: operation.zoneName, ownerRecordName: owner), error)
                    }
                })
        ])
    }
}

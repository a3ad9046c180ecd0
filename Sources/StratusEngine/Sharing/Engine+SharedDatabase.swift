import Foundation
import StratusModel

/// The participant's shared database: each zone is an owner's private zone seen through the
/// shares the caller accepted. Requests run on the owner's store with the participant as caller
/// (so records keep their owner and `modified` names the participant); `ShareAccess` decides
/// what they may read and write, read afresh on every request, so a removal takes effect at once.
extension Engine {
    /// Answers a shared-database operation (named by its path, `records/lookup`); `nil` for
    /// operations the shared database answers like the others.
    public func runSharedDatabase(_ operation: String, scope: RequestScope, body: JSONValue) async throws -> JSONValue? {
        switch operation {
        case "changes/zone": return try await sharedZoneChanges(scope, body: body)
        case "changes/database": return try await sharedDatabaseChanges(scope, body: body)
        default: return nil
        }
    }

    /// The owner's private store behind a zone of the caller's shared database.
    func ownerScope(_ scope: RequestScope, zoneID: ZoneID) throws -> RequestScope {
        guard let owner = zoneID.ownerRecordName, !owner.isEmpty, owner != "__defaultOwner__", owner != scope.caller.userRecordName else {
            throw CloudKitError(.zoneNotFound, "zone '\(zoneID.zoneName)': a zone of the shared database is named with its owner; set zoneID.ownerRecordName to the user who shared it")
        }
        var owned = RequestScope(
            store: StoreKey(container: scope.store.container, environment: scope.store.environment, scope: .private, owner: owner),
            caller: scope.caller)
        owned.assetBaseURL = scope.assetBaseURL
        owned.viaSharedDatabase = true
        return owned
    }

    /// The caller's accepted shares, by owner zone.
    func acceptedZones(_ scope: RequestScope, reader: any StorageReader) async throws -> [ZoneID: [ShareRow]] {
        guard let user = scope.caller.userRecordName else { return [:] }
        let shares = try await reader.acceptedShares(container: scope.store.container, environment: scope.store.environment, userRecordName: user)
        return Dictionary(grouping: shares) { ZoneID(zoneName: $0.zoneName, ownerRecordName: $0.owner) }
    }

    /// `result` with the records of its `records` array the caller may not read left out
    /// (deletion entries stay: they hold nothing).
    func keepingReadable(_ result: JSONValue, access: ShareAccess) async throws -> JSONValue {
        guard var members = result.objectValue, let records = members["records"]?.arrayValue,
            !access.shares.contains(where: \.isZoneWide)
        else { return result }
        let parsed = try records.map { try JSONValue.parse($0.serializedString) }
        let kept = try await storage.read { reader in
            var kept: [JSONValue] = []
            for record in parsed {
                let object = record.objectValue ?? [:]
                if object["deleted"]?.boolValue == true || object["serverErrorCode"] != nil { kept.append(record); continue }
                if let name = object["recordName"]?.stringValue, try await access.mayRead(name, reader: reader) { kept.append(record) }
            }
            return kept
        }
        members["records"] = .array(kept)
        return .object(members)
    }

    func sharedZoneChanges(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let requests = try ZoneChangesRequest.zones(body: body, limits: limits)
        var defaults = body.objectValue ?? [:]
        let zones = try JSONObjectReader(body).array("zones")
        var pages: [JSONValue] = []
        for (request, zone) in zip(requests, zones) {
            do {
                let owned = try ownerScope(scope, zoneID: request.zoneID)
                let access = try await storage.read { reader in
                    try await ShareAccess.load(caller: scope.caller.effectiveRecordName, store: owned.store, zoneName: request.zoneID.zoneName, reader: reader)
                }
                defaults["zones"] = .array([zone])
                let page = try await zoneChanges(owned, body: .object(defaults))
                for zonePage in page.objectValue?["zones"]?.arrayValue ?? [] {
                    pages.append(try await keepingReadable(zonePage, access: access))
                }
            } catch let error as CloudKitError {
                pages.append(zoneErrorJSON(request.zoneID, error))
            }
        }
        return .object(["zones": .array(pages)])
    }
}

import Foundation
import StratusModel

extension Engine {
    /// records/lookup: one element per requested record, in request order; a miss is a
    /// NOT_FOUND element.
    public func lookupRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        let request = try LookupRequest(json: body, limits: limits)
        let (requested, zoneID, desiredKeys, numbersAsStrings) = (request.requested, request.zoneID, request.desiredKeys, request.numbersAsStrings)
        let names = requested.map(\.name)
        let found = try await storage.read { reader in
            try await self.checkZoneExists(store, zoneID, reader: reader)
            return try await reader.records(store, zoneName: zoneID.zoneName, names: names)
        }
        // A record an anonymous caller may not read: the whole request answers 421 (sign in first),
        // as CloudKit does; signed-in callers get a per-record ACCESS_DENIED below.
        if scope.access.isAnonymous, let refused = found.values.first(where: {
            !scope.access.may(.read, recordType: $0.recordType, creator: $0.created.userRecordName)
        }) {
            throw scope.access.denial(.read, recordType: refused.recordType)
        }
        let links = assetLinks(scope)
        let results: [JSONValue] = requested.map { item in
            guard let record = found[item.name] else {
                return recordErrorJSON(recordName: item.name,
                                       CloudKitError(.notFound, "record '\(item.name)' does not exist in zone '\(zoneID.zoneName)'"),
                                       uuid: UUID.random().uuidString)
            }
            guard scope.access.may(.read, recordType: record.recordType, creator: record.created.userRecordName) else {
                return recordErrorJSON(recordName: item.name, scope.access.denial(.read, recordType: record.recordType), uuid: UUID().uuidString)
            }
            let keys = (item.desiredKeys ?? desiredKeys).map(Set.init)
            return RecordRenderer(store: store, desiredKeys: keys, numbersAsStrings: numbersAsStrings, assetLinks: links, viewer: scope.caller.userRecordName).render(record)
        }
        return .object(["records": .array(results)])
    }
}

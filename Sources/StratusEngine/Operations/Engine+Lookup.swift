import Foundation
import StratusModel

extension Engine {
    /// records/lookup: one element per requested record, in request order; a miss is a
    /// NOT_FOUND element.
    public func lookupRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        struct Requested: Sendable { var name: String; var desiredKeys: [String]? }
        var requested: [Requested] = []
        let zoneID: ZoneID
        let desiredKeys: [String]?
        let numbersAsStrings: Bool
        do {
            let reader = try JSONObjectReader(body)
            let raw = try reader.array("records")
            if raw.count > limits.maximumResultsPerResponse {
                throw CloudKitError.badRequest("records has \(raw.count) entries; the limit is \(limits.maximumResultsPerResponse) per request — split the lookup")
            }
            for (position, value) in raw.enumerated() {
                let element = try JSONObjectReader(value, path: "records[\(position)]")
                let name = try element.string("recordName")
                try NameRules.checkASCII(name, what: "record name", path: element.child("recordName"))
                requested.append(Requested(name: name, desiredKeys: try element.optionalStringArray("desiredKeys")))
            }
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") } ?? .default
            desiredKeys = try reader.optionalStringArray("desiredKeys")
            numbersAsStrings = try reader.bool("numbersAsStrings", default: false)
        } catch { throw CloudKitError.parsing(error) }
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
            return RecordRenderer(store: store, desiredKeys: keys, numbersAsStrings: numbersAsStrings, assetLinks: links).render(record)
        }
        return .object(["records": .array(results)])
    }
}

import Foundation
import StratusModel

extension CKRecordZone {
    /// Builds a zone from a CKWS zone dictionary.
    convenience init?(wire json: JSONValue, context: CKRecordZone.ID? = nil) {
        guard let zoneJSON = json["zoneID"], let zoneID = try? ZoneID(json: zoneJSON, path: "zoneID") else { return nil }
        self.init(zoneID: CKRecordZone.ID(wire: zoneID, context: context))
        if let atomic = json["atomic"]?.boolValue {
            capabilities = atomic ? [.fetchChanges, .atomic, .sharing] : (zoneID.isDefault ? [] : [.fetchChanges])
        }
        serverSyncToken = json["syncToken"]?.stringValue
        if let shareName = json["share"]?["recordName"]?.stringValue {
            share = CKRecord.Reference(recordID: CKRecord.ID(recordName: shareName, zoneID: self.zoneID), action: .none)
        }
    }
}

extension CKDatabase {
    /// Every zone of the database (`zones/list`).
    func listZones() async throws(CKError) -> [CKRecordZone] {
        let answer = try await request("zones/list", method: "GET")
        return (answer["zones"]?.arrayValue ?? []).compactMap { CKRecordZone(wire: $0) }
    }

    /// Zones by ID (`zones/lookup`), one result per ID in order.
    func lookupZones(_ ids: [CKRecordZone.ID]) async throws(CKError) -> [(CKRecordZone.ID, Result<CKRecordZone, any Error>)] {
        var results: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)] = []
        for chunk in ids.chunked(maximumItemsPerRequest) {
            let answer = try await request("zones/lookup", body: .object(["zones": .array(chunk.map { $0.wire.json })]))
            let items = answer["zones"]?.arrayValue ?? []
            for (index, id) in chunk.enumerated() {
                results.append((id, Self.zoneResult(index < items.count ? items[index] : JSONValue?.none, id: id)))
            }
        }
        return results
    }

    /// Creates and deletes zones (`zones/modify`), one result per zone in order.
    func modifyZones(saving: [CKRecordZone], deleting: [CKRecordZone.ID]) async throws(CKError)
        -> (saves: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)], deletes: [(CKRecordZone.ID, Result<Void, any Error>)])
    {
        enum Item { case save(CKRecordZone), delete(CKRecordZone.ID) }
        let items = saving.map(Item.save) + deleting.map(Item.delete)
        var saves: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)] = []
        var deletes: [(CKRecordZone.ID, Result<Void, any Error>)] = []
        for chunk in items.chunked(maximumItemsPerRequest) {
            let operations: [JSONValue] = chunk.map { item in
                switch item {
                case .save(let zone): return .object(["operationType": "create", "zone": .object(["zoneID": zone.zoneID.wire.json])])
                case .delete(let id): return .object(["operationType": "delete", "zone": .object(["zoneID": id.wire.json])])
                }
            }
            let answer = try await request("zones/modify", body: .object(["operations": .array(operations)]))
            let items = answer["zones"]?.arrayValue ?? []
            for (index, item) in chunk.enumerated() {
                let result: JSONValue? = index < items.count ? items[index] : nil
                switch item {
                case .save(let zone): saves.append((zone.zoneID, Self.zoneResult(result, id: zone.zoneID)))
                case .delete(let id):
                    switch Self.zoneResult(result, id: id) {
                    case .success: deletes.append((id, .success(())))
                    case .failure(let error): deletes.append((id, .failure(error)))
                    }
                }
            }
        }
        return (saves, deletes)
    }

    private static func zoneResult(_ item: JSONValue?, id: CKRecordZone.ID) -> Result<CKRecordZone, any Error> {
        guard let item else { return .failure(CKError(.serverResponseLost, "the server returned fewer zones than asked for")) }
        if let error = CKError(errorDictionary: item) { return .failure(error) }
        return .success(CKRecordZone(wire: item, context: id) ?? CKRecordZone(zoneID: id))
    }
}

import Foundation
import StratusModel

extension Engine {
    /// Throws ZONE_NOT_FOUND unless the zone exists in the store: the public database has only
    /// `_defaultZone`; a private database has its default zone plus the custom zones created in it.
    func checkZoneExists(_ store: StoreKey, _ zoneID: ZoneID, reader: any StorageReader) async throws {
        switch store.scope {
        case .public:
            if !zoneID.isDefault {
                throw CloudKitError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist: the public database has only _defaultZone")
            }
        case .private:
            if zoneID.isDefault { return }
            if try await reader.zone(store, name: zoneID.zoneName) == nil {
                throw CloudKitError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist in your private database; create it with zones/modify")
            }
        case .shared:
            throw CloudKitError(.zoneNotFound, "zone '\(zoneID.zoneName)' has not been shared with you")
        }
    }

    /// A zone's dictionary; `sharedWhole` adds the reference to its zone-wide share (`share`),
    /// which is how a client learns the zone is shared (`CKRecordZone.share`).
    func zoneJSON(_ store: StoreKey, _ zone: ZoneRow, sharedWhole: Bool = false) -> JSONValue {
        let zoneID = ZoneID(zoneName: zone.zoneName, ownerRecordName: zoneOwner(store)).json
        var members: [String: JSONValue] = ["zoneID": zoneID, "atomic": .bool(zone.zoneName != ZoneID.defaultZoneName)]
        if sharedWhole { members["share"] = zoneShareReference(zoneID) }
        return .object(members)
    }

    /// The reference to a zone's zone-wide share record.
    func zoneShareReference(_ zoneID: JSONValue) -> JSONValue {
        .object(["recordName": .string(ShareRequest.zoneWideRecordName), "zoneID": zoneID])
    }

    /// The private store's zones that a zone-wide share covers (none elsewhere).
    func zonesSharedWhole(_ store: StoreKey, reader: any StorageReader) async throws -> Set<String> {
        store.scope == .private ? try await reader.zonesSharedWhole(store) : []
    }

    func zoneErrorJSON(_ store: StoreKey, zoneName: String, _ error: CloudKitError) -> JSONValue {
        .object([
            "zoneID": ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)).json,
            "reason": .string(error.reason),
            "serverErrorCode": .string(error.code.rawValue),
            "uuid": .string(UUID.random().uuidString),
        ])
    }

    func allZones(_ store: StoreKey, reader: any StorageReader) async throws -> [ZoneRow] {
        let defaultZone = ZoneRow(zoneName: ZoneID.defaultZoneName, changeSequence: 0)
        switch store.scope {
        case .public: return [defaultZone]
        case .private: return [defaultZone] + (try await reader.zones(store))
        case .shared: return []
        }
    }

    /// zones/list.
    public func listZones(_ scope: RequestScope) async throws -> JSONValue {
        let store = scope.store
        let (zones, shared) = try await storage.read { reader in
            (try await self.allZones(store, reader: reader), try await self.zonesSharedWhole(store, reader: reader))
        }
        return .object(["zones": .array(zones.map { zoneJSON(store, $0, sharedWhole: shared.contains($0.zoneName)) })])
    }

    /// zones/lookup: one element per requested zone, in order.
    public func lookupZones(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        let requested: [ZoneID]
        do {
            let reader = try JSONObjectReader(body)
            let raw = try reader.array("zones")
            if raw.count > limits.maximumResultsPerResponse {
                throw CloudKitError.badRequest("zones has \(raw.count) entries; the limit is \(limits.maximumResultsPerResponse)")
            }
            requested = try raw.enumerated().map { position, value throws(WireError) in try ZoneID(json: value, path: "zones[\(position)]") }
        } catch { throw CloudKitError.parsing(error) }
        let (zones, shared) = try await storage.read { reader in
            (try await self.allZones(store, reader: reader), try await self.zonesSharedWhole(store, reader: reader))
        }
        let byName = Dictionary(zones.map { ($0.zoneName, $0) }, uniquingKeysWith: { first, _ in first })
        let results: [JSONValue] = requested.map { zoneID in
            if let zone = byName[zoneID.zoneName] { return zoneJSON(store, zone, sharedWhole: shared.contains(zone.zoneName)) }
            return zoneErrorJSON(store, zoneName: zoneID.zoneName, CloudKitError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist"))
        }
        return .object(["zones": .array(results)])
    }

    /// zones/modify: create and delete custom zones of a private database, in order.
    public func modifyZones(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        guard store.scope == .private else {
            throw CloudKitError.badRequest("zones/modify applies to the private database only: the \(store.scope.rawValue) database has no custom zones")
        }
        struct ZoneOperation: Sendable { var create: Bool; var zoneName: String }
        var operations: [ZoneOperation] = []
        do {
            let reader = try JSONObjectReader(body)
            let raw = try reader.array("operations")
            if raw.isEmpty { throw CloudKitError.badRequest("operations is empty; send at least one operation") }
            if raw.count > limits.maximumOperationsPerRequest {
                throw CloudKitError.badRequest("operations has \(raw.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request")
            }
            var seen = Set<String>()
            for (position, value) in raw.enumerated() {
                let path = "operations[\(position)]"
                let operation = try JSONObjectReader(value, path: path)
                let type = try operation.string("operationType")
                guard type == "create" || type == "delete" else {
                    throw WireError(path: operation.child("operationType"), problem: "'\(type)' is not a zone operation; use create or delete")
                }
                let zone = try operation.object("zone")
                guard let zoneIDJSON = zone["zoneID"] else { throw WireError(path: zone.child("zoneID"), problem: "is required") }
                let zoneID = try ZoneID(json: zoneIDJSON, path: zone.child("zoneID"))
                try NameRules.checkZoneName(zoneID.zoneName, path: zone.child("zoneID.zoneName"))
                if zoneID.isDefault {
                    throw CloudKitError.badRequest("\(path): _defaultZone always exists and cannot be created or deleted")
                }
                if !seen.insert(zoneID.zoneName).inserted {
                    throw CloudKitError.badRequest("\(path): zone '\(zoneID.zoneName)' appears in more than one operation")
                }
                operations.append(ZoneOperation(create: type == "create", zoneName: zoneID.zoneName))
            }
        } catch { throw CloudKitError.parsing(error) }
        let frozen = operations
        let (results, queued): ([JSONValue], [QueuedNotification]) = try await storage.write { writer in
            var results: [JSONValue] = []
            for operation in frozen {
                if operation.create {
                    _ = try await writer.createZone(store, name: operation.zoneName)
                    let zone = try await writer.zone(store, name: operation.zoneName)
                    results.append(self.zoneJSON(store, zone ?? ZoneRow(zoneName: operation.zoneName, changeSequence: 0)))
                } else if try await writer.zone(store, name: operation.zoneName) == nil {
                    results.append(
                        self.zoneErrorJSON(
                            store, zoneName: operation.zoneName,
                            CloudKitError(.zoneNotFound, "zone '\(operation.zoneName)' does not exist")))
                } else {
                    try await writer.deleteZone(store, name: operation.zoneName)
                    results.append(
                        .object([
                            "zoneID": ZoneID(zoneName: operation.zoneName, ownerRecordName: zoneOwner(store)).json,
                            "deleted": .bool(true),
                        ]))
                }
            }
            let deleted = frozen.filter { !$0.create }.map(\.zoneName)
            return (results, try await self.queueNotifications(store, events: [], deletedZones: deleted, writer: writer))
        }
        let deleted = frozen.filter { !$0.create }.map(\.zoneName)
        await announceQueued(queued)
        await removeSubscriptions(boundTo: deleted, in: store)
        return .object(["zones": .array(results)])
    }
}

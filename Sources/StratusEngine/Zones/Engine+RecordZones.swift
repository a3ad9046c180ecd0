import Foundation
import StratusModel

/// Zones, typed: listed, looked up and modified. The shared database's zones are the owners'
/// zones the caller accepted a share in. CKWS shapes live in StratusWire.
extension Engine {
    /// Every zone of the database: the private database's default zone and custom zones, the
    /// public database's default zone, the shared database's accepted zones (by owner, then name).
    public func zones(_ scope: RequestScope) async throws -> [RecordZone] {
        let store = scope.store
        if store.scope == .shared {
            let accepted = try await storage.read { reader in try await self.acceptedZones(scope, reader: reader) }
            return accepted.keys
                .sorted { ($0.ownerRecordName ?? "", $0.zoneName) < ($1.ownerRecordName ?? "", $1.zoneName) }
                .map { sharedZone($0, shares: accepted[$0] ?? []) }
        }
        let (rows, shared) = try await storage.read { reader in
            (try await self.allZones(store, reader: reader), try await self.zonesSharedWhole(store, reader: reader))
        }
        return rows.map { recordZone(store, $0, sharedWhole: shared.contains($0.zoneName)) }
    }

    /// The zones asked for, in order: each, or ZONE_NOT_FOUND.
    public func lookupZones(_ scope: RequestScope, _ zoneIDs: [ZoneID]) async throws -> [Result<RecordZone, CloudKitError>] {
        if zoneIDs.count > limits.maximumResultsPerResponse {
            throw CloudKitError.badRequest("zones has \(zoneIDs.count) entries; the limit is \(limits.maximumResultsPerResponse)")
        }
        let known = try await zones(scope)
        let shared = scope.store.scope == .shared
        return zoneIDs.map { zoneID in
            let found = known.first { zone in
                zone.zoneID.zoneName == zoneID.zoneName && (!shared || zone.zoneID.ownerRecordName == zoneID.ownerRecordName)
            }
            if let found { return .success(found) }
            let reason = shared ? "zone '\(zoneID.zoneName)' is not shared with you" : "zone '\(zoneID.zoneName)' does not exist"
            return .failure(CloudKitError(.zoneNotFound, reason))
        }
    }

    /// Creates and deletes custom zones of a private database, in order, in one transaction.
    /// Creating an existing zone answers it; deleting a missing one is that operation's
    /// ZONE_NOT_FOUND. Deleting a zone deletes its records, shares and zone subscriptions.
    public func modifyZones(_ scope: RequestScope, _ modification: ZoneModification) async throws -> [Result<ZoneWriteOutcome, CloudKitError>] {
        let store = scope.store
        guard store.scope == .private else {
            throw CloudKitError.badRequest("zones/modify applies to the private database only: the \(store.scope.rawValue) database has no custom zones")
        }
        try checkZoneOperations(modification.operations)
        let operations = modification.operations
        let (results, queued) = try await storage.write { writer in
            var results: [Result<ZoneWriteOutcome, CloudKitError>] = []
            for operation in operations {
                switch operation.kind {
                case .create:
                    _ = try await writer.createZone(store, name: operation.zoneName)
                    let row = try await writer.zone(store, name: operation.zoneName) ?? ZoneRow(zoneName: operation.zoneName, changeSequence: 0)
                    results.append(.success(.saved(self.recordZone(store, row, sharedWhole: false))))
                case .delete:
                    if try await writer.zone(store, name: operation.zoneName) == nil {
                        results.append(.failure(CloudKitError(.zoneNotFound, "zone '\(operation.zoneName)' does not exist")))
                    } else {
                        try await writer.deleteZone(store, name: operation.zoneName)
                        results.append(.success(.deleted(ZoneID(zoneName: operation.zoneName, ownerRecordName: zoneOwner(store)))))
                    }
                }
            }
            let deleted = operations.filter { $0.kind == .delete }.map(\.zoneName)
            return (results, try await self.queueNotifications(store, events: [], deletedZones: deleted, writer: writer))
        }
        let deleted = operations.filter { $0.kind == .delete }.map(\.zoneName)
        await announceQueued(queued)
        await removeSubscriptions(boundTo: deleted, in: store)
        return results
    }

    /// Refuses an empty or oversized batch, an invalid name, `_defaultZone`, and a zone named twice.
    func checkZoneOperations(_ operations: [ZoneModification.Operation]) throws(CloudKitError) {
        if operations.isEmpty { throw CloudKitError.badRequest("operations is empty; send at least one operation") }
        if operations.count > limits.maximumOperationsPerRequest {
            throw CloudKitError.badRequest("operations has \(operations.count) entries; the limit is \(limits.maximumOperationsPerRequest) per request")
        }
        var seen = Set<String>()
        for (position, operation) in operations.enumerated() {
            let path = "operations[\(position)]"
            try NameRules.checkZoneName(operation.zoneName, path: "\(path).zone.zoneID.zoneName")
            if operation.zoneName == ZoneID.defaultZoneName {
                throw CloudKitError.badRequest("\(path): _defaultZone always exists and cannot be created or deleted")
            }
            if !seen.insert(operation.zoneName).inserted {
                throw CloudKitError.badRequest("\(path): zone '\(operation.zoneName)' appears in more than one operation")
            }
        }
    }

    func recordZone(_ store: StoreKey, _ row: ZoneRow, sharedWhole: Bool) -> RecordZone {
        RecordZone(
            zoneID: ZoneID(zoneName: row.zoneName, ownerRecordName: zoneOwner(store)),
            atomic: row.zoneName != ZoneID.defaultZoneName, sharedWhole: sharedWhole)
    }

    func sharedZone(_ zoneID: ZoneID, shares: [ShareRow]) -> RecordZone {
        RecordZone(zoneID: zoneID, atomic: true, sharedWhole: shares.contains(where: \.isZoneWide))
    }
}

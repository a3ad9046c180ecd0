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

    /// A private or public zone's CKWS dictionary (see `RecordZone.json`).
    func zoneJSON(_ store: StoreKey, _ zone: ZoneRow, sharedWhole: Bool = false) -> JSONValue {
        recordZone(store, zone, sharedWhole: sharedWhole).json
    }

    /// The private store's zones that a zone-wide share covers (none elsewhere).
    func zonesSharedWhole(_ store: StoreKey, reader: any StorageReader) async throws -> Set<String> {
        store.scope == .private ? try await reader.zonesSharedWhole(store) : []
    }

    package func zoneErrorJSON(_ store: StoreKey, zoneName: String, _ error: CloudKitError) -> JSONValue {
        zoneErrorJSON(ZoneID(zoneName: zoneName, ownerRecordName: zoneOwner(store)), error)
    }

    /// A per-zone error element: `{zoneID, reason, serverErrorCode, uuid}`.
    package func zoneErrorJSON(_ zoneID: ZoneID, _ error: CloudKitError) -> JSONValue {
        .object([
            "zoneID": zoneID.json,
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
}

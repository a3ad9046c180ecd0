import StratusEngine
import StratusModel

/// A zones/lookup body: `{"zones": [zoneID…]}`.
public struct ZoneLookupRequest: Sendable {
    public var zoneIDs: [ZoneID]

    public init(json: JSONValue) throws(CloudKitError) {
        do {
            zoneIDs = try JSONObjectReader(json).array("zones").enumerated().map { position, value throws(WireError) in
                try ZoneID(json: value, path: "zones[\(position)]")
            }
        } catch { throw .parsing(error) }
    }
}

/// A zones/modify body: `{"operations": [{"operationType": "create" | "delete", "zone": {"zoneID"}}…]}`.
/// The engine checks the batch (size, names, `_defaultZone`, repeats).
public struct ZoneModifyRequest: Sendable {
    public var modification: ZoneModification

    public init(json: JSONValue) throws(CloudKitError) {
        do {
            let raw = try JSONObjectReader(json).array("operations")
            var operations: [ZoneModification.Operation] = []
            for (position, value) in raw.enumerated() {
                let operation = try JSONObjectReader(value, path: "operations[\(position)]")
                let type = try operation.string("operationType")
                guard let kind = ZoneModification.Kind(rawValue: type) else {
                    throw WireError(path: operation.child("operationType"), problem: "'\(type)' is not a zone operation; use create or delete")
                }
                let zone = try operation.object("zone")
                guard let zoneIDJSON = zone["zoneID"] else { throw WireError(path: zone.child("zoneID"), problem: "is required") }
                let zoneID = try ZoneID(json: zoneIDJSON, path: zone.child("zoneID"))
                operations.append(ZoneModification.Operation(kind, zoneName: zoneID.zoneName))
            }
            modification = ZoneModification(operations: operations)
        } catch { throw .parsing(error) }
    }
}

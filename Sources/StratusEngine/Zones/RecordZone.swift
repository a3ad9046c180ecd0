import StratusModel

/// A zone as the engine answers it: its identifier (with the owner), whether batches in it are
/// atomic, and whether a zone-wide share covers it.
public struct RecordZone: Sendable, Hashable {
    public var zoneID: ZoneID
    /// True for every zone but `_defaultZone`.
    public var atomic: Bool
    /// A zone-wide share (`cloudkit.zoneshare`) covers the zone.
    public var sharedWhole: Bool

    public init(zoneID: ZoneID, atomic: Bool, sharedWhole: Bool = false) {
        self.zoneID = zoneID
        self.atomic = atomic
        self.sharedWhole = sharedWhole
    }

    /// The CKWS zone dictionary: `{"zoneID", "atomic"}`, and `share` (the reference to the
    /// zone-wide share record) when one covers the zone. The one rendering of a zone: zone
    /// answers and the database change feeds both use it.
    package var json: JSONValue {
        var members: [String: JSONValue] = ["zoneID": zoneID.json, "atomic": .bool(atomic)]
        if sharedWhole {
            members["share"] = .object(["recordName": .string(ShareRequest.zoneWideRecordName), "zoneID": zoneID.json])
        }
        return .object(members)
    }
}

/// zones/modify's operations, applied in order in one transaction.
public struct ZoneModification: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case create, delete }

    public struct Operation: Sendable, Hashable {
        public var kind: Kind
        public var zoneName: String
        public init(_ kind: Kind, zoneName: String) {
            self.kind = kind
            self.zoneName = zoneName
        }
    }

    public var operations: [Operation]
    public init(operations: [Operation]) { self.operations = operations }
}

/// What one zone operation did.
public enum ZoneWriteOutcome: Sendable, Hashable {
    case saved(RecordZone)
    case deleted(ZoneID)
}

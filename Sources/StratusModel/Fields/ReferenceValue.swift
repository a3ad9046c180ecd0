/// What happens to a record holding a reference when the target is deleted (docs/protocol.md §3.4).
public enum ReferenceAction: String, Sendable, Hashable {
    case none = "NONE"
    /// Deleting the target deletes the holder, transitively, in the same transaction.
    case deleteSelf = "DELETE_SELF"
    /// The target must exist when saved and cannot be deleted while referenced.
    case validate = "VALIDATE"
}

/// A reference to another record: `{"recordName", "zoneID"?, "action"}`.
public struct ReferenceValue: Sendable, Hashable {
    public var recordName: String
    /// The target's zone; `nil` means the zone of the record that holds the reference.
    public var zoneID: ZoneID?
    public var action: ReferenceAction

    public init(recordName: String, zoneID: ZoneID? = nil, action: ReferenceAction = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }

    public init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        self.recordName = try reader.string("recordName")
        if let zone = reader["zoneID"] { self.zoneID = try ZoneID(json: zone, path: reader.child("zoneID")) }
        if let actionName = try reader.optionalString("action") {
            guard let action = ReferenceAction(rawValue: actionName.uppercased()) else {
                throw WireError(path: reader.child("action"), problem: "must be NONE, DELETE_SELF or VALIDATE, got '\(actionName)'")
            }
            self.action = action
        } else {
            self.action = .none
        }
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["recordName": .string(recordName), "action": .string(action.rawValue)]
        if let zoneID { members["zoneID"] = zoneID.json }
        return .object(members)
    }
}

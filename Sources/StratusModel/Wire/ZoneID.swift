/// A zone identifier: `{"zoneName": …, "ownerRecordName": …}` (docs/protocol.md §3.1).
public struct ZoneID: Sendable, Hashable {
    public static let defaultZoneName = "_defaultZone"
    public static let `default` = ZoneID(zoneName: defaultZoneName)

    public var zoneName: String
    /// The owner; `nil` means the caller (or nobody, in the public database).
    public var ownerRecordName: String?

    public init(zoneName: String, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    public var isDefault: Bool { zoneName == ZoneID.defaultZoneName }

    public init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        self.zoneName = try reader.optionalString("zoneName") ?? ZoneID.defaultZoneName
        self.ownerRecordName = try reader.optionalString("ownerRecordName")
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = ["zoneName": .string(zoneName)]
        if let ownerRecordName { members["ownerRecordName"] = .string(ownerRecordName) }
        return .object(members)
    }
}

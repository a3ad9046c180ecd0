/// The `created` / `modified` dictionary of a record: when, by whom, from which device.
public struct RecordStamp: Sendable, Hashable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String

    public init(timestamp: Int64, userRecordName: String, deviceID: String = "stratus") {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    public var json: JSONValue {
        .object(["timestamp": .int(timestamp), "userRecordName": .string(userRecordName), "deviceID": .string(deviceID)])
    }

    public init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        self.timestamp = try reader.optionalInt("timestamp") ?? 0
        self.userRecordName = try reader.optionalString("userRecordName") ?? ""
        self.deviceID = try reader.optionalString("deviceID") ?? ""
    }
}

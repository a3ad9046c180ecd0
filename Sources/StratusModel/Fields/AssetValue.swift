/// An asset field value (docs/protocol.md §3.4): what a client sends after an upload, and what a
/// fetched record holds; `downloadURL` appears only in fetched records.
public struct AssetValue: Sendable, Hashable {
    public var fileChecksum: String?
    public var size: Int64?
    public var referenceChecksum: String?
    public var wrappingKey: String?
    public var receipt: String?
    public var downloadURL: String?

    public init(
        fileChecksum: String? = nil, size: Int64? = nil, referenceChecksum: String? = nil,
        wrappingKey: String? = nil, receipt: String? = nil, downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }

    public init(json: JSONValue, path: String) throws(WireError) {
        let reader = try JSONObjectReader(json, path: path)
        self.fileChecksum = try reader.optionalString("fileChecksum")
        self.size = try reader.optionalInt("size")
        self.referenceChecksum = try reader.optionalString("referenceChecksum")
        self.wrappingKey = try reader.optionalString("wrappingKey")
        self.receipt = try reader.optionalString("receipt")
        self.downloadURL = try reader.optionalString("downloadURL")
    }

    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if let fileChecksum { members["fileChecksum"] = .string(fileChecksum) }
        if let size { members["size"] = .int(size) }
        if let referenceChecksum { members["referenceChecksum"] = .string(referenceChecksum) }
        if let wrappingKey { members["wrappingKey"] = .string(wrappingKey) }
        if let receipt { members["receipt"] = .string(receipt) }
        if let downloadURL { members["downloadURL"] = .string(downloadURL) }
        return .object(members)
    }
}

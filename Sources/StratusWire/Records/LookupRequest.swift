import StratusEngine
import StratusModel

/// A records/lookup body: the records asked for, and how to render them.
public struct LookupRequest: Sendable {
    public var lookup: RecordLookup
    /// Per requested record (same order): overrides `desiredKeys` for that record.
    public var desiredKeysByRecord: [[String]?]
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool

    public init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        do {
            let reader = try JSONObjectReader(json)
            let raw = try reader.array("records")
            if raw.count > limits.maximumResultsPerResponse {
                throw CloudKitError.badRequest("records has \(raw.count) entries; the limit is \(limits.maximumResultsPerResponse) per request — split the lookup")
            }
            var names: [String] = []
            desiredKeysByRecord = []
            names.reserveCapacity(raw.count)
            for (position, value) in raw.enumerated() {
                let element = try JSONObjectReader(value, path: "records[\(position)]")
                let name = try element.string("recordName")
                try NameRules.checkASCII(name, what: "record name", path: element.child("recordName"))
                names.append(name)
                desiredKeysByRecord.append(try element.optionalStringArray("desiredKeys"))
            }
            let zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") } ?? .default
            lookup = RecordLookup(zoneID: zoneID, recordNames: names)
            desiredKeys = try reader.optionalStringArray("desiredKeys")
            numbersAsStrings = try reader.bool("numbersAsStrings", default: false)
        } catch {
            throw .parsing(error)
        }
    }
}

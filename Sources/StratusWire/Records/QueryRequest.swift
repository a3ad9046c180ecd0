import StratusEngine
import StratusModel

/// A records/query body: the query, and how to render its records.
public struct QueryRequest: Sendable {
    public var query: RecordQuery
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool

    public init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        let requestedLimit: Int64?
        let zoneWide: Bool
        let dictionary: JSONValue
        let zoneID: ZoneID?
        let continuationMarker: String?
        do {
            let reader = try JSONObjectReader(json)
            guard let query = reader["query"] else { throw WireError(path: "query", problem: "is required") }
            dictionary = query
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
            zoneWide = try reader.bool("zoneWide", default: false)
            requestedLimit = try reader.optionalInt("resultsLimit")
            continuationMarker = try reader.optionalString("continuationMarker")
            desiredKeys = try reader.optionalStringArray("desiredKeys")
            numbersAsStrings = try reader.bool("numbersAsStrings", default: false)
        } catch { throw .parsing(error) }
        let maximum = limits.maximumResultsPerResponse
        let limit: Int
        switch requestedLimit {
        case nil, 0?: limit = maximum
        case let requested? where requested < 0:
            throw .badRequest("resultsLimit must be between 1 and \(maximum), got \(requested)")
        case let requested?: limit = Int(min(requested, Int64(maximum)))
        }
        // A named zone is searched alone; without one, zoneWide searches every zone and a plain
        // query the default zone (CloudKit's records/query).
        let zoneName = zoneID?.zoneName ?? (zoneWide ? nil : ZoneID.defaultZoneName)
        query = try RecordQuery(dictionary: dictionary, zoneID: zoneID, zoneName: zoneName, limit: limit, continuationMarker: continuationMarker)
    }
}

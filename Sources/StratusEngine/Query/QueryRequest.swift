import StratusModel

/// A parsed records/query request: everything in the body except the query dictionary itself,
/// which `QueryPlanner` validates against the schema.
struct QueryRequest: Sendable {
    var queryJSON: JSONValue
    var zoneID: ZoneID?
    /// The zone the query reads; `nil`: every zone (zoneWide without a zone).
    var zoneName: String?
    /// Records per page, within the server's limit.
    var limit: Int
    var continuationMarker: String?
    var desiredKeys: [String]?
    var numbersAsStrings: Bool

    init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        let requestedLimit: Int64?
        let zoneWide: Bool
        do {
            let reader = try JSONObjectReader(json)
            guard let query = reader["query"] else { throw WireError(path: "query", problem: "is required") }
            queryJSON = query
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
            zoneWide = try reader.bool("zoneWide", default: false)
            requestedLimit = try reader.optionalInt("resultsLimit")
            continuationMarker = try reader.optionalString("continuationMarker")
            desiredKeys = try reader.optionalStringArray("desiredKeys")
            numbersAsStrings = try reader.bool("numbersAsStrings", default: false)
        } catch { throw .parsing(error) }
        let maximum = limits.maximumResultsPerResponse
        switch requestedLimit {
        case nil, 0?: limit = maximum
        case let requested? where requested < 0:
            throw .badRequest("resultsLimit must be between 1 and \(maximum), got \(requested)")
        case let requested?: limit = Int(min(requested, Int64(maximum)))
        }
        // A named zone is searched alone; without one, zoneWide searches every zone and a plain
        // query the default zone (CloudKit's records/query).
        zoneName = zoneID?.zoneName ?? (zoneWide ? nil : ZoneID.defaultZoneName)
    }
}

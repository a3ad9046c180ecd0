import StratusEngine
import StratusModel

/// A records/query body: the query, and how to render its records.
public struct QueryRequest: Sendable {
    public var query: RecordQuery
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool

    public init(json: JSONValue, limits: EngineLimits) throws(CloudKitError) {
        let requestedLimit: Int64?
        let body: QueryBody
        let continuationMarker: String?
        do {
            let reader = try JSONObjectReader(json)
            body = try QueryBody(reader)
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
        query = try body.query(limit: limit, continuationMarker: continuationMarker)
    }
}

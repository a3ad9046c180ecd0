import StratusEngine
import StratusModel

/// A records/count body: records/query's `query`, `zoneID` and `zoneWide`. Paging members
/// (`resultsLimit`, `continuationMarker`) do not apply: a count covers every page.
public struct CountRequest: Sendable {
    public var query: RecordQuery

    public init(json: JSONValue) throws(CloudKitError) {
        let dictionary: JSONValue
        let zoneID: ZoneID?
        let zoneWide: Bool
        do {
            let reader = try JSONObjectReader(json)
            guard let query = reader["query"] else { throw WireError(path: "query", problem: "is required") }
            dictionary = query
            zoneID = try reader["zoneID"].map { value throws(WireError) in try ZoneID(json: value, path: "zoneID") }
            zoneWide = try reader.bool("zoneWide", default: false)
        } catch { throw .parsing(error) }
        let zoneName = zoneID?.zoneName ?? (zoneWide ? nil : ZoneID.defaultZoneName)
        query = try RecordQuery(dictionary: dictionary, zoneID: zoneID, zoneName: zoneName, limit: 1)
    }
}

extension Engine {
    /// records/count: `{"count": N}`.
    public func countRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try CountRequest(json: body)
        let count = try await countRecords(scope, request.query)
        return ["count": .int(Int64(count))]
    }
}

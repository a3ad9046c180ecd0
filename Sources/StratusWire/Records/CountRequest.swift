import StratusEngine
import StratusModel

/// A records/count body: records/query's `query`, `zoneID` and `zoneWide`. Paging members
/// (`resultsLimit`, `continuationMarker`) do not apply: a count covers every page.
public struct CountRequest: Sendable {
    public var query: RecordQuery

    public init(json: JSONValue) throws(CloudKitError) {
        let body: QueryBody
        do { body = try QueryBody(try JSONObjectReader(json)) } catch { throw .parsing(error) }
        query = try body.query(limit: 1)
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

import StratusEngine
import StratusModel

/// A records/aggregate body: records/query's `query`, `zoneID` and `zoneWide`, with
/// `aggregates` (`[{"function": "sum", "fieldName": "price"}, …]`), an optional `groupBy`
/// (`{"fieldName": "genre"}`), `resultsLimit` (groups per page) and `continuationMarker`.
public struct AggregateRequest: Sendable {
    public var aggregate: RecordAggregate

    public init(json: JSONValue) throws(CloudKitError) {
        let body: QueryBody
        let functions: [RecordAggregate.Function]
        let grouping: RecordAggregate.Grouping?
        let requestedLimit: Int64?
        let continuationMarker: String?
        var specification: [UInt8] = Array("|aggregate|".utf8)
        do {
            let reader = try JSONObjectReader(json)
            body = try QueryBody(reader)
            guard let rawFunctions = try reader.optionalArray("aggregates") else { throw WireError(path: "aggregates", problem: "is required: a list of {function, fieldName}") }
            functions = try rawFunctions.enumerated().map { position, raw in try AggregateRequest.function(raw, path: "aggregates[\(position)]") }
            grouping = try reader["groupBy"].map { raw in
                RecordAggregate.Grouping(field: try QueryDictionary.operand(try JSONObjectReader(raw, path: "groupBy"), path: "groupBy"), path: "groupBy")
            }
            requestedLimit = try reader.optionalInt("resultsLimit")
            continuationMarker = try reader.optionalString("continuationMarker")
            reader["aggregates"]?.write(into: &specification)
            specification += Array("|".utf8)
            reader["groupBy"]?.write(into: &specification)
        } catch { throw .parsing(error) }
        let maximum = RecordAggregate.maximumGroups
        let limit: Int
        switch requestedLimit {
        case nil, 0?: limit = maximum
        case let requested? where requested < 0 || requested > Int64(maximum):
            throw .badRequest("resultsLimit: groups per page are 1 to \(maximum), got \(requested)")
        case let requested?: limit = Int(requested)
        }
        var query = try body.query(limit: 1)
        // A marker resumes only the same functions and grouping over the same query.
        query.fingerprint += specification
        aggregate = RecordAggregate(query: query, functions: functions, groupBy: grouping, groupLimit: limit, continuationMarker: continuationMarker)
    }

    static func function(_ raw: JSONValue, path: String) throws -> RecordAggregate.Function {
        let reader = try JSONObjectReader(raw, path: path)
        let name = try reader.string("function").lowercased()
        guard let kind = RecordAggregate.Kind(rawValue: name) else {
            throw WireError(path: "\(path).function", problem: "'\(name)' is not an aggregate; use one of \(RecordAggregate.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let named = reader["fieldName"] != nil || reader["systemFieldName"] != nil
        if kind == .count, !named { return RecordAggregate.Function(kind: .count, field: nil, path: path) }
        return RecordAggregate.Function(kind: kind, field: try QueryDictionary.operand(reader, path: path), path: path)
    }
}

extension Engine {
    /// records/aggregate: `{"groups": [{"key"?, "count", "aggregates": [value…]}], "continuationMarker"?}`.
    public func aggregateRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let request = try AggregateRequest(json: body)
        let page = try await aggregate(scope, request.aggregate)
        let groups: [JSONValue] = page.groups.map { group in
            var members: [String: JSONValue] = [
                "count": .int(Int64(group.count)),
                "aggregates": .array(group.values.map { $0.map { $0.fieldJSON() } ?? .null }),
            ]
            if request.aggregate.groupBy != nil { members["key"] = group.key.map { $0.fieldJSON() } ?? .null }
            return .object(members)
        }
        var response: [String: JSONValue] = ["groups": .array(groups)]
        if let marker = page.continuationMarker { response["continuationMarker"] = .string(marker) }
        return .object(response)
    }
}

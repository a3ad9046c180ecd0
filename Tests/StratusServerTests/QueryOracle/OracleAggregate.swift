import StratusModel

/// What records/aggregate must answer for a query, from the oracle's records: the count, and the
/// least and greatest `i` (INT64) and `t` (TIMESTAMP) of the records holding them, and per value
/// of `i` the number of records (grouped, in any order of equal counts).
struct OracleAggregate {
    static let functions: [JSONValue] = [
        ["function": "count"], ["function": "min", "fieldName": "i"], ["function": "max", "fieldName": "i"],
        ["function": "min", "fieldName": "t"], ["function": "max", "fieldName": "t"],
    ]

    static func expected(_ records: [OracleRecord]) -> [JSONValue] {
        func scalars(_ field: String) -> [Int64] {
            records.compactMap { record in
                switch record.fields[field] {
                case .scalar(.int64(let value))?, .scalar(.timestamp(let value))?: return value
                default: return nil
                }
            }
        }
        let i = scalars("i"), t = scalars("t")
        func number(_ value: Int64?) -> JSONValue { value.map { .int($0) } ?? .null }
        return [.int(Int64(records.count)), number(i.min()), number(i.max()), number(t.min()), number(t.max())]
    }

    /// Records per value of `i` (`nil`: records without it).
    static func groups(_ records: [OracleRecord]) -> [Int64?: Int] {
        var counts: [Int64?: Int] = [:]
        for record in records {
            if case .scalar(.int64(let value))? = record.fields["i"] { counts[value, default: 0] += 1 } else { counts[nil, default: 0] += 1 }
        }
        return counts
    }
}

extension OracleSession {
    /// records/aggregate of `query` against the oracle; a description of the first difference.
    func checkAggregate(_ query: OracleQuery, matching records: [OracleRecord]) async throws -> String? {
        let whole = try await client.call(path("records/aggregate"), json: ["query": query.queryJSON, "aggregates": .array(OracleAggregate.functions)])
        guard whole.status == 200 else { return "records/aggregate: HTTP \(whole.status) \(whole.json.serializedString)" }
        let values = (whole.json["groups"]?[0]?["aggregates"]?.arrayValue ?? []).map { $0["value"] ?? .null }
        let expected = OracleAggregate.expected(records)
        if values != expected { return "records/aggregate answered \(values), the oracle computes \(expected)" }
        var counts: [Int64?: Int] = [:]
        var previous = Int.max
        var body: [String: JSONValue] = ["query": query.queryJSON, "aggregates": [["function": "count"]], "groupBy": ["fieldName": "i"], "resultsLimit": 7]
        repeat {
            let page = try await client.call(path("records/aggregate"), json: .object(body))
            guard page.status == 200 else { return "grouped records/aggregate: HTTP \(page.status) \(page.json.serializedString)" }
            for group in page.json["groups"]?.arrayValue ?? [] {
                let count = Int(group["count"]?.int64Value ?? -1)
                if count > previous { return "grouped records/aggregate: a group of \(count) after one of \(previous)" }
                previous = count
                counts[group["key"]?["value"]?.int64Value, default: 0] += count
            }
            body["continuationMarker"] = page.json["continuationMarker"]
        } while body["continuationMarker"] != nil && counts.count <= records.count
        let wanted = OracleAggregate.groups(records)
        if counts != wanted { return "grouped records/aggregate counted \(counts), the oracle \(wanted)" }
        return nil
    }
}

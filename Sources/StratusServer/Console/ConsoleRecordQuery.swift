import StratusEngine
import StratusModel

/// The records screen's query, read from its form (`type`, repeated `ff`/`fo`/`fv` filters,
/// `sort`, `dir`, `keys`, `marker`), and the CKWS `records/query` body it becomes. The body is
/// what the screen runs and what its API preview shows.
struct ConsoleRecordQuery: Sendable {
    struct Filter: Sendable {
        var field: String
        var comparator: String
        var value: String
    }

    static let comparators = [
        "EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS",
        "BEGINS_WITH", "IN", "NOT_IN", "CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS", "LIST_CONTAINS",
    ]
    /// System fields a query may sort by.
    static let systemSorts = ["___createTime", "___modTime", "___recordID"]
    static let pageSize = 50

    var recordType: String
    var filters: [Filter]
    var sortField: String
    var ascending: Bool
    var desiredKeys: [String]
    var marker: String

    init(_ console: ConsoleRequest, defaultType: String) {
        recordType = console["type"].isEmpty ? defaultType : console["type"]
        let fields = console.all("ff"), comparators = console.all("fo"), values = console.all("fv")
        filters = fields.indices.compactMap { index in
            guard !fields[index].isEmpty else { return nil }
            return Filter(
                field: fields[index], comparator: index < comparators.count ? comparators[index] : "EQUALS",
                value: index < values.count ? values[index] : "")
        }
        sortField = console["sort"]
        ascending = console["dir"] != "desc"
        desiredKeys = console["keys"].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        marker = console["marker"]
    }

    /// Query values that reproduce this query (without the marker).
    var query: [(String, String)] {
        var pairs: [(String, String)] = [("type", recordType)]
        for filter in filters { pairs += [("ff", filter.field), ("fo", filter.comparator), ("fv", filter.value)] }
        pairs += [("sort", sortField), ("dir", ascending ? "" : "desc"), ("keys", desiredKeys.joined(separator: ","))]
        return pairs
    }

    /// The `records/query` body. A filter value is typed from the schema's field type, so
    /// `rating > 3` compares numbers.
    func body(zoneID: JSONValue, schema: RecordTypeSchema?) -> JSONValue {
        var query: [String: JSONValue] = ["recordType": .string(recordType)]
        if !filters.isEmpty {
            query["filterBy"] = .array(
                filters.map { filter in
                    let type = schema?.fields[filter.field]?.type.scalar ?? .string
                    let value: JSONValue
                    if filter.comparator == "IN" || filter.comparator == "NOT_IN" {
                        value = .array(filter.value.split(separator: ",").map { typed(String($0).trimmingCharacters(in: .whitespaces), type) })
                    } else {
                        value = typed(filter.value, type)
                    }
                    return .object(["fieldName": .string(filter.field), "comparator": .string(filter.comparator), "fieldValue": .object(["value": value])])
                })
        }
        if !sortField.isEmpty {
            query["sortBy"] = .array([.object(["fieldName": .string(sortField), "ascending": .bool(ascending)])])
        }
        var body: [String: JSONValue] = ["zoneID": zoneID, "query": .object(query), "resultsLimit": .int(Int64(Self.pageSize))]
        if !desiredKeys.isEmpty { body["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        if !marker.isEmpty { body["continuationMarker"] = .string(marker) }
        return .object(body)
    }

    func typed(_ text: String, _ type: FieldType) -> JSONValue {
        switch type {
        case .int64, .timestamp: return Int64(text).map(JSONValue.int) ?? .string(text)
        case .double: return Double(text).map(JSONValue.double) ?? .string(text)
        case .reference: return .object(["recordName": .string(text)])
        default: return .string(text)
        }
    }
}

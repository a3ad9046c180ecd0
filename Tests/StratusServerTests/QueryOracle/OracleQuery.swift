import Foundation
import StratusEngine
import StratusModel

/// What a filter or sort reads: a field of the record type or a system field.
enum OracleOperand {
    case field(OracleField)
    case recordName
    case createdTimestamp
    case modifiedTimestamp

    var json: [String: JSONValue] {
        switch self {
        case .field(let field): return ["fieldName": .string(field.name)]
        case .recordName: return ["systemFieldName": "recordName"]
        case .createdTimestamp: return ["systemFieldName": "createdTimestamp"]
        case .modifiedTimestamp: return ["systemFieldName": "modifiedTimestamp"]
        }
    }

    /// The operand's value in `record`; nil when the record has no such field.
    func value(in record: OracleRecord) -> OracleScalar? {
        switch self {
        case .field(let field):
            guard case .scalar(let value) = record.fields[field.name] else { return nil }
            return value
        case .recordName: return .text(record.name)
        case .createdTimestamp: return .timestamp(record.created)
        case .modifiedTimestamp: return .timestamp(record.modified)
        }
    }

    func list(in record: OracleRecord) -> [OracleScalar] {
        guard case .field(let field) = self, case .list(let values) = record.fields[field.name] else { return [] }
        return values
    }

    var scalarType: FieldType {
        switch self {
        case .field(let field): return field.scalar
        case .recordName: return .string
        case .createdTimestamp, .modifiedTimestamp: return .timestamp
        }
    }
}

/// One filter, with its meaning written out from CloudKit's semantics.
///
/// A scalar comparison with a record that lacks the field is unknown, so the record does not match,
/// negated comparators included (three-valued logic, as SQL and CloudKit's record layer evaluate
/// them). A list comparator sees a missing list as empty. Empty value lists are vacuous:
/// `IN []` matches nothing and `NOT_IN []` everything; `LIST_CONTAINS_ALL []` matches everything.
struct OracleFilter {
    var operand: OracleOperand
    var comparator: String
    /// The scalar value, prefix or centre; for IN-style comparators, `values`.
    var value: OracleScalar?
    var values: [OracleScalar] = []
    var distance: Double?

    var json: JSONValue {
        var members = operand.json
        members["comparator"] = .string(comparator)
        if ["IN", "NOT_IN", "LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY", "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL"].contains(comparator) {
            let tag = FieldTypeDescriptor(operand.scalarType, isList: true).responseTag
            members["fieldValue"] = ["value": .array(values.map(\.json)), "type": .string(tag)]
        } else if let value {
            members["fieldValue"] = ["value": value.json]
        }
        if let distance { members["distance"] = .double(distance) }
        return .object(members)
    }

    func matches(_ record: OracleRecord) -> Bool {
        switch comparator {
        case "LIST_CONTAINS", "NOT_LIST_CONTAINS":
            let found = operand.list(in: record).contains(value!)
            return found != comparator.hasPrefix("NOT_")
        case "LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY":
            let list = operand.list(in: record)
            return values.contains(where: list.contains) != comparator.hasPrefix("NOT_")
        case "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL":
            let list = operand.list(in: record)
            return values.allSatisfy(list.contains) != comparator.hasPrefix("NOT_")
        case "LIST_MEMBER_BEGINS_WITH", "NOT_LIST_MEMBER_BEGINS_WITH":
            guard case .string(let prefix) = value! else { return false }
            let found = operand.list(in: record).contains { element in
                if case .string(let bytes) = element { return bytes.starts(with: prefix) }
                return false
            }
            return found != comparator.hasPrefix("NOT_")
        case "IN", "NOT_IN":
            if values.isEmpty { return comparator == "NOT_IN" }
            guard let own = operand.value(in: record) else { return false }
            return values.contains(own) != (comparator == "NOT_IN")
        default: break
        }
        guard let own = operand.value(in: record), let value else { return false }
        switch comparator {
        case "EQUALS": return own == value
        case "NOT_EQUALS": return own != value
        case "LESS_THAN": return oracleCompare(own, value) < 0
        case "LESS_THAN_OR_EQUALS": return oracleCompare(own, value) <= 0
        case "GREATER_THAN": return oracleCompare(own, value) > 0
        case "GREATER_THAN_OR_EQUALS": return oracleCompare(own, value) >= 0
        case "BEGINS_WITH", "NOT_BEGINS_WITH":
            guard case .string(let bytes) = own, case .string(let prefix) = value else { return false }
            return bytes.starts(with: prefix) != (comparator == "NOT_BEGINS_WITH")
        case "NEAR":
            return OracleFilter.metres(own, value)! <= distance!
        case "CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS":
            // Tokens are words, compared ignoring case and diacritics (TextTokenizer states the
            // folding); the database's full-text index must agree with it.
            guard case .string(let bytes) = own, case .string(let text) = value else { return false }
            let held = Set(TextTokenizer.tokens(String(decoding: bytes, as: UTF8.self)))
            let wanted = TextTokenizer.tokens(String(decoding: text, as: UTF8.self))
            return comparator == "CONTAINS_ALL_TOKENS" ? wanted.allSatisfy(held.contains) : wanted.contains(where: held.contains)
        default: fatalError("the oracle has no meaning for \(comparator)")
        }
    }

    static func metres(_ a: OracleScalar, _ b: OracleScalar) -> Double? {
        guard case .location(let lat1, let lon1) = a, case .location(let lat2, let lon2) = b else { return nil }
        return LocationValue.haversineMetres(lat1, lon1, lat2, lon2)
    }
}

/// One sort key; `relativeTo` sorts a location field by distance from a point.
struct OracleSort {
    var operand: OracleOperand
    var ascending: Bool
    var relativeTo: OracleScalar?

    var json: JSONValue {
        var members = operand.json
        members["ascending"] = .bool(ascending)
        if let relativeTo { members["relativeLocation"] = ["value": relativeTo.json, "type": "LOCATION"] }
        return .object(members)
    }

    func key(_ record: OracleRecord) -> OracleScalar? {
        guard let value = operand.value(in: record) else { return nil }
        guard let relativeTo else { return value }
        return OracleFilter.metres(value, relativeTo).map(OracleScalar.double)
    }
}

/// A query and the page size it is read with.
struct OracleQuery {
    var filters: [OracleFilter]
    /// Stratus filter groups, sent after `filters` in `filterBy`.
    var groups: [OracleCondition] = []
    var sorts: [OracleSort]
    /// `resultsLimit`; 0 sends none (the server's default page).
    var pageSize: Int

    var queryJSON: JSONValue {
        var query: [String: JSONValue] = ["recordType": .string(OracleField.recordType)]
        let filterBy = filters.map(\.json) + groups.map(\.json)
        if !filterBy.isEmpty { query["filterBy"] = .array(filterBy) }
        if !sorts.isEmpty { query["sortBy"] = .array(sorts.map(\.json)) }
        return .object(query)
    }

    /// The records the query returns, in order. A missing sort value sorts first ascending and last
    /// descending (nil before every value, as NSSortDescriptor orders nil); records equal on every
    /// key are ordered by record name, in the direction of the last sort key (the server's
    /// documented tie-breaker, which its continuation markers depend on).
    func evaluate(_ records: [OracleRecord]) -> [String] { matches(records).map(\.name) }

    /// The matching records in the query's order.
    func matches(_ records: [OracleRecord]) -> [OracleRecord] {
        records.filter { record in filters.allSatisfy { $0.matches(record) } && groups.allSatisfy { $0.matches(record) } }
            .sorted(by: precedes)
    }

    /// Whether `a` comes before `b` in the query's order.
    func precedes(_ a: OracleRecord, _ b: OracleRecord) -> Bool {
        for sort in sorts {
            var order: Int
            switch (sort.key(a), sort.key(b)) {
            case (nil, nil): order = 0
            case (nil, _): order = -1
            case (_, nil): order = 1
            case (let x?, let y?): order = oracleCompare(x, y)
            }
            if !sort.ascending { order = -order }
            if order != 0 { return order < 0 }
        }
        let names = oracleCompare(.text(a.name), .text(b.name))
        return (sorts.last?.ascending ?? true) ? names < 0 : names > 0
    }
}

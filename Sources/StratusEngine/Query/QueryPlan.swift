import StratusModel

/// What a query reads, after validation against the schema: backend-neutral, rendered to SQL by
/// each store. Every filter and sort in a plan is backed by an index the schema declares.
public struct QueryPlan: Sendable, Hashable {
    public var recordType: String
    /// `nil` means every zone of the store (`zoneWide`).
    public var zoneName: String?
    public var filters: [QueryFilter]
    public var sorts: [QuerySort]
    /// At most this many rows.
    public var limit: Int
    /// Resume strictly after this position (from a continuation marker).
    public var after: QueryPosition?

    public init(
        recordType: String, zoneName: String?, filters: [QueryFilter], sorts: [QuerySort], limit: Int,
        after: QueryPosition? = nil
    ) {
        self.recordType = recordType
        self.zoneName = zoneName
        self.filters = filters
        self.sorts = sorts
        self.limit = limit
        self.after = after
    }
}

/// Something a query compares: a user field of a known type, or a system field.
public enum QueryOperand: Sendable, Hashable {
    case field(name: String, type: FieldTypeDescriptor)
    case system(SystemFieldName)

    public var displayName: String {
        switch self {
        case .field(let name, _): return name
        case .system(let system): return system.rawValue
        }
    }

    /// The schema name used for index bookkeeping (`rating`, `___createTime`).
    public var indexName: String {
        switch self {
        case .field(let name, _): return name
        case .system(let system): return system.schemaName
        }
    }
}

/// Scalar comparisons.
public enum Comparison: String, Sendable, Hashable {
    case equals, notEquals, lessThan, lessThanOrEquals, greaterThan, greaterThanOrEquals
}

/// One filter of a plan. Filters are ANDed.
public indirect enum QueryFilter: Sendable, Hashable {
    case compare(QueryOperand, Comparison, FieldValue)
    case oneOf(QueryOperand, [FieldValue], negated: Bool)
    case beginsWith(QueryOperand, String, negated: Bool)
    case near(QueryOperand, LocationValue, metres: Double)
    case tokens(field: String, tokens: [String], matchAll: Bool)
    case listContains(field: String, FieldValue, negated: Bool)
    case listContainsAny(field: String, [FieldValue], negated: Bool)
    case listContainsAll(field: String, [FieldValue], negated: Bool)
    case listMemberBeginsWith(field: String, String, negated: Bool)
    /// Any member matches; an empty one matches nothing.
    case anyOf([QueryFilter])
    /// Every member matches; an empty one matches everything.
    case allOf([QueryFilter])
    /// The member does not match: a record the member's comparison is unknown for (a missing
    /// field) matches the negation, so NOT is two-valued where the NOT_ comparators are not.
    case not(QueryFilter)
}

extension QueryFilter {
    /// Whether the filter, or any filter inside it, is a full-text search.
    public var searchesText: Bool {
        switch self {
        case .tokens: return true
        case .anyOf(let members), .allOf(let members): return members.contains(where: \.searchesText)
        case .not(let member): return member.searchesText
        default: return false
        }
    }
}

/// One sort key. `relativeTo` sorts a location field by distance from a point.
public struct QuerySort: Sendable, Hashable {
    public var operand: QueryOperand
    public var ascending: Bool
    public var relativeTo: LocationValue?

    public init(operand: QueryOperand, ascending: Bool, relativeTo: LocationValue? = nil) {
        self.operand = operand
        self.ascending = ascending
        self.relativeTo = relativeTo
    }
}

/// A sort-key value as the store compares it.
public enum SortKeyValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// Where a page ended: the sort-key values of the last row, then its zone and record name as the
/// tie-breaker, so the next page starts exactly after it whatever was written in between.
public struct QueryPosition: Sendable, Hashable {
    public var sortKeys: [SortKeyValue]
    public var zoneName: String
    public var recordName: String

    public init(sortKeys: [SortKeyValue], zoneName: String, recordName: String) {
        self.sortKeys = sortKeys
        self.zoneName = zoneName
        self.recordName = recordName
    }
}

/// A row returned by a query, with its position for a continuation marker.
public struct QueryRow: Sendable {
    public var record: RecordRow
    public var position: QueryPosition

    public init(record: RecordRow, position: QueryPosition) {
        self.record = record
        self.position = position
    }
}

import StratusModel

/// records/aggregate (a Stratus extension) as the engine takes it: count, sum, min, max and avg
/// over the records a query matches, optionally one row per value of a grouping field.
public struct RecordAggregate: Sendable {
    /// The filters and zone; its sorts are not used (groups are ordered by size).
    public var query: RecordQuery
    public var functions: [Function]
    public var groupBy: Grouping?
    /// Groups per page, 1 to `maximumGroups`.
    public var groupLimit: Int
    /// The previous page's `AggregatePage.continuationMarker`.
    public var continuationMarker: String?

    /// At most this many groups in one answer.
    public static let maximumGroups = 1000

    public init(query: RecordQuery, functions: [Function], groupBy: Grouping? = nil, groupLimit: Int = maximumGroups, continuationMarker: String? = nil) {
        self.query = query
        self.functions = functions
        self.groupBy = groupBy
        self.groupLimit = groupLimit
        self.continuationMarker = continuationMarker
    }

    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case count, sum, min, max, avg
    }

    public struct Function: Sendable {
        public var kind: Kind
        /// `nil` for `count`, which counts records.
        public var field: RecordQuery.Field?
        /// Where it sits in the request (`aggregates[1]`), for error messages.
        public var path: String

        public init(kind: Kind, field: RecordQuery.Field?, path: String) {
            self.kind = kind
            self.field = field
            self.path = path
        }
    }

    public struct Grouping: Sendable {
        public var field: RecordQuery.Field
        public var path: String

        public init(field: RecordQuery.Field, path: String) {
            self.field = field
            self.path = path
        }
    }
}

/// One page of an aggregate's groups, the largest first.
public struct AggregatePage: Sendable {
    public var groups: [AggregateGroup]
    /// Resumes after the last group of this page; `nil` on the last page.
    public var continuationMarker: String?
    /// The type of the grouping field's values, and of each function's value.
    public var keyType: FieldTypeDescriptor?
    public var valueTypes: [FieldTypeDescriptor?]
}

/// The records sharing one value of the grouping field (all matching records without grouping).
public struct AggregateGroup: Sendable {
    /// `nil` without grouping, and for the records that lack the grouping field.
    public var key: FieldValue?
    public var count: Int
    /// One per requested function, in order; `nil` when no record of the group holds the field.
    public var values: [FieldValue?]
}

import StratusModel

/// records/query as the engine takes it. Filters and sorts name fields as the client wrote them;
/// `QueryPlanner` checks them against the schema, decodes their values to the fields' types and
/// turns them into a `QueryPlan`.
public struct RecordQuery: Sendable {
    public var recordType: String
    /// ANDed, as in CloudKit.
    public var filters: [Filter]
    /// Stratus's boolean groups (OR, NOT, nested AND), ANDed with `filters`.
    public var groups: [Condition]
    public var sorts: [Sort]
    /// The zone the request named, checked to exist; `nil` with `zoneWide` (every zone).
    public var zoneID: ZoneID?
    /// The zone read: `zoneID`'s, or `nil` for every zone.
    public var zoneName: String?
    /// Records per page, within `EngineLimits.maximumResultsPerResponse`.
    public var limit: Int
    /// The previous page's `QueryPage.continuationMarker`.
    public var continuationMarker: String?
    /// Stable bytes that identify the filters and sorts: a continuation marker is bound to them,
    /// so a marker cannot resume a different query.
    public var fingerprint: [UInt8]

    public init(
        recordType: String, filters: [Filter] = [], groups: [Condition] = [], sorts: [Sort] = [], zoneID: ZoneID? = .default, zoneName: String? = ZoneID.defaultZoneName,
        limit: Int, continuationMarker: String? = nil, fingerprint: [UInt8]
    ) {
        self.recordType = recordType
        self.filters = filters
        self.groups = groups
        self.sorts = sorts
        self.zoneID = zoneID
        self.zoneName = zoneName
        self.limit = limit
        self.continuationMarker = continuationMarker
        self.fingerprint = fingerprint
    }

    /// What a filter or sort names.
    public enum Field: Sendable, Hashable {
        /// A field of the record type (checked against the schema).
        case named(String)
        case system(SystemFieldName)
        /// CloudKit's `allTokens`: every SEARCHABLE string field.
        case allTokens
    }

    /// CloudKit's comparators, by their CKWS names.
    public enum Comparator: String, Sendable, Hashable, CaseIterable {
        case equals = "EQUALS", notEquals = "NOT_EQUALS"
        case lessThan = "LESS_THAN", lessThanOrEquals = "LESS_THAN_OR_EQUALS"
        case greaterThan = "GREATER_THAN", greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
        case `in` = "IN", notIn = "NOT_IN"
        case beginsWith = "BEGINS_WITH", notBeginsWith = "NOT_BEGINS_WITH"
        case near = "NEAR"
        case containsAllTokens = "CONTAINS_ALL_TOKENS", containsAnyTokens = "CONTAINS_ANY_TOKENS"
        case listContains = "LIST_CONTAINS", notListContains = "NOT_LIST_CONTAINS"
        case listContainsAny = "LIST_CONTAINS_ANY", notListContainsAny = "NOT_LIST_CONTAINS_ANY"
        case listContainsAll = "LIST_CONTAINS_ALL", notListContainsAll = "NOT_LIST_CONTAINS_ALL"
        case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH", notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"
    }

    public struct Filter: Sendable {
        public var field: Field
        public var comparator: Comparator
        /// `nil` when the request gave none (an error for every comparator).
        public var value: RequestValue?
        /// NEAR's radius in metres.
        public var distance: Double?
        /// Where the filter sits in the request (`query.filterBy[0]`), for error messages.
        public var path: String

        public init(field: Field, comparator: Comparator, value: RequestValue?, distance: Double? = nil, path: String) {
            self.field = field
            self.comparator = comparator
            self.value = value
            self.distance = distance
            self.path = path
        }
    }

    /// A condition of a boolean group: a CloudKit filter, or a group of conditions. Each group
    /// keeps where it sits in the request (`query.filterBy[1].anyOf`) for error messages.
    public indirect enum Condition: Sendable {
        case filter(Filter)
        /// Matches when any member matches.
        case anyOf([Condition], path: String)
        /// Matches when every member matches.
        case allOf([Condition], path: String)
        /// Matches exactly the records the member does not match (a record without the field
        /// included, unlike the NOT_ comparators).
        case not(Condition, path: String)
    }

    public struct Sort: Sendable {
        public var field: Field
        public var ascending: Bool
        /// Sorts a LOCATION field by distance from this point.
        public var relativeTo: LocationValue?
        public var path: String

        public init(field: Field, ascending: Bool = true, relativeTo: LocationValue? = nil, path: String) {
            self.field = field
            self.ascending = ascending
            self.relativeTo = relativeTo
            self.path = path
        }
    }
}

/// A value from a request whose type only the schema knows (a filter's value is typed by the
/// field it compares). The protocol layer supplies the decoding; the engine asks for the type.
public struct RequestValue: Sendable {
    /// Where the value sits in the request, for error messages.
    public let path: String
    private let decoder: @Sendable (_ type: FieldTypeDescriptor, _ comparing: SystemFieldName?) throws -> FieldValue

    /// - Parameter decoder: the value as `type`; `comparing` names the system field a filter
    ///   compares, whose values some protocols spell differently (a bare record name for a reference).
    public init(path: String, decoder: @escaping @Sendable (_ type: FieldTypeDescriptor, _ comparing: SystemFieldName?) throws -> FieldValue) {
        self.path = path
        self.decoder = decoder
    }

    /// A value already typed (from code inside the server, such as the console). It must be of
    /// the type the schema gives the field (an empty list fits any list type).
    public init(_ value: FieldValue, path: String = "value") {
        self.init(path: path) { type, _ in try value.conforming(to: type, path: path) }
    }

    public func decode(as type: FieldTypeDescriptor, comparing system: SystemFieldName? = nil) throws -> FieldValue {
        try decoder(type, system)
    }
}

/// One page of a query's results.
public struct QueryPage: Sendable {
    /// See `FetchedRecords.readScope`.
    public var readScope: RequestScope
    /// Resumes after the last record of this page; `nil` on the last page.
    public var continuationMarker: String?
    private var content: Content

    /// The rows as storage returned them, filtered as they are read: copying them into an
    /// array of their own first cost a retain and a release per string of every row, a visible
    /// share of a query's time.
    private enum Content: Sendable {
        case rows(ArraySlice<QueryRow>, AccessPolicy)
        case records([RecordRow])
    }

    init(readScope: RequestScope, rows: ArraySlice<QueryRow>, access: AccessPolicy, continuationMarker: String?) {
        self.readScope = readScope
        self.content = .rows(rows, access)
        self.continuationMarker = continuationMarker
    }

    init(readScope: RequestScope, records: [RecordRow], continuationMarker: String?) {
        self.readScope = readScope
        self.content = .records(records)
        self.continuationMarker = continuationMarker
    }

    /// The records the caller may read, in the query's order (others are left out, not reported).
    public var records: [RecordRow] {
        get {
            var records: [RecordRow] = []
            forEachRecord { records.append($0) }
            return records
        }
        set { content = .records(newValue) }
    }

    /// Calls `body` with each record of `records`, without building the array.
    public func forEachRecord(_ body: (RecordRow) throws -> Void) rethrows {
        switch content {
        case .rows(let rows, let access):
            for row in rows where access.may(.read, recordType: row.record.recordType, creator: row.record.created.userRecordName) {
                try body(row.record)
            }
        case .records(let records):
            for record in records { try body(record) }
        }
    }
}

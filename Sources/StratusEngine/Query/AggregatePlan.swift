import StratusModel

/// What an aggregate reads, after validation: the query's filters, the functions with their
/// typed operands, and the grouping operand. Rendered to SQL by each store.
public struct AggregatePlan: Sendable, Hashable {
    public var query: QueryPlan
    public var functions: [AggregateFunction]
    public var groupBy: QueryOperand?
    /// At most this many groups, after skipping `offset` (groups are ordered by size, then key).
    public var limit: Int
    public var offset: Int

    public init(query: QueryPlan, functions: [AggregateFunction], groupBy: QueryOperand?, limit: Int, offset: Int) {
        self.query = query
        self.functions = functions
        self.groupBy = groupBy
        self.limit = limit
        self.offset = offset
    }
}

public struct AggregateFunction: Sendable, Hashable {
    public var kind: RecordAggregate.Kind
    /// `nil` for `count`.
    public var operand: QueryOperand?

    public init(kind: RecordAggregate.Kind, operand: QueryOperand?) {
        self.kind = kind
        self.operand = operand
    }
}

/// One group as the store returns it: the key and values as SQL gave them.
public struct AggregateRow: Sendable {
    public var key: SortKeyValue
    public var count: Int
    public var values: [SortKeyValue]

    public init(key: SortKeyValue, count: Int, values: [SortKeyValue]) {
        self.key = key
        self.count = count
        self.values = values
    }
}

import StratusModel

extension QueryPlanner {
    /// The CloudKit filters inside a group, at any depth: they count against the query's filter limit.
    static func filterCount(_ condition: RecordQuery.Condition) -> Int {
        switch condition {
        case .filter: return 1
        case .anyOf(let members, _), .allOf(let members, _): return members.map(filterCount).reduce(0, +)
        case .not(let member, _): return filterCount(member)
        }
    }

    /// A group as a plan filter. Every filter in every branch needs its index, as a top-level
    /// one does. A filter on a field the development schema lacks matches nothing, so it becomes
    /// an empty OR (false) in its branch rather than emptying the whole query.
    func planGroup(
        _ condition: RecordQuery.Condition, typeSchema: RecordTypeSchema, mode: SchemaMode,
        needed: inout [(String, IndexFlags)]
    ) throws -> QueryFilter {
        switch condition {
        case .filter(let requested):
            guard let parsed = try parseFilter(requested, typeSchema: typeSchema, mode: mode) else { return .anyOf([]) }
            needed.append((parsed.indexName, parsed.flag))
            needed.append(contentsOf: parsed.extraIndexes)
            return parsed.filter
        case .anyOf(let members, _):
            return .anyOf(try members.map { try planGroup($0, typeSchema: typeSchema, mode: mode, needed: &needed) })
        case .allOf(let members, _):
            return .allOf(try members.map { try planGroup($0, typeSchema: typeSchema, mode: mode, needed: &needed) })
        case .not(let member, _):
            return .not(try planGroup(member, typeSchema: typeSchema, mode: mode, needed: &needed))
        }
    }
}

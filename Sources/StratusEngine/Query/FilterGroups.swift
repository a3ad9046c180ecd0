import StratusModel

/// Stratus's boolean filter groups, an extension of CloudKit's `filterBy` (see
/// docs/decisions and docs/protocol.md). A `filterBy` element without a `comparator` that holds
/// exactly one of `anyOf` (an array: OR), `allOf` (an array: AND) or `not` (one element) is a
/// group; its members are CloudKit filters or further groups. A CloudKit filter always has a
/// `comparator`, so every CloudKit query keeps its meaning.
enum FilterGroups {
    static let keys = ["anyOf", "allOf", "not"]

    /// Groups nest at most this deep (a group inside a top-level group is depth 2).
    static let maximumDepth = 4

    static func isGroup(_ raw: JSONValue) -> Bool {
        guard let members = raw.objectValue, members["comparator"] == nil else { return false }
        return keys.contains { members[$0] != nil }
    }

    /// A CloudKit filter that also holds a group's key is refused rather than read as the filter
    /// alone, which would quietly drop the group.
    static func checkNotMixed(_ raw: JSONValue, path: String) throws {
        if let members = raw.objectValue, members["comparator"] != nil, let key = keys.first(where: { members[$0] != nil }) {
            throw WireError(path: "\(path).\(key)", problem: "a filter with a comparator cannot also be a group; put the filter inside the group")
        }
    }

    static func condition(_ raw: JSONValue, path: String, depth: Int) throws -> RecordQuery.Condition {
        guard isGroup(raw) else {
            try checkNotMixed(raw, path: path)
            return .filter(try QueryDictionary.filter(raw, path: path))
        }
        let members = raw.objectValue ?? [:]
        let present = keys.filter { members[$0] != nil }
        guard present.count == 1, let key = present.first else {
            throw WireError(path: path, problem: "a filter group holds exactly one of anyOf, allOf or not; this one has \(present.joined(separator: " and "))")
        }
        let groupPath = "\(path).\(key)"
        guard depth <= maximumDepth else {
            throw WireError(path: groupPath, problem: "filter groups nest at most \(maximumDepth) deep")
        }
        if key == "not" {
            guard let inner = members[key], inner.objectValue != nil else {
                throw WireError(path: groupPath, problem: "expected one filter or group (an object); use anyOf or allOf for several")
            }
            return .not(try condition(inner, path: groupPath, depth: depth + 1), path: groupPath)
        }
        guard let elements = members[key]?.arrayValue else {
            throw WireError(path: groupPath, problem: "expected an array of filters or groups")
        }
        if elements.isEmpty { throw WireError(path: groupPath, problem: "an empty group; give it at least one filter") }
        let conditions = try elements.enumerated().map { index, element in
            try condition(element, path: "\(groupPath)[\(index)]", depth: depth + 1)
        }
        return key == "anyOf" ? .anyOf(conditions, path: groupPath) : .allOf(conditions, path: groupPath)
    }
}

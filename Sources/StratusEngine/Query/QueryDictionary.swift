import StratusModel

/// Reads the CKWS query dictionary (`{recordType, filterBy, sortBy}`) into a `RecordQuery`'s
/// parts. records/query's decoder uses it, and so do query subscriptions, whose stored
/// definition keeps the dictionary as the client sent it. Filter values stay undecoded
/// (`RequestValue`) until the planner knows their fields' types.
package enum QueryDictionary {
    package struct Parts: Sendable {
        package var recordType: String
        package var filters: [RecordQuery.Filter]
        /// The Stratus filter groups among `filterBy`'s elements (see `FilterGroups`).
        package var groups: [RecordQuery.Condition]
        package var sorts: [RecordQuery.Sort]
        /// The dictionary's bytes, which continuation markers are bound to.
        package var fingerprint: [UInt8]
    }

    package static func decode(_ json: JSONValue, path: String = "query") throws(CloudKitError) -> Parts {
        do {
            let query = try JSONObjectReader(json, path: path)
            let recordType = try query.string("recordType")
            var filters: [RecordQuery.Filter] = []
            var groups: [RecordQuery.Condition] = []
            for (position, raw) in (try query.optionalArray("filterBy") ?? []).enumerated() {
                let elementPath = "\(path).filterBy[\(position)]"
                if FilterGroups.isGroup(raw) {
                    groups.append(try FilterGroups.condition(raw, path: elementPath, depth: 1))
                } else {
                    try FilterGroups.checkNotMixed(raw, path: elementPath)
                    filters.append(try filter(raw, path: elementPath))
                }
            }
            let sorts = try (query.optionalArray("sortBy") ?? []).enumerated().map { position, raw in
                try sort(raw, path: "\(path).sortBy[\(position)]")
            }
            var fingerprint: [UInt8] = []
            json.write(into: &fingerprint)
            return Parts(recordType: recordType, filters: filters, groups: groups, sorts: sorts, fingerprint: fingerprint)
        } catch {
            throw .parsing(error)
        }
    }

    static func filter(_ raw: JSONValue, path: String) throws -> RecordQuery.Filter {
        let reader = try JSONObjectReader(raw, path: path)
        let name = try reader.string("comparator").uppercased()
        guard let comparator = RecordQuery.Comparator(rawValue: name) else {
            throw WireError(path: "\(path).comparator", problem: "'\(name)' is not a comparator")
        }
        let field: RecordQuery.Field = reader["fieldName"]?.stringValue == allTokensField ? .allTokens : try operand(reader, path: path)
        let value = reader["fieldValue"].map { json in requestValue(json, path: "\(path).fieldValue") }
        let distance = comparator == .near ? try reader.optionalDouble("distance") : nil
        return RecordQuery.Filter(field: field, comparator: comparator, value: value, distance: distance, path: path)
    }

    static func sort(_ raw: JSONValue, path: String) throws -> RecordQuery.Sort {
        let reader = try JSONObjectReader(raw, path: path)
        let field = try operand(reader, path: path)
        let relativeTo = try reader["relativeLocation"].map { relative throws in
            try LocationValue(json: relative["value"] ?? relative, path: "\(path).relativeLocation")
        }
        return RecordQuery.Sort(field: field, ascending: try reader.bool("ascending", default: true), relativeTo: relativeTo, path: path)
    }

    /// `allTokens`: CloudKit's name for "any SEARCHABLE field" (`self CONTAINS 'x'`,
    /// `allTokens TOKENMATCHES[cdl] 'x y'`).
    static let allTokensField = "allTokens"

    /// `systemFieldName` (its CKWS or schema spelling), or `fieldName`, which may also be a
    /// system field's schema name (`___createTime`).
    package static func operand(_ reader: JSONObjectReader, path: String) throws -> RecordQuery.Field {
        if let system = try reader.optionalString("systemFieldName") {
            guard let field = SystemFieldName(rawValue: system) ?? SystemFieldName(schemaName: system) else {
                throw WireError(
                    path: "\(path).systemFieldName",
                    problem: "'\(system)' is not a system field; use one of \(SystemFieldName.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return .system(field)
        }
        let name = try reader.string("fieldName")
        if let system = SystemFieldName(schemaName: name) { return .system(system) }
        try NameRules.checkIdentifier(name, what: "field name", path: "\(path).fieldName")
        return .named(name)
    }

    /// A filter's `{"value": …, "type": …}`, decoded once the field's type is known. System
    /// reference fields (`createdUserRecordName`) also accept a bare record name; `recordName`
    /// accepts a reference dictionary.
    static func requestValue(_ json: JSONValue, path: String) -> RequestValue {
        RequestValue(path: path) { type, system in
            let reader = try JSONObjectReader(json, path: path)
            guard let raw = reader["value"] else { throw WireError(path: "\(path).value", problem: "is required") }
            if let system {
                if system.valueType == .reference, case .string(let name) = raw, !type.isList {
                    return .reference(ReferenceValue(recordName: name))
                }
                if system == .recordName, let name = raw["recordName"]?.stringValue { return .string(name) }
            }
            return try FieldValue.convert(raw, to: type, path: "\(path).value")
        }
    }
}

extension RecordQuery {
    /// A query from a CKWS query dictionary (records/query's `query`, a query subscription's).
    package init(dictionary: JSONValue, zoneID: ZoneID?, zoneName: String?, limit: Int, continuationMarker: String? = nil) throws(CloudKitError) {
        let parts = try QueryDictionary.decode(dictionary)
        self.init(
            recordType: parts.recordType, filters: parts.filters, groups: parts.groups, sorts: parts.sorts, zoneID: zoneID, zoneName: zoneName,
            limit: limit, continuationMarker: continuationMarker, fingerprint: parts.fingerprint)
    }
}

import StratusModel

/// Validates a CKWS query dictionary against the schema and produces a `QueryPlan`, listing the
/// index options the plan needs. It never plans a scan: every filter and sort needs its index.
struct QueryPlanner {
    let schema: Schema
    var limits = EngineLimits()

    /// A plan, or `nil` when the query can match nothing (an unknown type or field in development).
    struct Planned {
        var plan: QueryPlan?
        /// Index options the plan relies on, by record type field (`___` names for system fields).
        var needed: [(field: String, flags: IndexFlags)]
        var compound: CompoundIndex?
    }

    func plan(_ query: RecordQuery, mode: SchemaMode) throws(CloudKitError) -> Planned {
        do {
            let recordType = query.recordType
            try NameRules.checkIdentifier(recordType, what: "record type", path: "query.recordType")
            guard let typeSchema = schema.recordTypes[recordType] else {
                if mode == .justInTime { return Planned(plan: nil, needed: [], compound: nil) }
                throw CloudKitError.badRequest("Did not find record type: \(recordType)")
            }
            var needed: [(String, IndexFlags)] = []
            var filters: [QueryFilter] = []
            var equalityFields: [String] = []
            let filterCount = query.filters.count + query.groups.map(QueryPlanner.filterCount).reduce(0, +)
            if filterCount > limits.maximumQueryFilters {
                throw CloudKitError.badRequest("query.filterBy has \(filterCount) filters; the limit is \(limits.maximumQueryFilters) — narrow the query or filter the results yourself")
            }
            for requested in query.filters {
                guard let parsed = try parseFilter(requested, typeSchema: typeSchema, mode: mode) else {
                    return Planned(plan: nil, needed: [], compound: nil)
                }
                filters.append(parsed.filter)
                needed.append((parsed.indexName, parsed.flag))
                needed.append(contentsOf: parsed.extraIndexes)
                if case .compare(let operand, .equals, _) = parsed.filter { equalityFields.append(operand.indexName) }
            }
            for group in query.groups {
                filters.append(try planGroup(group, typeSchema: typeSchema, mode: mode, needed: &needed))
            }
            if filters.isEmpty { needed.append((SystemFieldName.recordName.schemaName, .queryable)) }
            var sorts: [QuerySort] = []
            if query.sorts.count > limits.maximumQueryFilters {
                throw CloudKitError.badRequest("query.sortBy has \(query.sorts.count) sort descriptors; the limit is \(limits.maximumQueryFilters)")
            }
            for requested in query.sorts {
                let path = requested.path
                guard let operand = try operand(requested.field, path: path, typeSchema: typeSchema, mode: mode) else {
                    return Planned(plan: nil, needed: [], compound: nil)
                }
                if requested.relativeTo != nil {
                    guard case .field(_, let type) = operand, type == FieldTypeDescriptor(.location) else {
                        throw CloudKitError.badRequest("\(path).relativeLocation: applies to LOCATION fields only; '\(operand.displayName)' is not one")
                    }
                } else if case .field(_, let type) = operand, !type.scalar.isOrdered || type.isList {
                    throw CloudKitError.badRequest("\(path): field '\(operand.displayName)' is \(type) and cannot be sorted")
                }
                sorts.append(QuerySort(operand: operand, ascending: requested.ascending, relativeTo: requested.relativeTo))
                needed.append((operand.indexName, .sortable))
            }
            var compound: CompoundIndex?
            if !equalityFields.isEmpty, let firstSort = sorts.first, firstSort.relativeTo == nil {
                compound = CompoundIndex(equalityFields: Array(Set(equalityFields)).sorted(), sortField: firstSort.operand.indexName)
            }
            let plan = QueryPlan(recordType: recordType, zoneName: query.zoneName, filters: filters, sorts: sorts, limit: query.limit)
            return Planned(plan: plan, needed: needed, compound: compound)
        } catch {
            throw .parsing(error)
        }
    }

    /// The field a filter or sort names, typed by the schema; `nil` for a field the schema lacks
    /// in development (the query matches nothing).
    func operand(_ field: RecordQuery.Field, path: String, typeSchema: RecordTypeSchema, mode: SchemaMode) throws -> QueryOperand? {
        let name: String
        switch field {
        case .system(let system): return .system(system)
        case .named(let named): name = named
        case .allTokens: name = QueryDictionary.allTokensField
        }
        guard let field = typeSchema.fields[name] else {
            if mode == .justInTime { return nil }
            throw CloudKitError.badRequest("Field '\(name)' is not in the schema of record type '\(typeSchema.name)'")
        }
        return .field(name: name, type: field.type)
    }

    struct ParsedFilter {
        var filter: QueryFilter
        var indexName: String
        var flag: IndexFlags
        /// Further index options the filter needs (allTokens: every searchable field).
        var extraIndexes: [(String, IndexFlags)] = []
    }

    func parseFilter(_ requested: RecordQuery.Filter, typeSchema: RecordTypeSchema, mode: SchemaMode) throws -> ParsedFilter? {
        let comparator = requested.comparator.rawValue
        let path = requested.path
        if requested.field == .allTokens {
            return try parseAllTokens(requested, typeSchema: typeSchema, mode: mode)
        }
        guard let operand = try operand(requested.field, path: path, typeSchema: typeSchema, mode: mode) else { return nil }
        guard let value = requested.value else { throw WireError(path: "\(path).fieldValue", problem: "is required") }
        let scalarType: FieldType
        let isList: Bool
        switch operand {
        case .field(_, let type): scalarType = type.scalar; isList = type.isList
        case .system(let system): scalarType = system.valueType; isList = false
        }
        let valuePath = "\(path).fieldValue"
        // A location compares by distance only, an asset not at all: any other comparator on them
        // would quietly match nothing.
        if comparator != "NEAR", scalarType == .location || scalarType == .asset {
            let use = scalarType == .location ? "filter LOCATION fields with NEAR" : "ASSET fields cannot be filtered"
            throw CloudKitError.badRequest("\(path): \(comparator) does not apply to \(scalarType.rawValue) field '\(operand.displayName)'; \(use)")
        }
        let system: SystemFieldName? = if case .system(let field) = operand { field } else { nil }
        func scalar() throws -> FieldValue { try value.decode(as: FieldTypeDescriptor(scalarType), comparing: system) }
        func list() throws -> [FieldValue] {
            guard case .list(_, let elements) = try value.decode(as: FieldTypeDescriptor(scalarType, isList: true), comparing: system) else { return [] }
            if elements.count > limits.maximumQueryFilterValues {
                throw CloudKitError.badRequest("\(valuePath) lists \(elements.count) values; the limit is \(limits.maximumQueryFilterValues) per filter — split the query")
            }
            return elements
        }
        func requireScalarField() throws {
            if isList { throw CloudKitError.badRequest("\(path): \(comparator) does not apply to list field '\(operand.displayName)'; use the LIST_* comparators") }
        }
        func requireListField() throws -> String {
            guard isList, case .field(let name, _) = operand else {
                throw CloudKitError.badRequest("\(path): \(comparator) applies to list fields; '\(operand.displayName)' is not a list")
            }
            return name
        }
        func requireStringType() throws {
            if scalarType != .string && !(operand == .system(.recordName)) {
                throw CloudKitError.badRequest("\(path): \(comparator) applies to STRING fields; '\(operand.displayName)' is \(scalarType.rawValue)")
            }
        }
        func prefix() throws -> String {
            guard case .string(let text) = try value.decode(as: FieldTypeDescriptor(.string)) else {
                throw WireError(path: valuePath, problem: "expected a string prefix")
            }
            return text
        }
        let comparisons: [String: Comparison] = [
            "EQUALS": .equals, "NOT_EQUALS": .notEquals, "LESS_THAN": .lessThan, "LESS_THAN_OR_EQUALS": .lessThanOrEquals,
            "GREATER_THAN": .greaterThan, "GREATER_THAN_OR_EQUALS": .greaterThanOrEquals,
        ]
        if let comparison = comparisons[comparator] {
            try requireScalarField()
            let equality = comparison == .equals || comparison == .notEquals
            if !equality, !scalarType.isOrdered {
                throw CloudKitError.badRequest("\(path): \(comparator) needs an ordered type; '\(operand.displayName)' is \(scalarType.rawValue)")
            }
            return ParsedFilter(
                filter: .compare(operand, comparison, try scalar()), indexName: operand.indexName,
                flag: equality ? .queryable : .sortable)
        }
        switch comparator {
        case "IN", "NOT_IN":
            try requireScalarField()
            return ParsedFilter(filter: .oneOf(operand, try list(), negated: comparator == "NOT_IN"), indexName: operand.indexName, flag: .queryable)
        case "BEGINS_WITH", "NOT_BEGINS_WITH":
            try requireScalarField()
            try requireStringType()
            return ParsedFilter(
                filter: .beginsWith(operand, try prefix(), negated: comparator == "NOT_BEGINS_WITH"),
                indexName: operand.indexName, flag: .queryable)
        case "NEAR":
            guard case .field(_, let type) = operand, type == FieldTypeDescriptor(.location) else {
                throw CloudKitError.badRequest("\(path): NEAR applies to LOCATION fields; '\(operand.displayName)' is not one")
            }
            guard case .location(let centre) = try scalar() else { throw WireError(path: valuePath, problem: "expected a location") }
            guard let distance = requested.distance, distance >= 0 else {
                throw WireError(path: "\(path).distance", problem: "NEAR needs a non-negative distance in metres")
            }
            return ParsedFilter(filter: .near(operand, centre, metres: distance), indexName: operand.indexName, flag: .queryable)
        case "CONTAINS_ALL_TOKENS", "CONTAINS_ANY_TOKENS":
            guard case .field(let name, let type) = operand, type.scalar == .string else {
                throw CloudKitError.badRequest("\(path): \(comparator) applies to SEARCHABLE STRING fields; '\(operand.displayName)' is not a string field")
            }
            guard case .string(let text) = try value.decode(as: FieldTypeDescriptor(.string)) else {
                throw WireError(path: valuePath, problem: "expected a string of tokens")
            }
            let tokens = TextTokenizer.tokens(text)
            if tokens.isEmpty { throw CloudKitError.badRequest("\(valuePath): no searchable tokens in '\(text.prefix(80))'") }
            return ParsedFilter(
                filter: .tokens(field: name, tokens: tokens, matchAll: comparator == "CONTAINS_ALL_TOKENS"),
                indexName: name, flag: .searchable)
        case "LIST_CONTAINS", "NOT_LIST_CONTAINS":
            let name = try requireListField()
            return ParsedFilter(filter: .listContains(field: name, try scalar(), negated: comparator.hasPrefix("NOT_")), indexName: name, flag: .queryable)
        case "LIST_CONTAINS_ANY", "NOT_LIST_CONTAINS_ANY":
            let name = try requireListField()
            return ParsedFilter(filter: .listContainsAny(field: name, try list(), negated: comparator.hasPrefix("NOT_")), indexName: name, flag: .queryable)
        case "LIST_CONTAINS_ALL", "NOT_LIST_CONTAINS_ALL":
            let name = try requireListField()
            return ParsedFilter(filter: .listContainsAll(field: name, try list(), negated: comparator.hasPrefix("NOT_")), indexName: name, flag: .queryable)
        case "LIST_MEMBER_BEGINS_WITH", "NOT_LIST_MEMBER_BEGINS_WITH":
            let name = try requireListField()
            if scalarType != .string { throw CloudKitError.badRequest("\(path): \(comparator) applies to lists of STRING") }
            return ParsedFilter(filter: .listMemberBeginsWith(field: name, try prefix(), negated: comparator.hasPrefix("NOT_")), indexName: name, flag: .queryable)
        default:
            throw WireError(path: "\(path).comparator", problem: "'\(comparator)' is not a comparator")
        }
    }

    /// `allTokens`: every SEARCHABLE string field of the type.
    func parseAllTokens(_ requested: RecordQuery.Filter, typeSchema: RecordTypeSchema, mode: SchemaMode) throws -> ParsedFilter {
        let path = requested.path
        guard requested.comparator == .containsAllTokens || requested.comparator == .containsAnyTokens else {
            throw CloudKitError.badRequest("\(path): allTokens supports CONTAINS_ALL_TOKENS and CONTAINS_ANY_TOKENS only, not \(requested.comparator.rawValue)")
        }
        guard let value = requested.value, case .string(let text) = try value.decode(as: FieldTypeDescriptor(.string)) else {
            throw WireError(path: "\(path).fieldValue", problem: "expected a string of tokens")
        }
        let comparator = requested.comparator.rawValue
        let tokens = TextTokenizer.tokens(text)
        if tokens.isEmpty { throw CloudKitError.badRequest("\(path).fieldValue: no searchable tokens in '\(text.prefix(80))'") }
        let strings = typeSchema.fields.values.filter { $0.type.scalar == .string }.map(\.name).sorted()
        var searchable = strings.filter { typeSchema.fields[$0]?.indexes.contains(.searchable) == true }
        if searchable.isEmpty {
            // Development makes every string field searchable; production needs at least one.
            guard mode == .justInTime, !strings.isEmpty else {
                throw CloudKitError.badRequest("no field of record type '\(typeSchema.name)' is marked searchable; allTokens searches the SEARCHABLE fields")
            }
            searchable = strings
        }
        return ParsedFilter(
            filter: .tokens(field: QueryDictionary.allTokensField, tokens: tokens, matchAll: comparator == "CONTAINS_ALL_TOKENS"),
            indexName: searchable[0], flag: .searchable, extraIndexes: searchable.dropFirst().map { ($0, .searchable) })
    }
}

import StratusModel

extension Engine {
    /// records/aggregate (a Stratus extension): the functions over the records the caller's query
    /// returns, one group per value of `groupBy`, the largest groups first. The caller's read rule
    /// applies as for records/count.
    public func aggregate(_ scope: RequestScope, _ request: RecordAggregate) async throws -> AggregatePage {
        let store = scope.store
        if store.scope == .shared {
            throw CloudKitError.badRequest("records/aggregate answers in the public and private databases; in the shared database use records/count, or query the records")
        }
        let mode = SchemaMode(store.environment)
        let schema = try await self.schema(container: store.container, environment: store.environment)
        let recordType = request.query.recordType
        guard let typeSchema = schema.recordTypes[recordType] else {
            if mode == .justInTime { return AggregatePlanner.empty(request) }
            throw CloudKitError.badRequest("Did not find record type: \(recordType)")
        }
        let resolved = try AggregatePlanner(typeSchema: typeSchema).resolve(request)
        let planned = try await planQuery(store: store, query: request.query, mode: mode, alsoNeeds: resolved.needed)
        guard var queryPlan = planned.plan else { return AggregatePlanner.empty(request) }
        switch ReadableRecords(scope.access, recordType: recordType) {
        case .none: return AggregatePlanner.empty(request)
        case .all: break
        case .createdBy(let user):
            queryPlan.filters.append(.compare(.system(.createdUserRecordName), .equals, .reference(ReferenceValue(recordName: user))))
        }
        queryPlan.sorts = []
        let markerCodec = ContinuationMarker(envelope: envelope())
        let digest = ContinuationMarker.digest(store: store, fingerprint: request.query.fingerprint, zoneName: request.query.zoneName)
        var offset = 0
        if let marker = request.continuationMarker {
            guard case .integer(let skipped)? = try markerCodec.decode(marker, queryDigest: digest).sortKeys.first, skipped >= 0 else {
                throw CloudKitError.badRequest("continuationMarker is not valid for records/aggregate; start again without it")
            }
            offset = Int(skipped)
        }
        let limit = request.groupBy == nil ? 1 : request.groupLimit
        let plan = AggregatePlan(query: queryPlan, functions: resolved.functions, groupBy: resolved.groupBy, limit: limit + 1, offset: offset)
        let zoneID = request.query.zoneID
        let rows = try await storage.read { reader in
            if let zoneID { try await self.checkZoneExists(store, zoneID, reader: reader) }
            return try await reader.aggregate(store, plan: plan)
        }
        var groups: [AggregateGroup] = rows.prefix(limit).map { row in
            AggregateGroup(
                key: resolved.groupBy == nil ? nil : AggregatePlanner.value(row.key, type: resolved.keyType),
                count: row.count,
                values: zip(row.values, resolved.valueTypes).map { pair in AggregatePlanner.value(pair.0, type: pair.1) })
        }
        if resolved.groupBy == nil, groups.isEmpty { groups = AggregatePlanner.empty(request).groups }
        var marker: String?
        if rows.count > limit {
            let position = QueryPosition(sortKeys: [.integer(Int64(offset + limit))], zoneName: "", recordName: "")
            marker = markerCodec.encode(position, queryDigest: digest)
        }
        return AggregatePage(groups: groups, continuationMarker: marker, keyType: resolved.keyType, valueTypes: resolved.valueTypes)
    }
}

/// Checks an aggregate's functions and grouping against the record type's schema.
struct AggregatePlanner {
    let typeSchema: RecordTypeSchema

    struct Resolved {
        var functions: [AggregateFunction]
        var groupBy: QueryOperand?
        var keyType: FieldTypeDescriptor?
        var valueTypes: [FieldTypeDescriptor?]
        /// Index options the functions and grouping need, as the query's filters do.
        var needed: [(String, IndexFlags)]
    }

    func resolve(_ request: RecordAggregate) throws(CloudKitError) -> Resolved {
        if request.functions.isEmpty { throw CloudKitError.badRequest("aggregates: give at least one of \(RecordAggregate.Kind.allCases.map(\.rawValue).joined(separator: ", "))") }
        var functions: [AggregateFunction] = []
        var valueTypes: [FieldTypeDescriptor?] = []
        var needed: [(String, IndexFlags)] = []
        for function in request.functions {
            guard let field = function.field else {
                guard function.kind == .count else { throw CloudKitError.badRequest("\(function.path).fieldName: \(function.kind.rawValue) needs a field") }
                functions.append(AggregateFunction(kind: .count, operand: nil))
                valueTypes.append(FieldTypeDescriptor(.int64))
                continue
            }
            let (operand, type) = try operand(field, path: function.path)
            let numeric = type == .int64 || type == .double
            let allowed = function.kind == .min || function.kind == .max ? numeric || type == .timestamp : function.kind == .count || numeric
            if !allowed {
                let wanted = function.kind == .min || function.kind == .max ? "INT64, DOUBLE or TIMESTAMP" : "INT64 or DOUBLE"
                throw CloudKitError.badRequest("\(function.path): \(function.kind.rawValue) applies to \(wanted) fields; '\(operand.displayName)' is \(type.rawValue)")
            }
            functions.append(AggregateFunction(kind: function.kind, operand: operand))
            switch function.kind {
            case .count: valueTypes.append(FieldTypeDescriptor(.int64))
            case .avg: valueTypes.append(FieldTypeDescriptor(.double))
            case .sum, .min, .max: valueTypes.append(FieldTypeDescriptor(type))
            }
            needed.append((operand.indexName, .queryable))
        }
        var groupBy: QueryOperand?
        var keyType: FieldTypeDescriptor?
        if let grouping = request.groupBy {
            let (operand, type) = try operand(grouping.field, path: grouping.path)
            guard [.string, .int64, .double, .timestamp, .reference].contains(type) else {
                throw CloudKitError.badRequest("\(grouping.path): groups are formed by STRING, INT64, DOUBLE, TIMESTAMP or REFERENCE fields; '\(operand.displayName)' is \(type.rawValue)")
            }
            groupBy = operand
            keyType = FieldTypeDescriptor(type)
            needed.append((operand.indexName, .queryable))
        }
        return Resolved(functions: functions, groupBy: groupBy, keyType: keyType, valueTypes: valueTypes, needed: needed)
    }

    /// A scalar field or a timestamp or user system field, with its type.
    func operand(_ field: RecordQuery.Field, path: String) throws(CloudKitError) -> (QueryOperand, FieldType) {
        switch field {
        case .allTokens: throw CloudKitError.badRequest("\(path).fieldName: allTokens cannot be aggregated or grouped")
        case .system(let system):
            guard [.createdTimestamp, .modifiedTimestamp, .createdUserRecordName, .modifiedUserRecordName].contains(system) else {
                throw CloudKitError.badRequest("\(path).systemFieldName: '\(system.rawValue)' cannot be aggregated or grouped")
            }
            return (.system(system), system.valueType)
        case .named(let name):
            guard let schemaField = typeSchema.fields[name] else {
                throw CloudKitError.badRequest("\(path).fieldName: field '\(name)' is not in the schema of record type '\(typeSchema.name)'")
            }
            if schemaField.type.isList {
                throw CloudKitError.badRequest("\(path).fieldName: '\(name)' is a list (\(schemaField.type)); aggregates read scalar fields")
            }
            return (.field(name: name, type: schemaField.type), schemaField.type.scalar)
        }
    }

    /// The answer when nothing can match: one empty group without grouping, no groups with it.
    static func empty(_ request: RecordAggregate) -> AggregatePage {
        let groups = request.groupBy == nil ? [AggregateGroup(key: nil, count: 0, values: request.functions.map { $0.kind == .count ? .int64(0) : nil })] : []
        return AggregatePage(groups: groups, continuationMarker: nil, keyType: nil, valueTypes: request.functions.map { _ in nil })
    }

    /// A value SQL returned, as the field type it belongs to.
    static func value(_ raw: SortKeyValue, type: FieldTypeDescriptor?) -> FieldValue? {
        guard let type else { return nil }
        switch (raw, type.scalar) {
        case (.null, _): return nil
        case (.integer(let n), .int64): return .int64(n)
        case (.integer(let n), .timestamp): return .timestamp(n)
        case (.integer(let n), .double): return .double(Double(n))
        case (.real(let d), .double): return .double(d)
        case (.real(let d), .int64): return .int64(Int64(d))
        case (.real(let d), .timestamp): return .timestamp(Int64(d))
        case (.text(let s), .string): return .string(s)
        case (.text(let s), .reference): return .reference(ReferenceValue(recordName: s))
        case (.text(let s), .int64): return Int64(s).map(FieldValue.int64)
        case (.text(let s), .double): return Double(s).map(FieldValue.double)
        default: return nil
        }
    }
}

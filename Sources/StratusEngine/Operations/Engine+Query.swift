import Foundation
import StratusModel

extension Engine {
    /// records/query.
    public func queryRecords(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        let request = try QueryRequest(json: body, limits: limits)
        let (queryJSON, zoneID, zoneName, limit) = (request.queryJSON, request.zoneID, request.zoneName, request.limit)
        let mode = SchemaMode(store.environment)

        var planned = try await planQuery(store: store, queryJSON: queryJSON, zoneName: zoneName, limit: limit, mode: mode)
        guard var plan = planned.plan else { return .object(["records": .array([])]) }
        planned.plan = nil
        let markerCodec = ContinuationMarker(envelope: envelope())
        let digest = ContinuationMarker.digest(store: store, queryJSON: queryJSON, zoneName: zoneName)
        if let marker = request.continuationMarker { plan.after = try markerCodec.decode(marker, queryDigest: digest) }
        plan.limit = limit + 1
        let finalPlan = plan
        let rows = try await storage.read { reader in
            if let zoneID { try await self.checkZoneExists(store, zoneID, reader: reader) }
            return try await reader.query(store, plan: finalPlan)
        }
        let page = rows.prefix(limit)
        let renderer = RecordRenderer(store: store, desiredKeys: request.desiredKeys.map(Set.init), numbersAsStrings: request.numbersAsStrings,
                                      assetLinks: assetLinks(scope), viewer: scope.caller.userRecordName)
        // Records the caller may not read are left out, not reported (docs/protocol.md §12.1).
        let access = scope.access
        // One pass over the rows: filtering into a new array first copied every row (a retain
        // and a release per string, a visible share of a query's profile).
        var records: [JSONValue] = []
        records.reserveCapacity(page.count)
        for row in page where access.may(.read, recordType: row.record.recordType, creator: row.record.created.userRecordName) {
            records.append(renderer.render(row.record))
        }
        var response: [String: JSONValue] = ["records": .array(records)]
        if rows.count > limit, let last = page.last {
            response["continuationMarker"] = .string(markerCodec.encode(last.position, queryDigest: digest))
        }
        return .object(response)
    }

    /// Plans the query; in development, adds the index options it needs (and logs that it did),
    /// in production refuses a query whose fields are not indexed, with CloudKit's message.
    func planQuery(store: StoreKey, queryJSON: JSONValue, zoneName: String?, limit: Int, mode: SchemaMode) async throws -> QueryPlanner.Planned {
        let schema = try await self.schema(container: store.container, environment: store.environment)
        let planned = try QueryPlanner(schema: schema, limits: limits).plan(queryJSON: queryJSON, zoneName: zoneName, limit: limit, mode: mode)
        guard let plan = planned.plan, let typeSchema = schema.recordTypes[plan.recordType] else { return planned }
        var updated = typeSchema
        for (field, flags) in planned.needed {
            let present: IndexFlags
            if let system = SystemFieldName(schemaName: field) {
                present = updated.systemIndexes[system] ?? []
                if !present.contains(flags) { updated.systemIndexes[system, default: []].formUnion(flags) }
            } else {
                present = updated.fields[field]?.indexes ?? []
                if !present.contains(flags) { updated.fields[field]?.indexes.formUnion(flags) }
            }
            if !present.contains(flags), mode == .enforced {
                let display = SystemFieldName(schemaName: field)?.rawValue ?? field
                let word = flags.contains(.searchable) ? "searchable" : flags.contains(.sortable) ? "sortable" : "queryable"
                throw CloudKitError.badRequest("Field '\(display)' is not marked \(word)")
            }
        }
        if let compound = planned.compound, mode == .justInTime, !updated.compoundIndexes.contains(compound) {
            updated.compoundIndexes.append(compound)
        }
        if updated != typeSchema {
            try await addIndexes(updated, previous: typeSchema, store: store)
        }
        return planned
    }

    func addIndexes(_ updated: RecordTypeSchema, previous: RecordTypeSchema, store: StoreKey) async throws {
        let container = store.container
        let environment = store.environment
        try await writeWithSchema(container: container, environment: environment) { writer in
            try await self.saveSchemaChanges([updated], container: container, environment: environment, writer: writer)
        }
        await announce([.schemaChanged(container: container, environment: environment)])
        logger.notice("schema: development query needed new indexes on record type '\(updated.name)' in \(container); added them (they deploy to production with the schema)")
    }
}

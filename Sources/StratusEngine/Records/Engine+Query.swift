import Foundation
import StratusModel

extension Engine {
    /// records/query: one page of the records the caller may read, in the query's order.
    public func query(_ scope: RequestScope, _ query: RecordQuery) async throws -> QueryPage {
        if scope.store.scope == .shared { return try await queryShared(scope, query) }
        let store = scope.store
        let limit = query.limit
        let mode = SchemaMode(store.environment)
        var planned = try await planQuery(store: store, query: query, mode: mode)
        guard var plan = planned.plan else { return QueryPage(readScope: scope, records: [], continuationMarker: nil) }
        planned.plan = nil
        let markerCodec = ContinuationMarker(envelope: envelope())
        let digest = ContinuationMarker.digest(store: store, fingerprint: query.fingerprint, zoneName: query.zoneName)
        if let marker = query.continuationMarker { plan.after = try markerCodec.decode(marker, queryDigest: digest) }
        plan.limit = limit + 1
        let finalPlan = plan
        let zoneID = query.zoneID
        let rows = try await storage.read { reader in
            if let zoneID { try await self.checkZoneExists(store, zoneID, reader: reader) }
            return try await reader.query(store, plan: finalPlan)
        }
        let page = rows.prefix(limit)
        var marker: String?
        if rows.count > limit, let last = page.last {
            marker = markerCodec.encode(last.position, queryDigest: digest)
        }
        // Records the caller may not read are left out, not reported (docs/protocol.md §12.1).
        return QueryPage(readScope: scope, rows: page, access: scope.access, continuationMarker: marker)
    }

    /// A query in the participant's shared database: one owner's zone, and of its records those
    /// the caller's shares cover (all of them under a zone-wide share).
    func queryShared(_ scope: RequestScope, _ query: RecordQuery) async throws -> QueryPage {
        guard let zoneID = query.zoneID else {
            throw CloudKitError.badRequest("zoneID: is required in the shared database; name the shared zone and its owner")
        }
        let owned = try ownerScope(scope, zoneID: zoneID)
        let access = try await storage.read { reader in
            try await ShareAccess.load(caller: scope.caller.effectiveRecordName, store: owned.store, zoneName: zoneID.zoneName, reader: reader)
        }
        var page = try await self.query(owned, query)
        guard !access.shares.contains(where: \.isZoneWide) else { return page }
        let candidates = page.records
        page.records = try await storage.read { reader in
            var kept: [RecordRow] = []
            for record in candidates where try await access.mayRead(record.recordName, reader: reader) { kept.append(record) }
            return kept
        }
        return page
    }

    /// Plans the query; in development, adds the index options it needs (and logs that it did),
    /// in production refuses a query whose fields are not indexed, with CloudKit's message.
    /// `alsoNeeds`: index options the caller's use of the query needs beyond its filters and sorts
    /// (an aggregate's fields).
    func planQuery(store: StoreKey, query: RecordQuery, mode: SchemaMode, alsoNeeds: [(String, IndexFlags)] = []) async throws -> QueryPlanner.Planned {
        let schema = try await self.schema(container: store.container, environment: store.environment)
        var planned = try QueryPlanner(schema: schema, limits: limits).plan(query, mode: mode)
        if planned.plan != nil { planned.needed += alsoNeeds }
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

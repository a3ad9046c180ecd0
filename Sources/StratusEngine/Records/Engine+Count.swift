import StratusModel

extension Engine {
    /// records/count (a Stratus extension): how many records the query returns over all its
    /// pages, to this caller. Counted by the database, with the caller's read rule as a filter,
    /// so a count never includes a record the caller's query would leave out.
    public func countRecords(_ scope: RequestScope, _ query: RecordQuery) async throws -> Int {
        if scope.store.scope == .shared { return try await countShared(scope, query) }
        let store = scope.store
        let planned = try await planQuery(store: store, query: query, mode: SchemaMode(store.environment))
        guard var plan = planned.plan else { return 0 }
        switch ReadableRecords(scope.access, recordType: plan.recordType) {
        case .none: return 0
        case .all: break
        case .createdBy(let user):
            plan.filters.append(.compare(.system(.createdUserRecordName), .equals, .reference(ReferenceValue(recordName: user))))
        }
        plan.sorts = []
        let finalPlan = plan
        let zoneID = query.zoneID
        return try await storage.read { reader in
            if let zoneID { try await self.checkZoneExists(store, zoneID, reader: reader) }
            return try await reader.count(store, plan: finalPlan)
        }
    }

    /// In the shared database a record counts when one of the caller's shares covers it, which
    /// only the share rows can tell: the query's pages are read and their records counted.
    func countShared(_ scope: RequestScope, _ query: RecordQuery) async throws -> Int {
        var paged = query
        paged.limit = limits.maximumResultsPerResponse
        paged.continuationMarker = nil
        var total = 0
        repeat {
            let page = try await queryShared(scope, paged)
            page.forEachRecord { _ in total += 1 }
            paged.continuationMarker = page.continuationMarker
        } while paged.continuationMarker != nil
        return total
    }
}

/// Which records of a type a caller may read, as a condition a count can apply in the database:
/// the same rule `AccessPolicy.may(.read, …)` applies to each record a query returns.
enum ReadableRecords: Equatable {
    case all
    case none
    /// Only the records this user created (the `_creator` role's grant).
    case createdBy(String)

    init(_ access: AccessPolicy, recordType: String) {
        if access.may(.read, recordType: recordType, creator: nil) {
            self = .all
        } else if let user = access.userRecordName, access.may(.read, recordType: recordType, creator: user) {
            self = .createdBy(user)
        } else {
            self = .none
        }
    }
}

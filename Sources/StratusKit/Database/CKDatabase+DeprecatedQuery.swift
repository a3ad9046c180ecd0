import Foundation

extension CKDatabase {
    /// Runs a query and returns the records of its first page; a match that failed to load is
    /// left out. Disfavoured, so a call that reads `matchResults` resolves to the current form.
    @_disfavoredOverload
    @available(*, deprecated, message: "Use records(matching:inZoneWith:desiredKeys:resultsLimit:)")
    public func records(matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        try await firstPageRecords(matching: query, inZoneWith: zoneID)
    }

    /// The loaded records of a query's first page, as the deprecated query calls return them.
    func firstPageRecords(matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?) async throws -> [CKRecord] {
        try await records(matching: query, inZoneWith: zoneID).matchResults.compactMap { try? $0.1.get() }
    }
}

import Foundation

// The async convenience API of CKDatabase (iOS 15 / macOS 12 shapes).

extension CKDatabase {
    /// Fetches one record; throws `unknownItem` when it does not exist.
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        guard let (_, result) = try await lookupRecords([recordID], desiredKeys: nil).first else {
            throw CKError(.serverResponseLost, "records/lookup returned nothing")
        }
        return try result.get()
    }

    /// Fetches records by ID; each ID maps to its record or its error.
    public func records(for ids: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        Dictionary(try await lookupRecords(ids, desiredKeys: desiredKeys), uniquingKeysWith: { first, _ in first })
    }

    /// Saves one record (a conflict throws `serverRecordChanged` with `serverRecord`).
    @discardableResult
    public func save(_ record: CKRecord) async throws -> CKRecord {
        let outcome = try await modify(saving: [record], deleting: [], policy: .ifServerRecordUnchanged, atomically: true)
        guard let (_, result) = outcome.saves.first else { throw CKError(.serverResponseLost, "records/modify returned nothing") }
        return try result.get()
    }

    /// Deletes one record.
    @discardableResult
    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        let outcome = try await modify(saving: [], deleting: [recordID], policy: .ifServerRecordUnchanged, atomically: true)
        guard let (_, result) = outcome.deletes.first else { throw CKError(.serverResponseLost, "records/modify returned nothing") }
        try result.get()
        return recordID
    }

    /// Saves and deletes records in batches the server accepts. Item failures are in the
    /// results; only a failure of the whole request throws.
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged,
        atomically: Bool = true
    ) async throws
        -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>])
    {
        let outcome = try await modify(saving: recordsToSave, deleting: recordIDsToDelete, policy: savePolicy, atomically: atomically)
        return (
            Dictionary(outcome.saves, uniquingKeysWith: { _, last in last }),
            Dictionary(outcome.deletes, uniquingKeysWith: { _, last in last })
        )
    }

    /// Runs a query and returns the first page of matches and a cursor when there are more.
    public func records(
        matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws
        -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?)
    {
        let page = try await queryPage(query, cursor: nil, zoneID: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        return (page.results, page.cursor)
    }

    /// Continues a query from a cursor.
    public func records(
        continuingMatchFrom queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws
        -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?)
    {
        let page = try await queryPage(nil, cursor: queryCursor, zoneID: nil, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        return (page.results, page.cursor)
    }

    /// Fetches one zone; throws `zoneNotFound` when it does not exist.
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        guard let (_, result) = try await lookupZones([zoneID]).first else {
            throw CKError(.serverResponseLost, "zones/lookup returned nothing")
        }
        return try result.get()
    }

    /// Fetches zones by ID.
    public func recordZones(for ids: [CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        Dictionary(try await lookupZones(ids), uniquingKeysWith: { first, _ in first })
    }

    /// Every zone of the database.
    public func allRecordZones() async throws -> [CKRecordZone] {
        try await listZones()
    }

    /// Creates a zone.
    @discardableResult
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        guard let (_, result) = try await modifyZones(saving: [zone], deleting: []).saves.first else {
            throw CKError(.serverResponseLost, "zones/modify returned nothing")
        }
        return try result.get()
    }

    /// Deletes a zone and every record in it.
    @discardableResult
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        guard let (_, result) = try await modifyZones(saving: [], deleting: [zoneID]).deletes.first else {
            throw CKError(.serverResponseLost, "zones/modify returned nothing")
        }
        try result.get()
        return zoneID
    }

    /// Creates and deletes zones.
    public func modifyRecordZones(saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID]) async throws
        -> (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>])
    {
        let outcome = try await modifyZones(saving: recordZonesToSave, deleting: recordZoneIDsToDelete)
        return (
            Dictionary(outcome.saves, uniquingKeysWith: { _, last in last }),
            Dictionary(outcome.deletes, uniquingKeysWith: { _, last in last })
        )
    }
}

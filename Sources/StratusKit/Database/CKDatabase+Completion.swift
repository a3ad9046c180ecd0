import Foundation

// The completion-handler convenience API of CKDatabase. Handlers are called once, on a
// background task, as in Apple's SDK (which calls them on a private queue).

extension CKDatabase {
    func complete<T>(
        _ work: @escaping @Sendable () async throws -> T,
        _ handler: @escaping @Sendable (T?, (any Error)?) -> Void
    ) {
        Task {
            do { handler(try await work(), nil) } catch { handler(nil, error) }
        }
    }

    func completeResult<T>(
        _ work: @escaping @Sendable () async throws -> T,
        _ handler: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        Task {
            do { handler(.success(try await work())) } catch { handler(.failure(error)) }
        }
    }

    /// Fetches one record.
    public func fetch(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete({ try await self.record(for: recordID) }, completionHandler)
    }

    /// Saves one record.
    public func save(_ record: CKRecord, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete({ try await self.save(record) }, completionHandler)
    }

    /// Deletes one record.
    public func delete(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        complete({ try await self.deleteRecord(withID: recordID) }, completionHandler)
    }

    /// Runs a query and returns the first page of matching records.
    @available(*, deprecated, message: "Use fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:)")
    public func perform(
        _ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?,
        completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void
    ) {
        complete(
            {
                try await self.firstPageRecords(matching: query, inZoneWith: zoneID)
            }, completionHandler)
    }

    /// Fetches records by ID.
    public func fetch(
        withRecordIDs recordIDs: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil,
        completionHandler: @escaping @Sendable (Result<[CKRecord.ID: Result<CKRecord, any Error>], any Error>) -> Void
    ) {
        completeResult({ try await self.records(for: recordIDs, desiredKeys: desiredKeys) }, completionHandler)
    }

    /// Saves and deletes records.
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true,
        completionHandler: @escaping @Sendable (Result<(saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]), any Error>) -> Void
    ) {
        completeResult(
            {
                try await self.modifyRecords(saving: recordsToSave, deleting: recordIDsToDelete, savePolicy: savePolicy, atomically: atomically)
            }, completionHandler)
    }

    /// Runs a query.
    public func fetch(
        withQuery query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<(matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?), any Error>) -> Void
    ) {
        completeResult(
            {
                try await self.records(matching: query, inZoneWith: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
            }, completionHandler)
    }

    /// Continues a query from a cursor.
    public func fetch(
        withCursor queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<(matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?), any Error>) -> Void
    ) {
        completeResult(
            {
                try await self.records(continuingMatchFrom: queryCursor, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
            }, completionHandler)
    }

    /// Every zone of the database.
    public func fetchAllRecordZones(completionHandler: @escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) {
        complete({ try await self.allRecordZones() }, completionHandler)
    }

    /// Fetches one zone.
    public func fetch(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete({ try await self.recordZone(for: zoneID) }, completionHandler)
    }

    /// Creates a zone.
    public func save(_ zone: CKRecordZone, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete({ try await self.save(zone) }, completionHandler)
    }

    /// Deletes a zone.
    public func delete(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void) {
        complete({ try await self.deleteRecordZone(withID: zoneID) }, completionHandler)
    }
}

import Foundation

// Completion-handler forms of the zone batch calls and the change feeds. Each handler gets the
// async form's answer, or the error that failed the whole call.

extension CKDatabase {
    /// Fetches zones by ID, one result per ID.
    public func fetch(
        withRecordZoneIDs zoneIDs: [CKRecordZone.ID],
        completionHandler: @escaping @Sendable (Result<[CKRecordZone.ID: Result<CKRecordZone, any Error>], any Error>) -> Void
    ) {
        completeResult({ try await self.recordZones(for: zoneIDs) }, completionHandler)
    }

    /// Creates and deletes zones, one result per zone.
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID],
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>],
                        deleteResults: [CKRecordZone.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) {
        completeResult({ try await self.modifyRecordZones(saving: recordZonesToSave, deleting: recordZoneIDsToDelete) }, completionHandler)
    }

    /// Zones changed and deleted since `changeToken`.
    public func fetchDatabaseChanges(
        since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil,
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        modifications: [DatabaseChange.Modification],
                        deletions: [DatabaseChange.Deletion],
                        changeToken: CKServerChangeToken, moreComing: Bool
                    ), any Error
                >
            ) -> Void
    ) {
        completeResult({ try await self.databaseChanges(since: changeToken, resultsLimit: resultsLimit) }, completionHandler)
    }

    /// Records changed and deleted in a zone since `changeToken`.
    public func fetchRecordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
        desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int? = nil,
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>],
                        deletions: [RecordZoneChange.Deletion],
                        changeToken: CKServerChangeToken, moreComing: Bool
                    ), any Error
                >
            ) -> Void
    ) {
        completeResult(
            {
                try await self.recordZoneChanges(inZoneWith: zoneID, since: changeToken, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
            }, completionHandler)
    }
}

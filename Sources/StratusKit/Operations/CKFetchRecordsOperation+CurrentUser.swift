import Foundation

extension CKFetchRecordsOperation {
    /// An operation fetching the signed-in user's record (type `Users`). Its ID names the user
    /// as `CKCurrentUserDefaultName`; the results carry the user's real record ID.
    public class func fetchCurrentUserRecordOperation() -> Self {
        let operation = self.init()
        operation.recordIDs = [CKRecord.ID(recordName: CKCurrentUserDefaultName)]
        return operation
    }

    /// Looks the records up. The current user's record (asked for by `CKCurrentUserDefaultName`)
    /// is looked up by its real name in the public database, where the server keeps user records.
    func lookup(in database: CKDatabase) async throws(CKError) -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        let ids = recordIDs ?? []
        let isCurrentUser: (CKRecord.ID) -> Bool = { $0.recordName == CKCurrentUserDefaultName }
        guard ids.contains(where: isCurrentUser) else { return try await database.lookupRecords(ids, desiredKeys: desiredKeys) }
        let userID = CKRecord.ID(recordName: try await database.client.callerRecordName())
        let others = ids.filter { !isCurrentUser($0) }
        let publicDatabase =
            database.databaseScope == .public
            ? database
            : CKDatabase(scope: .public, client: database.client, queue: database.queue)
        let user = try await publicDatabase.lookupRecords([userID], desiredKeys: desiredKeys)
        return user + (others.isEmpty ? [] : try await database.lookupRecords(others, desiredKeys: desiredKeys))
    }
}

import Foundation

/// Fetches which zones changed or were deleted since a change token, following `moreComing`
/// when `fetchAllChanges` is true.
open class CKFetchDatabaseChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var previousServerChangeToken: CKServerChangeToken?
    public var resultsLimit: Int = 0
    public var fetchAllChanges = true

    public var recordZoneWithIDChangedBlock: ((_ zoneID: CKRecordZone.ID) -> Void)?
    public var recordZoneWithIDWasDeletedBlock: ((_ zoneID: CKRecordZone.ID) -> Void)?
    public var recordZoneWithIDWasPurgedBlock: ((_ zoneID: CKRecordZone.ID) -> Void)?
    public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((_ zoneID: CKRecordZone.ID) -> Void)?
    public var changeTokenUpdatedBlock: ((_ serverChangeToken: CKServerChangeToken) -> Void)?
    public var fetchDatabaseChangesResultBlock: ((_ operationResult: Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?
    @available(*, deprecated, message: "Use fetchDatabaseChangesResultBlock instead")
    public var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)? {
        get { legacyDone }
        set { legacyDone = newValue }
    }
    private var legacyDone: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    override func run() async {
        var token = previousServerChangeToken
        do {
            let database = try requireDatabase()
            while true {
                if isCancelled { throw cancellationError }
                let page = try await database.databaseChanges(since: token, resultsLimit: resultsLimit)
                for change in page.modifications { recordZoneWithIDChangedBlock?(change.zoneID) }
                for deletion in page.deletions {
                    switch deletion.reason {
                    case .deleted: recordZoneWithIDWasDeletedBlock?(deletion.zoneID)
                    case .purged: recordZoneWithIDWasPurgedBlock?(deletion.zoneID)
                    case .encryptedDataReset: recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock?(deletion.zoneID)
                    }
                }
                token = page.changeToken
                guard page.moreComing, fetchAllChanges else {
                    fetchDatabaseChangesResultBlock?(.success((page.changeToken, page.moreComing)))
                    legacyDone?(page.changeToken, page.moreComing, nil)
                    return
                }
                changeTokenUpdatedBlock?(page.changeToken)
            }
        } catch {
            fetchDatabaseChangesResultBlock?(.failure(error))
            legacyDone?(token, false, error)
        }
    }
}

import Foundation

/// Fetches the records changed and deleted in zones since their change tokens, following
/// `moreComing` until each zone is complete when `fetchAllChanges` is true.
open class CKFetchRecordZoneChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// Per-zone options.
    public class ZoneConfiguration: NSObject, @unchecked Sendable {
        // @unchecked Sendable: as in Apple's SDK; configured before use.
        public var previousServerChangeToken: CKServerChangeToken?
        public var resultsLimit: Int = 0
        public var desiredKeys: [CKRecord.FieldKey]?
        public override init() { super.init() }
        public convenience init(previousServerChangeToken: CKServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [CKRecord.FieldKey]? = nil) {
            self.init()
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit ?? 0
            self.desiredKeys = desiredKeys
        }
    }

    public var recordZoneIDs: [CKRecordZone.ID]?
    public var configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]?
    public var fetchAllChanges = true

    public var recordWasChangedBlock: ((_ recordID: CKRecord.ID, _ recordResult: Result<CKRecord, any Error>) -> Void)?
    public var recordWithIDWasDeletedBlock: ((_ recordID: CKRecord.ID, _ recordType: CKRecord.RecordType) -> Void)?
    public var recordZoneChangeTokensUpdatedBlock: ((_ recordZoneID: CKRecordZone.ID, _ serverChangeToken: CKServerChangeToken?, _ clientChangeTokenData: Data?) -> Void)?
    public var recordZoneFetchResultBlock:
        (
            (
                _ recordZoneID: CKRecordZone.ID,
                _ fetchChangesResult: Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>
            ) -> Void
        )?
    public var fetchRecordZoneChangesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    @available(*, deprecated, message: "Use recordWasChangedBlock instead")
    public var recordChangedBlock: ((CKRecord) -> Void)? {
        get { legacyChanged }
        set { legacyChanged = newValue }
    }
    @available(*, deprecated, message: "Use recordZoneFetchResultBlock instead")
    public var recordZoneFetchCompletionBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)? {
        get { legacyZoneDone }
        set { legacyZoneDone = newValue }
    }
    @available(*, deprecated, message: "Use fetchRecordZoneChangesResultBlock instead")
    public var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyDone }
        set { legacyDone = newValue }
    }
    private var legacyChanged: ((CKRecord) -> Void)?
    private var legacyZoneDone: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)?
    private var legacyDone: (((any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(recordZoneIDs: [CKRecordZone.ID]? = nil, configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            // A zone that fails ends with its own error; the operation then ends with a
            // partialFailure naming each failed zone, as Apple's does.
            var zoneErrors: [AnyHashable: any Error] = [:]
            for zoneID in recordZoneIDs ?? [] {
                let configuration = configurationsByRecordZoneID?[zoneID]
                var token = configuration?.previousServerChangeToken
                do {
                    while true {
                        if isCancelled { throw cancellationError }
                        let page = try await database.zoneChangesPage(
                            zoneID, since: token, desiredKeys: configuration?.desiredKeys,
                            resultsLimit: configuration?.resultsLimit)
                        for (id, result) in page.changed {
                            recordWasChangedBlock?(id, result)
                            if case .success(let record) = result { legacyChanged?(record) }
                        }
                        for deletion in page.deleted { recordWithIDWasDeletedBlock?(deletion.recordID, deletion.recordType) }
                        token = page.token
                        guard page.moreComing, fetchAllChanges else {
                            recordZoneFetchResultBlock?(zoneID, .success((page.token, nil, page.moreComing)))
                            legacyZoneDone?(zoneID, page.token, nil, page.moreComing, nil)
                            break
                        }
                        recordZoneChangeTokensUpdatedBlock?(zoneID, page.token, nil)
                    }
                } catch {
                    zoneErrors[zoneID] = error
                    recordZoneFetchResultBlock?(zoneID, .failure(error))
                    legacyZoneDone?(zoneID, token, nil, false, error)
                }
            }
            // A cancelled fetch ends cancelled, not with the zones it did not get to as failures.
            if isCancelled { throw cancellationError }
            fetchRecordZoneChangesResultBlock?(batchResult(zoneErrors))
            legacyDone?(partialFailure(zoneErrors))
        } catch {
            fetchRecordZoneChangesResultBlock?(.failure(error))
            legacyDone?(error)
        }
    }
}

import Foundation

/// Fetches one zone's changes, one page per operation (the iOS 8 API that
/// ``CKFetchRecordZoneChangesOperation`` replaced). A page ends at `resultsLimit`; when
/// ``moreComing`` is true, run another operation from the token it reported.
@available(*, deprecated, message: "Use CKFetchRecordZoneChangesOperation instead")
open class CKFetchRecordChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var recordZoneID: CKRecordZone.ID?
    public var previousServerChangeToken: CKServerChangeToken?
    /// At most this many changes in the page; 0 lets the server choose.
    public var resultsLimit: Int = 0
    public var desiredKeys: [CKRecord.FieldKey]?
    /// Whether the zone has changes after this page; set when the operation finishes.
    public private(set) var moreComing = false

    public var recordChangedBlock: ((CKRecord) -> Void)?
    public var recordWithIDWasDeletedBlock: ((CKRecord.ID) -> Void)?
    public var fetchRecordChangesCompletionBlock: ((CKServerChangeToken?, Data?, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(recordZoneID: CKRecordZone.ID, previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.recordZoneID = recordZoneID
        self.previousServerChangeToken = previousServerChangeToken
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            guard let recordZoneID else {
                throw CKError(.invalidArguments, "CKFetchRecordChangesOperation needs a recordZoneID")
            }
            let page = try await database.zoneChangesPage(
                recordZoneID, since: previousServerChangeToken,
                desiredKeys: desiredKeys, resultsLimit: resultsLimit)
            for (_, result) in page.changed {
                if case .success(let record) = result { recordChangedBlock?(record) }
            }
            for deletion in page.deleted { recordWithIDWasDeletedBlock?(deletion.recordID) }
            moreComing = page.moreComing
            fetchRecordChangesCompletionBlock?(page.token, nil, nil)
        } catch {
            fetchRecordChangesCompletionBlock?(nil, nil, error)
        }
    }
}

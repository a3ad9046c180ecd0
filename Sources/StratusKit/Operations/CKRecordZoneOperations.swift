import Foundation

/// Creates and deletes record zones.
open class CKModifyRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var recordZonesToSave: [CKRecordZone]?
    public var recordZoneIDsToDelete: [CKRecordZone.ID]?

    public var perRecordZoneSaveBlock: ((_ recordZoneID: CKRecordZone.ID, _ saveResult: Result<CKRecordZone, any Error>) -> Void)?
    public var perRecordZoneDeleteBlock: ((_ recordZoneID: CKRecordZone.ID, _ deleteResult: Result<Void, any Error>) -> Void)?
    public var modifyRecordZonesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    @available(*, deprecated, message: "Use modifyRecordZonesResultBlock instead")
    public var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(recordZonesToSave: [CKRecordZone]? = nil, recordZoneIDsToDelete: [CKRecordZone.ID]? = nil) {
        self.init()
        self.recordZonesToSave = recordZonesToSave
        self.recordZoneIDsToDelete = recordZoneIDsToDelete
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            let outcome = try await database.modifyZones(saving: recordZonesToSave ?? [], deleting: recordZoneIDsToDelete ?? [])
            var saved: [CKRecordZone] = []
            var deleted: [CKRecordZone.ID] = []
            var errors: [AnyHashable: any Error] = [:]
            for (id, result) in outcome.saves {
                switch result {
                case .success(let zone): saved.append(zone)
                case .failure(let error): errors[id] = error
                }
                perRecordZoneSaveBlock?(id, result)
            }
            for (id, result) in outcome.deletes {
                switch result {
                case .success: deleted.append(id)
                case .failure(let error): errors[id] = error
                }
                perRecordZoneDeleteBlock?(id, result)
            }
            modifyRecordZonesResultBlock?(batchResult(errors))
            legacyCompletion?(saved, deleted, partialFailure(errors))
        } catch {
            modifyRecordZonesResultBlock?(.failure(error))
            legacyCompletion?(nil, nil, error)
        }
    }
}

/// Fetches record zones by ID, or all of them.
open class CKFetchRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The zones to fetch; `nil` fetches every zone.
    public var recordZoneIDs: [CKRecordZone.ID]?

    public var perRecordZoneResultBlock: ((_ recordZoneID: CKRecordZone.ID, _ recordZoneResult: Result<CKRecordZone, any Error>) -> Void)?
    public var fetchRecordZonesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    @available(*, deprecated, message: "Use fetchRecordZonesResultBlock instead")
    public var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?

    public required override init() { super.init() }

    public convenience init(recordZoneIDs: [CKRecordZone.ID]) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
    }

    /// An operation fetching every zone of the database.
    public class func fetchAllRecordZonesOperation() -> Self { self.init() }

    override func run() async {
        do {
            let database = try requireDatabase()
            let results: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)]
            if let recordZoneIDs {
                results = try await database.lookupZones(recordZoneIDs)
            } else {
                results = try await database.listZones().map { ($0.zoneID, .success($0)) }
            }
            var zones: [CKRecordZone.ID: CKRecordZone] = [:]
            var errors: [AnyHashable: any Error] = [:]
            for (id, result) in results {
                switch result {
                case .success(let zone): zones[id] = zone
                case .failure(let error): errors[id] = error
                }
                perRecordZoneResultBlock?(id, result)
            }
            fetchRecordZonesResultBlock?(batchResult(errors))
            legacyCompletion?(zones, partialFailure(errors))
        } catch {
            fetchRecordZonesResultBlock?(.failure(error))
            legacyCompletion?(nil, error)
        }
    }
}

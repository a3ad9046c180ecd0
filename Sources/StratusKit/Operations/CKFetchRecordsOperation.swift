import Foundation

/// Fetches records by ID.
open class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var recordIDs: [CKRecord.ID]?
    /// Fields to fetch: `nil` all, `[]` system fields only.
    public var desiredKeys: [CKRecord.FieldKey]?

    /// Download progress per record (called with 1.0 when a record arrives).
    public var perRecordProgressBlock: ((_ recordID: CKRecord.ID, _ progress: Double) -> Void)?
    /// Called with each record or its error.
    public var perRecordResultBlock: ((_ recordID: CKRecord.ID, _ recordResult: Result<CKRecord, any Error>) -> Void)?
    /// Called last.
    public var fetchRecordsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called with each record or its error.
    @available(*, deprecated, message: "Use perRecordResultBlock instead")
    public var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)? {
        get { legacyPerRecord }
        set { legacyPerRecord = newValue }
    }
    /// Called last with every fetched record; item failures make a `partialFailure`.
    @available(*, deprecated, message: "Use fetchRecordsResultBlock instead")
    public var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyPerRecord: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?
    private var legacyCompletion: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?

    public required override init() { super.init() }

    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            let results = try await lookup(in: database)
            var fetched: [CKRecord.ID: CKRecord] = [:]
            var errors: [AnyHashable: any Error] = [:]
            for (id, result) in results {
                switch result {
                case .success(let record):
                    perRecordProgressBlock?(id, 1.0)
                    fetched[id] = record
                    legacyPerRecord?(record, id, nil)
                case .failure(let error):
                    errors[id] = error
                    legacyPerRecord?(nil, id, error)
                }
                perRecordResultBlock?(id, result)
            }
            fetchRecordsResultBlock?(batchResult(errors))
            legacyCompletion?(fetched, partialFailure(errors))
        } catch {
            fetchRecordsResultBlock?(.failure(error))
            legacyCompletion?(nil, error)
        }
    }
}

import Foundation

/// Saves and deletes records in one operation.
open class CKModifyRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// How a save treats the server's copy of a record.
    public enum RecordSavePolicy: Int, Sendable {
        /// Save only if the server's record has the change tag the local copy has.
        case ifServerRecordUnchanged = 0
        /// Save the changed keys whatever the server has.
        case changedKeys = 1
        /// Overwrite the server's record with every local key.
        case allKeys = 2
    }

    public var recordsToSave: [CKRecord]?
    public var recordIDsToDelete: [CKRecord.ID]?
    public var savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    /// Opaque data echoed by change fetches; kept for source compatibility.
    public var clientChangeTokenData: Data?
    /// Whether the batch succeeds or fails as a whole (in zones with the atomic capability).
    public var isAtomic = true

    /// Upload progress per record (called with 1.0 when a record is saved).
    public var perRecordProgressBlock: ((_ record: CKRecord, _ progress: Double) -> Void)?
    /// Called with each saved record or its error.
    public var perRecordSaveBlock: ((_ recordID: CKRecord.ID, _ saveResult: Result<CKRecord, any Error>) -> Void)?
    /// Called with each deletion's outcome.
    public var perRecordDeleteBlock: ((_ recordID: CKRecord.ID, _ deleteResult: Result<Void, any Error>) -> Void)?
    /// Called last.
    public var modifyRecordsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called with each record to save and its error, if any.
    @available(*, deprecated, message: "Use perRecordSaveBlock instead")
    public var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)? {
        get { legacyPerRecord }
        set { legacyPerRecord = newValue }
    }
    /// Called last with what was saved and deleted; item failures make a `partialFailure`.
    @available(*, deprecated, message: "Use modifyRecordsResultBlock instead")
    public var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyPerRecord: ((CKRecord, (any Error)?) -> Void)?
    private var legacyCompletion: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(recordsToSave: [CKRecord]? = nil, recordIDsToDelete: [CKRecord.ID]? = nil) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            let toSave = recordsToSave ?? []
            let outcome = try await database.modify(
                saving: toSave, deleting: recordIDsToDelete ?? [],
                policy: savePolicy, atomically: isAtomic)
            var saved: [CKRecord] = []
            var deleted: [CKRecord.ID] = []
            var errors: [AnyHashable: any Error] = [:]
            for (index, (id, result)) in outcome.saves.enumerated() {
                switch result {
                case .success(let record):
                    perRecordProgressBlock?(toSave[index], 1.0)
                    saved.append(record)
                    legacyPerRecord?(record, nil)
                case .failure(let error):
                    errors[id] = error
                    legacyPerRecord?(toSave[index], error)
                }
                perRecordSaveBlock?(id, result)
            }
            for (id, result) in outcome.deletes {
                switch result {
                case .success: deleted.append(id)
                case .failure(let error): errors[id] = error
                }
                perRecordDeleteBlock?(id, result)
            }
            modifyRecordsResultBlock?(batchResult(errors))
            legacyCompletion?(saved, deleted, partialFailure(errors))
        } catch {
            modifyRecordsResultBlock?(.failure(error))
            legacyCompletion?(nil, nil, error)
        }
    }
}

import Foundation

/// Finds records matching a query, one page at a time; a non-nil cursor means more.
open class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// Let the server choose how many records to return (at most 200 per page).
    public static let maximumResults = 0

    public var query: CKQuery?
    public var cursor: CKQueryOperation.Cursor?
    /// Fields to fetch: `nil` all, `[]` system fields only.
    public var desiredKeys: [CKRecord.FieldKey]?
    /// How many records one run returns; `maximumResults` lets the server pick.
    public var resultsLimit: Int = CKQueryOperation.maximumResults
    /// The zone to search; `nil` searches the default zone.
    public var zoneID: CKRecordZone.ID?

    /// Called with each matching record.
    public var recordMatchedBlock: ((_ recordID: CKRecord.ID, _ recordResult: Result<CKRecord, any Error>) -> Void)?
    /// Called last, with the cursor for the next page or the error.
    public var queryResultBlock: ((_ operationResult: Result<CKQueryOperation.Cursor?, any Error>) -> Void)?
    /// Called with each matching record.
    @available(*, deprecated, message: "Use recordMatchedBlock instead, which surfaces per-record errors")
    public var recordFetchedBlock: ((CKRecord) -> Void)? {
        get { legacyRecordFetched }
        set { legacyRecordFetched = newValue }
    }
    /// Called last, with the cursor for the next page or the error.
    @available(*, deprecated, message: "Use queryResultBlock instead")
    public var queryCompletionBlock: ((CKQueryOperation.Cursor?, (any Error)?) -> Void)? {
        get { legacyQueryCompletion }
        set { legacyQueryCompletion = newValue }
    }
    private var legacyRecordFetched: ((CKRecord) -> Void)?
    private var legacyQueryCompletion: ((CKQueryOperation.Cursor?, (any Error)?) -> Void)?

    public override init() { super.init() }

    /// Runs `query`.
    public convenience init(query: CKQuery) {
        self.init()
        self.query = query
    }

    /// Continues a query from a cursor.
    public convenience init(cursor: CKQueryOperation.Cursor) {
        self.init()
        self.cursor = cursor
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            let page = try await database.queryPage(
                query, cursor: cursor, zoneID: zoneID,
                desiredKeys: desiredKeys, resultsLimit: resultsLimit)
            for (id, result) in page.results {
                recordMatchedBlock?(id, result)
                if case .success(let record) = result { legacyRecordFetched?(record) }
            }
            queryResultBlock?(.success(page.cursor))
            legacyQueryCompletion?(page.cursor, nil)
        } catch {
            queryResultBlock?(.failure(error))
            legacyQueryCompletion?(nil, error)
        }
    }
}

import Foundation

/// Reads the metadata of shares from their URLs (a container operation: run it with `CKContainer.add(_:)`).
open class CKFetchShareMetadataOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The share URLs to resolve.
    public var shareURLs: [URL]?
    /// Whether each metadata carries the share's root record (when the caller may read it).
    public var shouldFetchRootRecord = false
    /// The root record's fields to fetch: `nil` all, `[]` system fields only.
    public var rootRecordDesiredKeys: [CKRecord.FieldKey]?

    /// Called with each URL's metadata or error.
    public var perShareMetadataResultBlock: ((_ shareURL: URL, _ shareMetadataResult: Result<CKShare.Metadata, any Error>) -> Void)?
    /// Called last.
    public var fetchShareMetadataResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called with each URL's metadata or error.
    @available(*, deprecated, message: "Use perShareMetadataResultBlock instead")
    public var perShareMetadataBlock: ((URL, CKShare.Metadata?, (any Error)?) -> Void)? {
        get { legacyPerShare }
        set { legacyPerShare = newValue }
    }
    /// Called last; item failures make a `partialFailure`.
    @available(*, deprecated, message: "Use fetchShareMetadataResultBlock instead")
    public var fetchShareMetadataCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyPerShare: ((URL, CKShare.Metadata?, (any Error)?) -> Void)?
    private var legacyCompletion: (((any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(shareURLs: [URL]) {
        self.init()
        self.shareURLs = shareURLs
    }

    override func run() async {
        await runContainerItems(
            { container in
                try await container.resolveShares(
                    self.shareURLs ?? [], fetchRootRecord: self.shouldFetchRootRecord,
                    rootRecordDesiredKeys: self.rootRecordDesiredKeys)
            }, perItem: perShareMetadataResultBlock, legacyPerItem: legacyPerShare,
            completion: fetchShareMetadataResultBlock, legacyCompletion: legacyCompletion)
    }
}

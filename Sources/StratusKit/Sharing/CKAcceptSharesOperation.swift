import Foundation

/// Joins shares (a container operation: run it with `CKContainer.add(_:)`).
open class CKAcceptSharesOperation: CKOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The shares to join, as `CKFetchShareMetadataOperation` returned them.
    public var shareMetadatas: [CKShare.Metadata]?

    /// Called with each accepted share or its error.
    public var perShareResultBlock: ((_ shareMetadata: CKShare.Metadata, _ acceptShareResult: Result<CKShare, any Error>) -> Void)?
    /// Called last.
    public var acceptSharesResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    /// Called with each accepted share or its error.
    @available(*, deprecated, message: "Use perShareResultBlock instead")
    public var perShareCompletionBlock: ((CKShare.Metadata, CKShare?, (any Error)?) -> Void)? {
        get { legacyPerShare }
        set { legacyPerShare = newValue }
    }
    /// Called last; item failures make a `partialFailure`.
    @available(*, deprecated, message: "Use acceptSharesResultBlock instead")
    public var acceptSharesCompletionBlock: (((any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyPerShare: ((CKShare.Metadata, CKShare?, (any Error)?) -> Void)?
    private var legacyCompletion: (((any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(shareMetadatas: [CKShare.Metadata]) {
        self.init()
        self.shareMetadatas = shareMetadatas
    }

    override func run() async {
        await runContainerItems(
            { container in try await container.acceptShares(self.shareMetadatas ?? []) },
            perItem: perShareResultBlock, legacyPerItem: legacyPerShare,
            completion: acceptSharesResultBlock, legacyCompletion: legacyCompletion)
    }
}

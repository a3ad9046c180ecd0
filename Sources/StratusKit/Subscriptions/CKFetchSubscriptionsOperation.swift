import Foundation

/// Fetches subscriptions by ID, or all of the user's subscriptions in the database.
open class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    /// The subscriptions to fetch; `nil` fetches every one.
    public var subscriptionIDs: [CKSubscription.ID]?

    public var perSubscriptionResultBlock: ((_ subscriptionID: CKSubscription.ID, _ subscriptionResult: Result<CKSubscription, any Error>) -> Void)?
    public var fetchSubscriptionsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    @available(*, deprecated, message: "Use fetchSubscriptionsResultBlock instead")
    public var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?

    public required override init() { super.init() }

    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// An operation fetching every subscription of the database.
    public class func fetchAllSubscriptionsOperation() -> Self { self.init() }

    override func run() async {
        do {
            let database = try requireDatabase()
            let results: [(CKSubscription.ID, Result<CKSubscription, any Error>)]
            if let subscriptionIDs {
                results = try await database.lookupSubscriptions(subscriptionIDs)
            } else {
                results = try await database.allSubscriptions().map { ($0.subscriptionID, .success($0)) }
            }
            var found: [CKSubscription.ID: CKSubscription] = [:]
            var errors: [AnyHashable: any Error] = [:]
            for (id, result) in results {
                switch result {
                case .success(let subscription): found[id] = subscription
                case .failure(let error): errors[id] = error
                }
                perSubscriptionResultBlock?(id, result)
            }
            fetchSubscriptionsResultBlock?(batchResult(errors))
            legacyCompletion?(found, partialFailure(errors))
        } catch {
            fetchSubscriptionsResultBlock?(.failure(error))
            legacyCompletion?(nil, error)
        }
    }
}

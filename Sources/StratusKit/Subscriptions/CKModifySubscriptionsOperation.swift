import Foundation

/// Saves and deletes subscriptions.
open class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    // @unchecked Sendable: see CKOperation.

    public var subscriptionsToSave: [CKSubscription]?
    public var subscriptionIDsToDelete: [CKSubscription.ID]?

    public var perSubscriptionSaveBlock: ((_ subscriptionID: CKSubscription.ID, _ subscriptionResult: Result<CKSubscription, any Error>) -> Void)?
    public var perSubscriptionDeleteBlock: ((_ subscriptionID: CKSubscription.ID, _ deleteResult: Result<Void, any Error>) -> Void)?
    public var modifySubscriptionsResultBlock: ((_ operationResult: Result<Void, any Error>) -> Void)?
    @available(*, deprecated, message: "Use modifySubscriptionsResultBlock instead")
    public var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)? {
        get { legacyCompletion }
        set { legacyCompletion = newValue }
    }
    private var legacyCompletion: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?

    public override init() { super.init() }

    public convenience init(subscriptionsToSave: [CKSubscription]? = nil, subscriptionIDsToDelete: [CKSubscription.ID]? = nil) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    override func run() async {
        do {
            let database = try requireDatabase()
            let toSave = subscriptionsToSave ?? []
            let toDelete = subscriptionIDsToDelete ?? []
            let outcome = try await database.modifySubscriptions(saving: toSave, deleting: toDelete)
            var saved: [CKSubscription] = []
            var deleted: [CKSubscription.ID] = []
            var errors: [AnyHashable: any Error] = [:]
            // Per-item blocks in the order the caller listed the items.
            for subscription in toSave {
                let id = subscription.subscriptionID
                guard let result = outcome.saveResults[id] else { continue }
                switch result {
                case .success(let stored): saved.append(stored)
                case .failure(let error): errors[id] = error
                }
                perSubscriptionSaveBlock?(id, result)
            }
            for id in toDelete {
                guard let result = outcome.deleteResults[id] else { continue }
                switch result {
                case .success: deleted.append(id)
                case .failure(let error): errors[id] = error
                }
                perSubscriptionDeleteBlock?(id, result)
            }
            modifySubscriptionsResultBlock?(batchResult(errors))
            legacyCompletion?(saved, deleted, partialFailure(errors))
        } catch {
            modifySubscriptionsResultBlock?(.failure(error))
            legacyCompletion?(nil, nil, error)
        }
    }
}

import Foundation
import StratusModel

// Subscriptions over CKWS `subscriptions/list|lookup|modify` (docs/protocol.md §4.8).

extension CKDatabase {
    /// Saves and deletes subscriptions, one result per item.
    public func modifySubscriptions(saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID]) async throws
        -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>])
    {
        var operations: [JSONValue] = []
        for subscription in subscriptionsToSave {
            operations.append(.object(["operationType": "create", "subscription": try subscription.wire()]))
        }
        for id in subscriptionIDsToDelete {
            operations.append(.object(["operationType": "delete", "subscription": .object(["subscriptionID": .string(id)])]))
        }
        let answer = try await request("subscriptions/modify", body: .object(["operations": .array(operations)]))
        let items = answer["subscriptions"]?.arrayValue ?? []
        var saves: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        var deletes: [CKSubscription.ID: Result<Void, any Error>] = [:]
        for (index, subscription) in subscriptionsToSave.enumerated() {
            let item: JSONValue? = index < items.count ? items[index] : nil
            if let item, let error = CKError(errorDictionary: item) {
                saves[subscription.subscriptionID] = .failure(error)
            } else {
                saves[subscription.subscriptionID] = .success(item.flatMap(CKSubscription.from(wire:)) ?? subscription)
            }
        }
        for (offset, id) in subscriptionIDsToDelete.enumerated() {
            let index = subscriptionsToSave.count + offset
            let item: JSONValue? = index < items.count ? items[index] : nil
            if let item, let error = CKError(errorDictionary: item) { deletes[id] = .failure(error) } else { deletes[id] = .success(()) }
        }
        return (saves, deletes)
    }

    /// Saves one subscription.
    @discardableResult
    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        let result = try await modifySubscriptions(saving: [subscription], deleting: []).saveResults[subscription.subscriptionID]
        return try (result ?? .failure(CKError(.serverResponseLost, "subscriptions/modify returned nothing"))).get()
    }

    /// Deletes one subscription.
    @discardableResult
    public func deleteSubscription(withID subscriptionID: CKSubscription.ID) async throws -> CKSubscription.ID {
        let result = try await modifySubscriptions(saving: [], deleting: [subscriptionID]).deleteResults[subscriptionID]
        try (result ?? .failure(CKError(.serverResponseLost, "subscriptions/modify returned nothing"))).get()
        return subscriptionID
    }

    /// Every subscription of the database.
    public func allSubscriptions() async throws -> [CKSubscription] {
        let answer = try await request("subscriptions/list", method: "GET")
        return (answer["subscriptions"]?.arrayValue ?? []).compactMap(CKSubscription.from(wire:))
    }

    /// Fetches one subscription.
    public func subscription(for subscriptionID: CKSubscription.ID) async throws -> CKSubscription {
        let answer = try await request(
            "subscriptions/lookup",
            body: .object(["subscriptions": .array([.object(["subscriptionID": .string(subscriptionID)])])]))
        guard let item = answer["subscriptions"]?.arrayValue?.first else { throw CKError(.unknownItem, "no subscription '\(subscriptionID)'") }
        if let error = CKError(errorDictionary: item) { throw error }
        guard let subscription = CKSubscription.from(wire: item) else { throw CKError(.serverResponseLost, "unreadable subscription") }
        return subscription
    }

    /// Completion-handler form of ``save(_:)-(CKSubscription)``.
    public func save(_ subscription: CKSubscription, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await save(subscription), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``subscription(for:)``.
    public func fetch(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await subscription(for: subscriptionID), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``allSubscriptions()``.
    public func fetchAllSubscriptions(completionHandler: @escaping @Sendable ([CKSubscription]?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await allSubscriptions(), nil) } catch { completionHandler(nil, error) } }
    }

    /// Completion-handler form of ``deleteSubscription(withID:)``.
    public func delete(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
        Task { do { completionHandler(try await deleteSubscription(withID: subscriptionID), nil) } catch { completionHandler(nil, error) } }
    }
}

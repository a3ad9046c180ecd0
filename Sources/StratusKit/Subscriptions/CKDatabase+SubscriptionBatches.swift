import Foundation
import StratusModel

// The batch subscription calls (one result per subscription) and their completion-handler forms.

extension CKDatabase {
    /// Fetches subscriptions by ID, one result per ID; an ID with no subscription gets
    /// `unknownItem` in its result.
    public func subscriptions(for ids: [CKSubscription.ID]) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] {
        var results: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        for (id, result) in try await lookupSubscriptions(ids) { results[id] = result }
        return results
    }

    /// Completion-handler form of ``subscriptions(for:)``.
    public func fetch(
        withSubscriptionIDs ids: [CKSubscription.ID],
        completionHandler: @escaping @Sendable (Result<[CKSubscription.ID: Result<CKSubscription, any Error>], any Error>) -> Void
    ) {
        completeResult({ try await self.subscriptions(for: ids) }, completionHandler)
    }

    /// Completion-handler form of ``modifySubscriptions(saving:deleting:)``.
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID],
        completionHandler:
            @escaping @Sendable (
                Result<
                    (
                        saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>],
                        deleteResults: [CKSubscription.ID: Result<Void, any Error>]
                    ), any Error
                >
            ) -> Void
    ) {
        completeResult({ try await self.modifySubscriptions(saving: subscriptionsToSave, deleting: subscriptionIDsToDelete) }, completionHandler)
    }

    /// `subscriptions/lookup` for several IDs, in the order asked (repeated IDs are asked once).
    func lookupSubscriptions(_ ids: [CKSubscription.ID]) async throws -> [(CKSubscription.ID, Result<CKSubscription, any Error>)] {
        var unique: [CKSubscription.ID] = []
        for id in ids where !unique.contains(id) { unique.append(id) }
        guard !unique.isEmpty else { return [] }
        let answer = try await request(
            "subscriptions/lookup",
            body: .object([
                "subscriptions": .array(unique.map { .object(["subscriptionID": .string($0)]) })
            ]))
        let items = answer["subscriptions"]?.arrayValue ?? []
        return unique.enumerated().map { index, id in
            guard index < items.count else { return (id, .failure(CKError(.serverResponseLost, "subscriptions/lookup returned no result for '\(id)'"))) }
            let item = items[index]
            if let error = CKError(errorDictionary: item) { return (id, .failure(error)) }
            guard let subscription = CKSubscription.from(wire: item) else {
                return (id, .failure(CKError(.serverResponseLost, "subscriptions/lookup returned an unreadable subscription for '\(id)'")))
            }
            return (id, .success(subscription))
        }
    }
}

import Foundation
import StratusModel

extension Engine {
    /// subscriptions/list: the caller's subscriptions in this database.
    public func listSubscriptions(_ scope: RequestScope) async throws -> JSONValue {
        let rows = try await storage.read { reader in
            try await reader.subscriptions(scope.store, userRecordName: scope.caller.effectiveRecordName)
        }
        return .object(["subscriptions": .array(rows.map { $0.definition })])
    }

    /// subscriptions/lookup: `subscriptions: [{subscriptionID}]`, each found or NOT_FOUND inline.
    public func lookupSubscriptions(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let ids = try SubscriptionOperation.lookupIDs(body: body, limits: limits)
        let rows = try await storage.read { reader in
            try await reader.subscriptions(scope.store, userRecordName: scope.caller.effectiveRecordName)
        }
        let byID = Dictionary(rows.map { ($0.subscriptionID, $0) }, uniquingKeysWith: { first, _ in first })
        return .object([
            "subscriptions": .array(
                ids.map { id in
                    byID[id]?.definition ?? subscriptionErrorJSON(subscriptionID: id, CloudKitError(.notFound, "subscription '\(id)' does not exist"))
                })
        ])
    }

    /// subscriptions/modify: create (or replace), update and delete, in order, each with its own
    /// result. A query subscription's query is validated like records/query (in development it
    /// may add the indexes it needs).
    public func modifySubscriptions(_ scope: RequestScope, body: JSONValue) async throws -> JSONValue {
        let store = scope.store
        let raw = try SubscriptionOperation.rawOperations(body: body, limits: limits)
        var results: [JSONValue] = []
        for (position, value) in raw.enumerated() {
            let path = "operations[\(position)]"
            let claimedID = value["subscription"]?["subscriptionID"]?.stringValue
            do {
                results.append(try await modifySubscription(scope, value, path: path))
            } catch let error as CloudKitError {
                results.append(subscriptionErrorJSON(subscriptionID: claimedID, error))
            } catch let error as WireError {
                results.append(subscriptionErrorJSON(subscriptionID: claimedID, .wire(error)))
            }
        }
        await announce([.subscriptionsChanged(store)])
        return .object(["subscriptions": .array(results)])
    }

    func modifySubscription(_ scope: RequestScope, _ value: JSONValue, path: String) async throws -> JSONValue {
        let store = scope.store
        let user = scope.caller.effectiveRecordName
        let subscription: Subscription
        let isUpdate: Bool
        switch try SubscriptionOperation(json: value, path: path, fallbackID: UUID.random().uuidString) {
        case .delete(let id):
            defer { subscriptionCache.forget(store) }
            let deleted = try await storage.write { writer in
                try await writer.deleteSubscription(store, userRecordName: user, subscriptionID: id)
            }
            guard deleted else { throw CloudKitError(.notFound, "subscription '\(id)' does not exist") }
            return .object(["subscriptionID": .string(id), "deleted": .bool(true)])
        case .save(let parsed, let update):
            subscription = parsed
            isUpdate = update
        }
        if store.scope == .shared, subscription.kind != .database {
            // Its zones come and go as shares are accepted and revoked (as in CloudKit).
            throw CloudKitError.badRequest("\(path): the shared database takes database subscriptions only")
        }
        if let query = subscription.query {
            // Same validation (and, in development, index additions) as records/query.
            let parsed = try RecordQuery(dictionary: query, zoneID: nil, zoneName: subscription.queryZoneName, limit: 1)
            _ = try await planQuery(store: store, query: parsed, mode: SchemaMode(store.environment))
        }
        let definition = subscription.json(store: store)
        let row = SubscriptionRow(store: store, userRecordName: user, subscriptionID: subscription.subscriptionID, definition: definition)
        defer { subscriptionCache.forget(store) }
        try await storage.write { writer in
            if let zoneName = subscription.zoneName {
                try await self.checkZoneExists(store, ZoneID(zoneName: zoneName), reader: writer)
            }
            if isUpdate {
                let existing = try await writer.subscriptions(store, userRecordName: user)
                guard existing.contains(where: { $0.subscriptionID == subscription.subscriptionID }) else {
                    throw CloudKitError(.notFound, "subscription '\(subscription.subscriptionID)' does not exist; create it instead")
                }
            }
            try await writer.saveSubscription(row)
        }
        return definition
    }
}

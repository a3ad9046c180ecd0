import StratusModel

/// One parsed operation of a subscriptions/modify request.
enum SubscriptionOperation: Sendable {
    case delete(subscriptionID: String)
    /// Create (or replace), or update an existing subscription.
    case save(Subscription, isUpdate: Bool)

    /// `fallbackID` names a created subscription sent without an ID.
    init(json: JSONValue, path: String, fallbackID: String) throws(WireError) {
        let operation = try JSONObjectReader(json, path: path)
        let type = try operation.string("operationType")
        guard ["create", "update", "delete"].contains(type) else {
            throw WireError(path: operation.child("operationType"), problem: "'\(type)' is not a subscription operation; use create, update or delete")
        }
        guard let subscriptionJSON = operation["subscription"] else {
            throw WireError(path: operation.child("subscription"), problem: "is required")
        }
        if type == "delete" {
            self = .delete(subscriptionID: try JSONObjectReader(subscriptionJSON, path: operation.child("subscription")).string("subscriptionID"))
            return
        }
        if type == "update", subscriptionJSON["subscriptionID"]?.stringValue == nil {
            throw WireError(path: "\(operation.child("subscription")).subscriptionID", problem: "is required to update a subscription")
        }
        self = .save(
            try Subscription(json: subscriptionJSON, path: operation.child("subscription"), fallbackID: fallbackID),
            isUpdate: type == "update")
    }

    /// The IDs a subscriptions/lookup body asks for, in request order.
    static func lookupIDs(body: JSONValue, limits: EngineLimits) throws(CloudKitError) -> [String] {
        do {
            let reader = try JSONObjectReader(body)
            let items = try reader.array("subscriptions")
            try checkItemCount(items.count, key: "subscriptions", limits: limits)
            return try items.enumerated().map { position, item throws(WireError) in
                try JSONObjectReader(item, path: "subscriptions[\(position)]").string("subscriptionID")
            }
        } catch { throw .parsing(error) }
    }

    /// The operations of a subscriptions/modify body, unparsed: each is parsed on its own so a
    /// bad one fails alone.
    static func rawOperations(body: JSONValue, limits: EngineLimits) throws(CloudKitError) -> [JSONValue] {
        let raw = try readingWire { () throws(WireError) in try JSONObjectReader(body).array("operations") }
        if raw.isEmpty { throw .badRequest("operations is empty; send at least one operation") }
        try checkItemCount(raw.count, key: "operations", limits: limits)
        return raw
    }

    static func checkItemCount(_ count: Int, key: String, limits: EngineLimits) throws(CloudKitError) {
        if count > limits.maximumOperationsPerRequest {
            throw .badRequest("\(key) has \(count) entries; the limit is \(limits.maximumOperationsPerRequest) per request")
        }
    }
}

import FuzzSupport
@testable import StratusEngine
import StratusModel

/// subscriptions/lookup and subscriptions/modify: the IDs, each operation, a query
/// subscription's query planned against the fixture schema, and the stored definition read back.
func fuzzSubscriptions(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let body = jsonBody(data, size) else { return 0 }
    _ = try? SubscriptionOperation.lookupIDs(body: body, limits: Fixtures.limits)
    guard let operations = try? SubscriptionOperation.rawOperations(body: body, limits: Fixtures.limits) else { return 0 }
    for (position, raw) in operations.enumerated() {
        guard case .save(let subscription, _)? = try? SubscriptionOperation(json: raw, path: "operations[\(position)]", fallbackID: "fallback")
        else { continue }
        if let query = subscription.query,
            let parsed = try? RecordQuery(dictionary: query, zoneID: nil, zoneName: subscription.queryZoneName, limit: 1)
        {
            _ = try? QueryPlanner(schema: Fixtures.schema).plan(parsed, mode: .justInTime)
        }
        // Notifications re-read the stored definition; it must read back as the same subscription.
        let definition = subscription.json(store: Fixtures.store)
        let reread = try? Subscription(json: definition, path: "", fallbackID: subscription.subscriptionID)
        precondition(reread == subscription, "a stored subscription reads back differently: \(definition.serializedString)")
    }
    return 0
}

runFuzzer(fuzzSubscriptions)

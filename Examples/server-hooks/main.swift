// A Stratus server with an app's own logic: the same `stratus` command (serve, and every other
// command, flag and environment variable), plus hooks and a function. Run it as
// `swift run server-hooks serve --data ./data`; docs/server-logic.md walks through it.
import StratusApp

var server = Stratus()

// Validation no client can skip, and a field the server keeps right.
server.beforeSave("Order") { order, _ in
    guard let quantity = order.int64("quantity"), quantity > 0 else {
        throw HookRejection("an order needs a quantity of at least 1")
    }
    order[field: "total"] = .double(Double(quantity) * (order.double("unitPrice") ?? 0))
}

// After each new order commits: count it in a summary record, written as the developer.
server.afterSave("Order") { event, context in
    guard event.kind == .create else { return }
    let database = context.asDeveloper
    while true {
        let summary = try await database.record("order-summary")
        let orders = (summary?.int64("orders") ?? 0) + 1
        do {
            try await database.save("order-summary", type: "OrderSummary", fields: ["orders": .int64(orders)], changeTag: summary?.changeTag)
            return
        } catch let error as CloudKitError where error.code == .conflict || error.code == .exists {
            continue // another order counted meanwhile: read again
        }
    }
}

// POST /functions/1/{container}/{environment}/orderCount
server.function("orderCount") { _, context in
    let summary = try await context.publicDatabase.record("order-summary")
    return .object(["orders": .int(summary?.int64("orders") ?? 0)])
}

await server.run()

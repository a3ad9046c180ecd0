import Foundation
import StratusEngine
import StratusModel
import Testing

/// beforeSave and beforeDelete hooks, through CloudKit Web Services: what a client sees when a
/// hook refuses, changes, overruns or fails, and that nothing it refused is written.
@Suite("Before hooks")
struct BeforeHookTests {
    /// Orders need a positive quantity; the hook fills `total` and notes the quantity it replaces.
    static var orderHooks: RecordHooks {
        var hooks = RecordHooks()
        hooks.beforeSave(HookSelector("Order")) { order, _ in
            guard let quantity = order.int64("quantity"), quantity > 0 else { throw HookRejection("an order needs a quantity of at least 1") }
            order[field: "total"] = .int64(quantity * (order.int64("price") ?? 0))
            if let before = order.original?.int64("quantity") { order[field: "previousQuantity"] = .int64(before) }
            order[field: "draft"] = nil
        }
        hooks.beforeDelete(HookSelector("Order")) { order, _ in
            if order.string("status") == "shipped" { throw HookRejection("a shipped order cannot be deleted") }
        }
        return hooks
    }

    static func order(_ name: String, quantity: Int64, price: Int64 = 3, operation: String = "create", tag: String? = nil, extra: [String: JSONValue] = [:])
        -> JSONValue
    {
        var fields: [String: JSONValue] = ["quantity": ["value": .int(quantity)], "price": ["value": .int(price)]]
        for (key, value) in extra { fields[key] = ["value": value] }
        var record: [String: JSONValue] = ["recordName": .string(name), "recordType": "Order", "fields": .object(fields)]
        if let tag { record["recordChangeTag"] = .string(tag) }
        return ["operationType": .string(operation), "record": .object(record)]
    }

    @Test("a refused record fails with the hook's reason and is not written; the rest of the batch is")
    func rejection() async throws {
        try await RouterFixture.run(hooks: Self.orderHooks) { fixture, client in
            let answer = try await client.call(
                fixture.path("records/modify"), json: ["operations": [Self.order("bad", quantity: 0), Self.order("good", quantity: 2)]])
            #expect(answer.status == 200)
            #expect(answer.json.record(0)?["serverErrorCode"] == "BAD_REQUEST")
            #expect(answer.json.record(0)?["recordName"] == "bad")
            #expect(answer.json.record(0)?["reason"]?.stringValue?.contains("an order needs a quantity of at least 1") == true)
            #expect(answer.json.record(1)?["fields"]?["total"]?["value"] == 6, "the hook filled the total")
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "bad"], ["recordName": "good"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND", "the refused record was not written")
            #expect(lookup.json.record(1)?["fields"]?["total"]?["value"] == 6)
        }
    }

    @Test("a refused record fails an atomic batch whole: nothing written")
    func atomicRejection() async throws {
        try await RouterFixture.run(hooks: Self.orderHooks) { fixture, client in
            let zone = try await client.call(
                fixture.path("zones/modify", database: "private", webAuthToken: fixture.writerToken),
                json: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Shop"]]]]])
            #expect(zone.status == 200)
            let path = fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken)
            let answer = try await client.call(
                path, json: ["zoneID": ["zoneName": "Shop"], "atomic": true, "operations": [Self.order("good", quantity: 2), Self.order("bad", quantity: -1)]])
            #expect(answer.status == 400)
            #expect(answer.json.record(0)?["serverErrorCode"] == "ATOMIC_ERROR")
            #expect(answer.json.record(1)?["serverErrorCode"] == "BAD_REQUEST")
            let lookup = try await client.call(
                fixture.path("records/lookup", database: "private", webAuthToken: fixture.writerToken),
                json: ["zoneID": ["zoneName": "Shop"], "records": [["recordName": "good"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND", "the atomic batch wrote nothing")
        }
    }

    @Test("an update's hook sees the stored record it replaces and the merged fields; a field it removes is cleared")
    func updateSeesOriginal() async throws {
        try await RouterFixture.run(hooks: Self.orderHooks) { fixture, client in
            let created = try await client.call(fixture.path("records/modify"), json: ["operations": [Self.order("o", quantity: 2, extra: ["draft": true])]])
            #expect(created.json.record(0)?["fields"]?["draft"] == nil, "the hook removed draft before the create")
            let tag = try #require(created.json.record(0)?["recordChangeTag"]?.stringValue)
            // The update names only the quantity: the price comes from the stored record.
            let update: JSONValue = [
                "operations": [
                    ["operationType": "update", "record": ["recordName": "o", "recordType": "Order", "recordChangeTag": .string(tag), "fields": ["quantity": ["value": 5]]]]
                ]
            ]
            let updated = try await client.call(fixture.path("records/modify"), json: update)
            let fields = updated.json.record(0)?["fields"]
            #expect(fields?["total"]?["value"] == 15)
            #expect(fields?["previousQuantity"]?["value"] == 2)
            #expect(fields?["price"]?["value"] == 3)
        }
    }

    @Test("beforeDelete refuses a delete; the record stays")
    func deleteRejection() async throws {
        try await RouterFixture.run(hooks: Self.orderHooks) { fixture, client in
            _ = try await client.call(fixture.path("records/modify"), json: ["operations": [Self.order("s", quantity: 1, extra: ["status": "shipped"])]])
            let delete = try await client.call(
                fixture.path("records/modify"), json: ["operations": [["operationType": "forceDelete", "record": ["recordName": "s"]]]])
            #expect(delete.json.record(0)?["serverErrorCode"] == "BAD_REQUEST")
            #expect(delete.json.record(0)?["reason"]?.stringValue?.contains("a shipped order cannot be deleted") == true)
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "s"]]])
            #expect(lookup.json.record(0)?["recordType"] == "Order")
        }
    }

    @Test("a hook past its time limit fails its record with TRY_AGAIN_LATER at the limit, nothing written")
    func timeLimit() async throws {
        var hooks = RecordHooks()
        hooks.timeLimit = .milliseconds(300)
        hooks.beforeSave(HookSelector("Slow")) { _, _ in try await Task.sleep(for: .seconds(10)) }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            let started = ContinuousClock.now
            let answer = try await client.call(fixture.path("records/modify"), json: createBody(["slow"], type: "Slow"))
            #expect(ContinuousClock.now - started < .seconds(5), "the request did not wait for the hook")
            #expect(answer.json.record(0)?["serverErrorCode"] == "TRY_AGAIN_LATER")
            #expect(answer.json.record(0)?["retryAfter"] != nil)
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "slow"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
        }
    }

    @Test("a hook that throws fails its record with INTERNAL_ERROR and keeps the cause out of the answer")
    func hookThatThrows() async throws {
        struct Broken: Error {}
        var hooks = RecordHooks()
        hooks.beforeSave(HookSelector("Fragile")) { _, _ in throw Broken() }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            let answer = try await client.call(fixture.path("records/modify"), json: createBody(["f"], type: "Fragile"))
            #expect(answer.json.record(0)?["serverErrorCode"] == "INTERNAL_ERROR")
            let reason = answer.json.record(0)?["reason"]?.stringValue ?? ""
            #expect(reason.contains("hook failed") && !reason.contains("Broken"))
            let lookup = try await client.call(fixture.path("records/lookup"), json: ["records": [["recordName": "f"]]])
            #expect(lookup.json.record(0)?["serverErrorCode"] == "NOT_FOUND")
        }
    }

    @Test("hooks are narrowed by database: a public-database hook leaves private writes alone")
    func selectorNarrowsByDatabase() async throws {
        var hooks = RecordHooks()
        hooks.beforeSave(HookSelector("Note", database: .public)) { _, _ in throw HookRejection("no public notes") }
        try await RouterFixture.run(hooks: hooks) { fixture, client in
            let publicAnswer = try await client.call(fixture.path("records/modify"), json: createBody(["n"]))
            #expect(publicAnswer.json.record(0)?["serverErrorCode"] == "BAD_REQUEST")
            let privateAnswer = try await client.call(
                fixture.path("records/modify", database: "private", webAuthToken: fixture.writerToken), json: createBody(["n"]))
            #expect(privateAnswer.json.record(0)?["recordType"] == "Note")
        }
    }
}

import StratusEngine
import StratusWire
import StratusModel
import Testing

/// A caller's subscription helpers: a courier token registered for the scope's caller.
struct Subscriber {
    let fixture: EngineFixture
    let scope: RequestScope
    let courierKey: String

    static func make(_ fixture: EngineFixture, _ scope: RequestScope) async throws -> Subscriber {
        let created = try await fixture.engine.createPushToken(scope, body: ["apnsEnvironment": "development"])
        let url = try #require(created["webcourierURL"]?.stringValue)
        _ = try await fixture.engine.registerPushToken(scope, body: ["apnsEnvironment": "development", "apnsToken": created["apnsToken"]!])
        return Subscriber(fixture: fixture, scope: scope, courierKey: String(url.dropFirst(Engine.webCourierPathPrefix.count)))
    }

    @discardableResult
    func subscribe(_ subscription: JSONValue, operation: String = "create") async throws -> JSONValue {
        let response = try await fixture.engine.modifySubscriptions(
            scope,
            body: [
                "operations": [["operationType": .string(operation), "subscription": subscription]]
            ])
        return try #require(response["subscriptions"]?[0])
    }

    /// A public-database subscriber to every create, on an engine with `limits`, with one record
    /// saved before subscribing (so the record type exists).
    static func allCreates(limits: EngineLimits) async throws -> (EngineFixture, RequestScope, Subscriber) {
        let fixture = try await EngineFixture.make(limits: limits)
        let scope = try await fixture.scope()
        let subscriber = try await Subscriber.make(fixture, scope)
        try await fixture.modify(scope, [createOp("seed", fields: ["n": 1])])
        try await subscriber.subscribe(querySubscription("all", firesOn: ["create"]))
        return (fixture, scope, subscriber)
    }

    /// Every frame queued for this subscriber, consumed.
    func drain() async throws -> [JSONValue] {
        var frames: [JSONValue] = []
        while let text = try await fixture.engine.pollWebCourier(courierKey: courierKey, timeout: .zero) {
            frames.append(try JSONValue.parse(Array(text.utf8)))
        }
        return frames
    }
}

func querySubscription(
    _ id: String, firesOn: [JSONValue] = ["create", "update", "delete"], filters: [JSONValue] = [],
    firesOnce: Bool = false, info: JSONValue? = nil
) -> JSONValue {
    var members: [String: JSONValue] = [
        "subscriptionID": .string(id), "subscriptionType": "query",
        "query": ["recordType": "Item", "filterBy": .array(filters)],
        "firesOn": .array(firesOn), "firesOnce": .bool(firesOnce),
    ]
    if let info { members["notificationInfo"] = info }
    return .object(members)
}

func equalsFilter(_ field: String, _ value: JSONValue) -> JSONValue {
    ["comparator": "EQUALS", "fieldName": .string(field), "fieldValue": ["value": value]]
}

@Suite("subscriptions")
struct SubscriptionTests {
    @Test("create, list, lookup, update and delete; notificationInfo kept as given")
    func crud() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("a", fields: ["color": "red"])])
        let subscriber = try await Subscriber.make(fixture, scope)
        let info: JSONValue = ["alertBody": "hi", "futureKey": ["x": 1]]
        let created = try await subscriber.subscribe(querySubscription("reds", filters: [equalsFilter("color", "red")], info: info))
        #expect(created["subscriptionID"] == "reds")
        #expect(created["zoneWide"] == .bool(true))
        #expect(created["notificationInfo"] == info)
        try await subscriber.subscribe(["subscriptionID": "zone", "subscriptionType": "zone", "zoneID": ["zoneName": "_defaultZone"]])
        let listed = try await fixture.engine.listSubscriptions(scope)
        #expect(listed["subscriptions"]?.arrayValue?.compactMap { $0["subscriptionID"]?.stringValue } == ["reds", "zone"])

        let updated = try await subscriber.subscribe(querySubscription("reds", firesOn: ["create"]), operation: "update")
        #expect(updated["firesOn"] == ["create"])
        let missingUpdate = try await subscriber.subscribe(querySubscription("nope"), operation: "update")
        #expect(missingUpdate["serverErrorCode"] == "NOT_FOUND")

        let looked = try await fixture.engine.lookupSubscriptions(scope, body: ["subscriptions": [["subscriptionID": "reds"], ["subscriptionID": "gone"]]])
        #expect(looked["subscriptions"]?[0]?["firesOn"] == ["create"])
        #expect(looked["subscriptions"]?[1]?["serverErrorCode"] == "NOT_FOUND")
        #expect(looked["subscriptions"]?[1]?["subscriptionID"] == "gone")

        let deleted = try await subscriber.subscribe(["subscriptionID": "reds"], operation: "delete")
        #expect(deleted["deleted"] == .bool(true))
        let again = try await subscriber.subscribe(["subscriptionID": "reds"], operation: "delete")
        #expect(again["serverErrorCode"] == "NOT_FOUND")
        #expect(try await fixture.engine.listSubscriptions(scope)["subscriptions"]?.arrayValue?.count == 1)
    }

    @Test("invalid subscriptions fail per item with the query's errors; a bad body fails the request")
    func validation() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        try await fixture.modify(try await fixture.scope(), [createOp("a", fields: ["color": "red"])])
        let production = try await fixture.scope(.public, environment: .production)
        let development = try await fixture.scope()
        let subscriber = try await Subscriber.make(fixture, development)
        let noFiresOn = try await subscriber.subscribe(["subscriptionID": "x", "subscriptionType": "query", "query": ["recordType": "Item"]])
        #expect(noFiresOn["serverErrorCode"] == "BAD_REQUEST")
        #expect(noFiresOn["subscriptionID"] == "x")
        let badType = try await subscriber.subscribe(["subscriptionID": "y", "subscriptionType": "weekly"])
        #expect(badType["serverErrorCode"] == "BAD_REQUEST")
        let badComparator = try await subscriber.subscribe(querySubscription("z", filters: [["comparator": "LIKE", "fieldName": "color", "fieldValue": ["value": "r"]]]))
        #expect(badComparator["serverErrorCode"] == "BAD_REQUEST")
        let badZone = try await subscriber.subscribe(["subscriptionID": "w", "subscriptionType": "zone", "zoneID": ["zoneName": "Elsewhere"]])
        #expect(badZone["serverErrorCode"] == "ZONE_NOT_FOUND")
        // Production enforces the schema as records/query does.
        let response = try await fixture.engine.modifySubscriptions(
            production,
            body: [
                "operations": [["operationType": "create", "subscription": querySubscription("p", filters: [equalsFilter("color", "red")])]]
            ])
        #expect(response["subscriptions"]?[0]?["serverErrorCode"] == "BAD_REQUEST")
        let whole = await cloudKitError { _ = try await fixture.engine.modifySubscriptions(development, body: ["operations": []]) }
        #expect(whole?.code == .badRequest)
    }

    @Test("a query subscription fires only for matching records and the kinds it asks for")
    func firesForMatches() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(scope, [createOp("seed", fields: ["color": "blue"])])
        let subscriber = try await Subscriber.make(fixture, scope)
        try await subscriber.subscribe(
            querySubscription(
                "reds", firesOn: ["create", "delete"], filters: [equalsFilter("color", "red")],
                info: ["alertBody": "red!", "shouldBadge": true]))
        try await fixture.modify(scope, [createOp("r1", fields: ["color": "red"]), createOp("b1", fields: ["color": "blue"])])
        var frames = try await subscriber.drain()
        #expect(frames.count == 1)
        let frame = try #require(frames.first)
        #expect(frame["aps"] == ["alert": "red!", "badge": 1])
        #expect(frame["ck"]?["cid"] == .string(fixture.container))
        #expect(frame["ck"]?["qry"]?["sid"] == "reds")
        #expect(frame["ck"]?["qry"]?["rid"] == "r1")
        #expect(frame["ck"]?["qry"]?["zid"] == "_defaultZone")
        #expect(frame["ck"]?["qry"]?["dbs"] == 1)
        #expect(frame["ck"]?["qry"]?["fo"] == 1)

        // An update is not a kind this subscription fires on.
        let r1 = try await fixture.engine.lookupRecords(scope, body: ["records": [["recordName": "r1"]]])
        let tag = try #require(r1["records"]?[0]?["recordChangeTag"])
        try await fixture.modify(
            scope,
            [
                [
                    "operationType": "update",
                    "record": [
                        "recordName": "r1", "recordType": "Item", "recordChangeTag": tag,
                        "fields": ["color": ["value": "red"]],
                    ],
                ]
            ])
        #expect(try await subscriber.drain().isEmpty)
        // A delete fires, evaluated on the record's last state.
        try await fixture.modify(
            scope,
            [
                ["operationType": "forceDelete", "record": ["recordName": "r1"]],
                ["operationType": "forceDelete", "record": ["recordName": "b1"]],
            ])
        frames = try await subscriber.drain()
        #expect(frames.map { $0["ck"]?["qry"]?["fo"] } == [3])
        #expect(frames.map { $0["ck"]?["qry"]?["rid"] } == ["r1"])
    }

    @Test("a subscription created, updated or deleted takes effect at the next write (the fan-out's cache is dropped)")
    func changesTakeEffectAtOnce() async throws {
        let (fixture, scope, subscriber) = try await Subscriber.allCreates(limits: EngineLimits())
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("r1", fields: ["color": "red"])])
        #expect(try await subscriber.drain().count == 1)
        // Narrowed to blue: the next red create does not fire, a blue one does.
        try await subscriber.subscribe(
            querySubscription("all", firesOn: ["create"], filters: [equalsFilter("color", "blue")]),
            operation: "update")
        try await fixture.modify(scope, [createOp("r2", fields: ["color": "red"]), createOp("b1", fields: ["color": "blue"])])
        #expect(try await subscriber.drain().compactMap { $0["ck"]?["qry"]?["rid"]?.stringValue } == ["b1"])
        // Deleted: nothing fires.
        _ = try await fixture.engine.modifySubscriptions(
            scope,
            body: [
                "operations": [["operationType": "delete", "subscription": ["subscriptionID": "all"]]]
            ])
        try await fixture.modify(scope, [createOp("b2", fields: ["color": "blue"])])
        #expect(try await subscriber.drain().isEmpty)
    }

    @Test("firesOnce subscriptions are deleted after firing")
    func firesOnce() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let subscriber = try await Subscriber.make(fixture, scope)
        try await fixture.modify(scope, [createOp("seed", fields: ["n": 1])])
        try await subscriber.subscribe(querySubscription("once", firesOn: ["create"], firesOnce: true))
        try await fixture.modify(scope, [createOp("a", fields: ["n": 1]), createOp("b", fields: ["n": 2])])
        try await fixture.modify(scope, [createOp("c", fields: ["n": 3])])
        #expect(try await subscriber.drain().count == 1)
        #expect(try await fixture.engine.listSubscriptions(scope)["subscriptions"]?.arrayValue?.isEmpty == true)
    }

    @Test("N matching subscriptions give N frames sharing one nid; zone and database subscriptions fire too")
    func oneFramePerSubscription() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let subscriber = try await Subscriber.make(fixture, scope)
        try await fixture.modify(scope, [createOp("seed", fields: ["n": 1])])
        try await subscriber.subscribe(querySubscription("q1"))
        try await subscriber.subscribe(querySubscription("q2"))
        try await subscriber.subscribe(["subscriptionID": "z", "subscriptionType": "zone", "zoneID": ["zoneName": "_defaultZone"]])
        try await subscriber.subscribe(["subscriptionID": "d", "subscriptionType": "database"])
        try await fixture.modify(scope, [createOp("x", fields: ["n": 2])])
        let frames = try await subscriber.drain()
        #expect(frames.count == 4)
        let queries = frames.filter { $0["ck"]?["qry"] != nil }
        #expect(Set(queries.compactMap { $0["ck"]?["qry"]?["sid"]?.stringValue }) == ["q1", "q2"])
        #expect(Set(queries.compactMap { $0["ck"]?["nid"]?.stringValue }).count == 1)
        #expect(frames.contains { $0["ck"]?["fet"]?["sid"] == "z" && $0["ck"]?["fet"]?["zid"] == "_defaultZone" })
        #expect(frames.contains { $0["ck"]?["met"]?["sid"] == "d" })
        #expect(frames.allSatisfy { $0["aps"] == nil })
    }

    @Test("a user's subscription never fires for another user's private records")
    func privateRecordsStayPrivate() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let ann = try await fixture.scope(.private, user: try await fixture.engine.createUser(name: "ann", container: fixture.container).webAuthToken)
        let bob = try await fixture.scope(.private, user: try await fixture.engine.createUser(name: "bob", container: fixture.container).webAuthToken)
        let annSubscriber = try await Subscriber.make(fixture, ann)
        let bobSubscriber = try await Subscriber.make(fixture, bob)
        try await fixture.modify(ann, [createOp("seed", fields: ["n": 1])])
        try await annSubscriber.subscribe(querySubscription("mine"))
        try await annSubscriber.subscribe(["subscriptionID": "all", "subscriptionType": "database"])
        try await bobSubscriber.subscribe(querySubscription("mine"))
        try await fixture.modify(bob, [createOp("secret", fields: ["n": 2])])
        #expect(try await annSubscriber.drain().isEmpty)
        let bobFrames = try await bobSubscriber.drain()
        #expect(bobFrames.count == 1)
        #expect(bobFrames.first?["ck"]?["qry"]?["dbs"] == 2)
        // Bob cannot see Ann's subscriptions either.
        #expect(try await fixture.engine.listSubscriptions(bob)["subscriptions"]?.arrayValue?.count == 1)
        try await fixture.modify(ann, [createOp("own", fields: ["n": 3])])
        #expect(try await annSubscriber.drain().count == 2)
        #expect(try await bobSubscriber.drain().isEmpty)
    }

    @Test("a token's queue keeps the newest frames up to its bound")
    func queueBound() async throws {
        var limits = EngineLimits()
        limits.maximumQueuedNotifications = 3
        let (fixture, scope, subscriber) = try await Subscriber.allCreates(limits: limits)
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, (1...5).map { createOp("r\($0)", fields: ["n": .int(Int64($0))]) })
        let frames = try await subscriber.drain()
        #expect(frames.compactMap { $0["ck"]?["qry"]?["rid"]?.stringValue } == ["r3", "r4", "r5"])
    }

    @Test("the in-memory evaluator follows the query comparators")
    func evaluator() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        let subscriber = try await Subscriber.make(fixture, scope)
        try await fixture.modify(scope, [createOp("seed", fields: ["n": 1, "title": "x", "tags": ["a"]])])
        try await subscriber.subscribe(
            querySubscription(
                "big", firesOn: ["create"],
                filters: [
                    ["comparator": "GREATER_THAN", "fieldName": "n", "fieldValue": ["value": 10]],
                    ["comparator": "BEGINS_WITH", "fieldName": "title", "fieldValue": ["value": "Hel"]],
                    ["comparator": "LIST_CONTAINS", "fieldName": "tags", "fieldValue": ["value": "b"]],
                ]))
        try await fixture.modify(
            scope,
            [
                createOp("yes", fields: ["n": 11, "title": "Hello", "tags": ["a", "b"]]),
                createOp("small", fields: ["n": 10, "title": "Hello", "tags": ["b"]]),
                createOp("prefix", fields: ["n": 20, "title": "Bye", "tags": ["b"]]),
                createOp("tags", fields: ["n": 20, "title": "Help", "tags": ["c"]]),
                createOp("missing", fields: ["title": "Hello", "tags": ["b"]]),
            ])
        #expect(try await subscriber.drain().compactMap { $0["ck"]?["qry"]?["rid"]?.stringValue } == ["yes"])
    }
}

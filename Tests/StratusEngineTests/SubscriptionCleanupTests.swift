import StratusEngine
import StratusModel
import Testing

@Suite("Subscriptions and deletions that happen as side effects")
struct SubscriptionCleanupTests {
    @Test("records deleted by a DELETE_SELF cascade fire query subscriptions like the record deleted directly")
    func cascadeFires() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let scope = try await fixture.scope()
        try await fixture.modify(
            scope,
            [
                createOp("whistle", fields: ["kind": "parent"]),
                createOp("s1", fields: ["kind": "child", "whistle": ["recordName": "whistle", "action": "DELETE_SELF"]]),
                createOp("s2", fields: ["kind": "child", "whistle": ["recordName": "whistle", "action": "DELETE_SELF"]]),
                createOp("keep", fields: ["kind": "child"]),
            ])
        let subscriber = try await Subscriber.make(fixture, scope)
        try await subscriber.subscribe(querySubscription("children", firesOn: ["delete"], filters: [equalsFilter("kind", "child")]))
        try await fixture.modify(scope, [["operationType": "forceDelete", "record": ["recordName": "whistle"]]])
        let frames = try await subscriber.drain()
        #expect(Set(frames.compactMap { $0["ck"]?["qry"]?["rid"]?.stringValue }) == ["s1", "s2"])
        #expect(frames.allSatisfy { $0["ck"]?["qry"]?["fo"] == 3 })
    }

    @Test("a deleted zone's zone and query subscriptions fire for the deletion, then go with the zone")
    func deletedZoneSubscriptionsAreRemoved() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container).webAuthToken
        let scope = try await fixture.scope(.private, user: user)
        let zoneOperation: (String, String) -> JSONValue = { type, name in ["operationType": .string(type), "zone": ["zoneID": ["zoneName": .string(name)]]] }
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [zoneOperation("create", "Notes"), zoneOperation("create", "Other")]])
        try await fixture.modify(scope, [createOp("n", fields: ["kind": "x"])], extra: ["zoneID": ["zoneName": "Notes"]])
        let subscriber = try await Subscriber.make(fixture, scope)
        try await subscriber.subscribe(["subscriptionID": "notes-zone", "subscriptionType": "zone", "zoneID": ["zoneName": "Notes"]])
        var inNotes = querySubscription("notes-items")
        inNotes = .object((inNotes.objectValue ?? [:]).merging(["zoneID": ["zoneName": "Notes"]]) { _, new in new })
        try await subscriber.subscribe(inNotes)
        try await subscriber.subscribe(["subscriptionID": "other-zone", "subscriptionType": "zone", "zoneID": ["zoneName": "Other"]])
        try await subscriber.subscribe(["subscriptionID": "everything", "subscriptionType": "database"])

        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [zoneOperation("delete", "Notes")]])
        let frames = try await subscriber.drain()
        #expect(frames.contains { $0["ck"]?["fet"]?["sid"] == "notes-zone" }, "the zone subscription fired for the deletion")
        let left = try await fixture.engine.listSubscriptions(scope)["subscriptions"]?.arrayValue ?? []
        #expect(Set(left.compactMap { $0["subscriptionID"]?.stringValue }) == ["other-zone", "everything"])
    }

    @Test("a frame read for the event stream stays queued until it is acknowledged as delivered")
    func peekedFramesStayUntilAcknowledged() async throws {
        let (fixture, scope, subscriber) = try await Subscriber.allCreates(limits: EngineLimits())
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("a", fields: ["n": 2])])
        let first = try #require(try await fixture.engine.peekWebCourier(courierKey: subscriber.courierKey, timeout: .zero))
        #expect(first.body.contains("\"rid\":\"a\""))
        // Not acknowledged (the write to the client failed): the next reader gets it again.
        #expect(try await fixture.engine.peekWebCourier(courierKey: subscriber.courierKey, timeout: .zero) == first)
        try await fixture.engine.acknowledgeWebCourierFrame(courierKey: subscriber.courierKey, id: first.id)
        #expect(try await subscriber.drain().isEmpty)
    }
}

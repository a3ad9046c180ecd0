import StratusEngine
import StratusModel
import Testing

@Suite("notification queue retention and zone deletes")
struct NotificationRetentionTests {
    @Test("frames past retention are dropped, not delivered")
    func retention() async throws {
        var limits = EngineLimits()
        limits.notificationRetentionSeconds = 0
        let (fixture, scope, subscriber) = try await Subscriber.allCreates(limits: limits)
        defer { Task { await fixture.close() } }
        try await fixture.modify(scope, [createOp("late", fields: ["n": 2])])
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await subscriber.drain().isEmpty)
    }

    @Test("deleting a zone fires its zone subscriptions and database subscriptions")
    func zoneDelete() async throws {
        let fixture = try await EngineFixture.make()
        defer { Task { await fixture.close() } }
        let user = try await fixture.engine.createUser(name: "ann", container: fixture.container)
        let scope = try await fixture.scope(.private, user: user.webAuthToken)
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let subscriber = try await Subscriber.make(fixture, scope)
        try await subscriber.subscribe(["subscriptionID": "notes", "subscriptionType": "zone", "zoneID": ["zoneName": "Notes"]])
        try await subscriber.subscribe(["subscriptionID": "db", "subscriptionType": "database"])
        _ = try await fixture.engine.modifyZones(scope, body: ["operations": [["operationType": "delete", "zone": ["zoneID": ["zoneName": "Notes"]]]]])
        let frames = try await subscriber.drain()
        #expect(frames.count == 2)
        #expect(frames.contains { $0["ck"]?["fet"]?["zid"] == "Notes" && $0["ck"]?["fet"]?["dbs"] == 2 })
        #expect(frames.contains { $0["ck"]?["met"]?["sid"] == "db" })
    }
}

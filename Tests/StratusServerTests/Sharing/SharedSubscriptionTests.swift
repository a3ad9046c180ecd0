import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import StratusServer
import Testing

/// Subscriptions on both sides of a share: the participant's database subscription on their
/// shared database, the owner's zone subscription on the shared zone.
@Suite struct SharedSubscriptionTests {
    /// A registered push token of `user`; returns its courier path.
    static func courier(_ world: SharingWorld, for user: CreatedUser) async throws -> String {
        let fixture = world.fixture
        let created = try await world.client.call(
            "/device/1/\(RouterFixture.container)/development/tokens/create?ckAPIToken=\(fixture.apiToken)&ckWebAuthToken=\(WebToken.escape(user.webAuthToken))",
            json: ["apnsEnvironment": "development"])
        let url = try #require(created.json["webcourierURL"]?.stringValue)
        let token = try #require(created.json["apnsToken"]?.stringValue)
        let registered = try await world.client.call(
            fixture.path("tokens/register", webAuthToken: user.webAuthToken),
            json: ["apnsEnvironment": "development", "apnsToken": .string(token)])
        #expect(registered.status == 200)
        return String(url[try #require(url.range(of: "/webcourier/")).lowerBound...])
    }

    static func subscription(_ id: String, type: String, zone: String? = nil) -> JSONValue {
        var subscription: [String: JSONValue] = [
            "subscriptionID": .string(id), "subscriptionType": .string(type),
            "notificationInfo": ["shouldSendContentAvailable": true],
        ]
        if let zone { subscription["zoneID"] = ["zoneName": .string(zone)] }
        return ["operations": [["operationType": "create", "subscription": .object(subscription)]]]
    }

    @Test func theParticipantsDatabaseSubscriptionFiresForTheirShareOnly() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .milliseconds(200))) { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let friend = try await world.user("Friend")
            let courier = try await SharedSubscriptionTests.courier(world, for: friend)
            let zoneWide = try await world.sharedCall("subscriptions/modify", as: friend, SharedSubscriptionTests.subscription("z", type: "zone", zone: "Lists"))
            #expect(zoneWide.json["subscriptions"]?[0]?["serverErrorCode"]?.stringValue == "BAD_REQUEST", "\(zoneWide.json)")
            let created = try await world.sharedCall("subscriptions/modify", as: friend, SharedSubscriptionTests.subscription("shared-db", type: "database"))
            #expect(created.json["subscriptions"]?[0]?["subscriptionID"]?.stringValue == "shared-db", "\(created.json)")

            _ = try await SharedDatabaseTests.sharedList(world, with: friend)
            let joined = try await client.call(courier, method: .get)
            #expect(joined.json["ck"]?["met"]?["sid"]?.stringValue == "shared-db", "\(joined.json)")
            #expect(joined.json["ck"]?["met"]?["dbs"]?.int64Value == 3)

            try await world.ownerModify([SharingWorld.record("unshared", type: "List")])
            let quiet = try await client.call(courier, method: .get)
            #expect(quiet.json == .null, "a record outside the share must not notify: \(quiet.json)")

            try await world.ownerModify([SharingWorld.record("milk", parent: "list")])
            let changed = try await client.call(courier, method: .get)
            #expect(changed.json["ck"]?["met"]?["sid"]?.stringValue == "shared-db", "\(changed.json)")

            try await world.ownerModify([SharingWorld.share("share-1", root: nil, participants: [], operation: "forceUpdate")])
            let removed = try await client.call(courier, method: .get)
            #expect(removed.json["ck"]?["met"]?["sid"]?.stringValue == "shared-db", "removal must notify: \(removed.json)")
        }
    }

    @Test func theOwnersZoneSubscriptionSeesAParticipantsEdit() async throws {
        try await RouterFixture.run(configuration: ServerConfiguration(courierTimeout: .milliseconds(200))) { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let friend = try await world.user("Friend")
            _ = try await SharedDatabaseTests.sharedList(world, with: friend)
            let courier = try await SharedSubscriptionTests.courier(world, for: world.owner)
            let created = try await world.ownerCall("subscriptions/modify", SharedSubscriptionTests.subscription("lists", type: "zone", zone: "Lists"))
            #expect(created.json["subscriptions"]?[0]?["subscriptionID"]?.stringValue == "lists", "\(created.json)")
            let added = try await world.sharedCall("records/modify", as: friend, ["zoneID": world.ownerZoneID, "operations": [SharingWorld.record("milk", parent: "list")]])
            #expect(SharingWorld.outcome(added) == "OK")
            let frame = try await client.call(courier, method: .get)
            #expect(frame.json["ck"]?["fet"]?["zid"]?.stringValue == "Lists", "\(frame.json)")
            #expect(frame.json["ck"]?["fet"]?["dbs"]?.int64Value == 2)
        }
    }
}

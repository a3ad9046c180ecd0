import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// The participant's shared database: what they see, how their edits reach the owner, leaving
/// and losing access.
@Suite struct SharedDatabaseTests {
    /// A list shared READ_WRITE with `friend`, accepted, holding `item` and an unshared `other`.
    static func sharedList(_ world: SharingWorld, with friend: CreatedUser, permission: String = "READ_WRITE") async throws -> String {
        let guid = try await world.shareList(
            with: friend, permission: permission,
            records: [SharingWorld.record("item", parent: "list"), SharingWorld.record("other", type: "List")])
        try await world.accept(guid, as: friend)
        return guid
    }

    /// Runs `body` on a fresh server where the owner shared a list with `friend`, who accepted.
    static func withSharedList(
        permission: String = "READ_WRITE",
        _ body: @escaping @Sendable (SharingWorld, CreatedUser) async throws -> Void
    ) async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let friend = try await world.user("Friend")
            _ = try await sharedList(world, with: friend, permission: permission)
            try await body(world, friend)
        }
    }

    @Test func aParticipantSeesTheHierarchyOnly() async throws {
        try await SharedDatabaseTests.withSharedList { world, friend in
            let lookup = try await world.sharedCall(
                "records/lookup", as: friend,
                [
                    "zoneID": world.ownerZoneID,
                    "records": [["recordName": "item"], ["recordName": "other"], ["recordName": "share-1"]],
                ])
            #expect(lookup.json["records"]?[0]?["parent"]?["recordName"]?.stringValue == "list", "\(lookup.json)")
            #expect(lookup.json["records"]?[0]?["zoneID"] == world.ownerZoneID)
            #expect(lookup.json["records"]?[1]?["serverErrorCode"]?.stringValue == "NOT_FOUND")
            #expect(lookup.json["records"]?[2]?["currentUserParticipant"]?["permission"]?.stringValue == "READ_WRITE")
            let query = try await world.sharedCall("records/query", as: friend, ["zoneID": world.ownerZoneID, "query": ["recordType": "List"]])
            let names = (query.json["records"]?.arrayValue ?? []).compactMap { $0["recordName"]?.stringValue }
            #expect(names == ["list"], "\(query.json)")
            // Without a parent in the hierarchy, a new record has no share to go in.
            let stray = try await world.sharedCall("records/modify", as: friend, ["zoneID": world.ownerZoneID, "operations": [SharingWorld.record("loose")]])
            #expect(SharingWorld.outcome(stray) == "ACCESS_DENIED", "\(stray.json)")
            let moved = try await world.sharedCall(
                "records/modify", as: friend,
                [
                    "zoneID": world.ownerZoneID,
                    "operations": [SharingWorld.record("item", parent: "other", operation: "forceUpdate")],
                ])
            #expect(SharingWorld.outcome(moved) == "ACCESS_DENIED", "\(moved.json)")
        }
    }

    @Test func changesReachTheOtherSideNamingWhoMadeThem() async throws {
        try await SharedDatabaseTests.withSharedList { world, friend in
            let ownerStart = try await world.ownerCall("changes/zone", ["zones": [["zoneID": ["zoneName": "Lists"]]]])
            let ownerToken = try #require(ownerStart.json["zones"]?[0]?["syncToken"]?.stringValue)
            let friendStart = try await world.sharedCall("changes/zone", as: friend, ["zones": [["zoneID": world.ownerZoneID]]])
            let friendToken = try #require(friendStart.json["zones"]?[0]?["syncToken"]?.stringValue, "\(friendStart.json)")
            let friendNames = Set((friendStart.json["zones"]?[0]?["records"]?.arrayValue ?? []).compactMap { $0["recordName"]?.stringValue })
            #expect(friendNames == ["list", "item", "share-1"])

            let added = try await world.sharedCall("records/modify", as: friend, ["zoneID": world.ownerZoneID, "operations": [SharingWorld.record("milk", parent: "list")]])
            #expect(SharingWorld.outcome(added) == "OK", "\(added.json)")
            let ownerSees = try await world.ownerCall("changes/zone", ["zones": [["zoneID": ["zoneName": "Lists"], "syncToken": .string(ownerToken)]]])
            let milk = ownerSees.json["zones"]?[0]?["records"]?.arrayValue?.first { $0["recordName"]?.stringValue == "milk" }
            #expect(milk?["modified"]?["userRecordName"]?.stringValue == friend.userRecordName, "\(ownerSees.json)")
            #expect(milk?["zoneID"]?["ownerRecordName"]?.stringValue == world.owner.userRecordName)

            try await world.ownerModify([SharingWorld.record("eggs", parent: "list"), SharingWorld.record("private-note", type: "List")])
            let friendSees = try await world.sharedCall("changes/zone", as: friend, ["zones": [["zoneID": world.ownerZoneID, "syncToken": .string(friendToken)]]])
            let seen = Set((friendSees.json["zones"]?[0]?["records"]?.arrayValue ?? []).compactMap { $0["recordName"]?.stringValue })
            #expect(seen == ["milk", "eggs"], "\(friendSees.json)")
        }
    }

    @Test func aRemovedParticipantLosesAccessAtOnce() async throws {
        try await SharedDatabaseTests.withSharedList { world, friend in
            let start = try await world.sharedCall("changes/database", as: friend, [:])
            #expect(start.json["zones"]?[0]?["zoneID"] == world.ownerZoneID, "\(start.json)")
            let token = try #require(start.json["syncToken"]?.stringValue)
            let quiet = try await world.sharedCall("changes/database", as: friend, ["syncToken": .string(token)])
            #expect(quiet.json["zones"]?.arrayValue?.isEmpty == true, "\(quiet.json)")

            try await world.ownerModify([SharingWorld.share("share-1", root: nil, participants: [], operation: "forceUpdate")])
            let read = try await world.sharedCall("records/lookup", as: friend, ["zoneID": world.ownerZoneID, "records": [["recordName": "item"]]])
            #expect(SharingWorld.outcome(read) == "ZONE_NOT_FOUND", "\(read.json)")
            let write = try await world.sharedCall("records/modify", as: friend, ["zoneID": world.ownerZoneID, "operations": [SharingWorld.record("late", parent: "list")]])
            #expect(SharingWorld.outcome(write) == "ZONE_NOT_FOUND")
            let changes = try await world.sharedCall("changes/database", as: friend, ["syncToken": .string(token)])
            #expect(changes.json["zones"]?[0]?["deleted"]?.boolValue == true, "\(changes.json)")
            #expect(changes.json["zones"]?[0]?["zoneID"] == world.ownerZoneID)
        }
    }

    @Test func aParticipantLeavesByDeletingTheShare() async throws {
        try await SharedDatabaseTests.withSharedList { world, friend in
            let leave = try await world.sharedCall(
                "records/modify", as: friend,
                [
                    "zoneID": world.ownerZoneID,
                    "operations": [["operationType": "forceDelete", "record": ["recordName": "share-1"]]],
                ])
            #expect(leave.json["records"]?[0]?["deleted"]?.boolValue == true, "\(leave.json)")
            let zones = try await world.sharedCall("zones/list", as: friend)
            #expect(zones.json["zones"]?.arrayValue?.isEmpty == true)
            let owner = try await world.ownerCall("records/lookup", ["zoneID": ["zoneName": "Lists"], "records": [["recordName": "list"], ["recordName": "share-1"]]])
            #expect(owner.json["records"]?[0]?["recordType"]?.stringValue == "List")
            #expect(owner.json["records"]?[1]?["participants"]?.arrayValue?.count == 1, "\(owner.json)")
        }
    }

    @Test func aReadOnlyParticipantChangesNothing() async throws {
        try await SharedDatabaseTests.withSharedList(permission: "READ_ONLY") { world, friend in
            let edit = try await world.sharedCall(
                "records/modify", as: friend,
                [
                    "zoneID": world.ownerZoneID, "atomic": false,
                    "operations": [
                        SharingWorld.record("item", parent: "list", operation: "forceUpdate"), SharingWorld.record("new", parent: "list"),
                    ],
                ])
            #expect(edit.json["records"]?[0]?["serverErrorCode"]?.stringValue == "ACCESS_DENIED", "\(edit.json)")
            #expect(edit.json["records"]?[1]?["serverErrorCode"]?.stringValue == "ACCESS_DENIED")
            let item = try await world.ownerCall("records/lookup", ["zoneID": ["zoneName": "Lists"], "records": [["recordName": "item"], ["recordName": "new"]]])
            #expect(item.json["records"]?[0]?["modified"]?["userRecordName"]?.stringValue == world.owner.userRecordName)
            #expect(item.json["records"]?[1]?["serverErrorCode"]?.stringValue == "NOT_FOUND")
        }
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// records/resolve and records/accept for each kind of caller, and the `/share/<guid>` page.
@Suite struct ShareAcceptanceTests {
    @Test func resolveAnswersEachKindOfCaller() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let invited = try await world.user("Ivy Invited", email: "ivy@example.com")
            let stranger = try await world.user("Sam Stranger")
            let guid = SharingWorld.guid(
                try await world.ownerModify([
                    SharingWorld.record("list", type: "List"), SharingWorld.record("item", parent: "list"),
                    SharingWorld.share("share-1", root: "list", participants: [["permission": "READ_WRITE", "userIdentity": ["lookupInfo": ["emailAddress": "ivy@example.com"]]]]),
                ]))
            let owner = try await world.shareCall("records/resolve", as: world.owner, guid: guid)
            let mine = try #require(owner.json["results"]?[0])
            #expect(mine["participantType"]?.stringValue == "OWNER")
            #expect(mine["participantStatus"]?.stringValue == "ACCEPTED")
            #expect(mine["databaseScope"]?.stringValue == "PRIVATE")
            #expect(mine["rootRecordName"]?.stringValue == "list")
            #expect(mine["zoneID"]?["ownerRecordName"]?.stringValue == world.owner.userRecordName)
            #expect(mine["ownerIdentity"]?["nameComponents"]?["givenName"]?.stringValue == "Olive")

            // The whole URL works as well as the bare GUID.
            let url = try #require(mine["webpageURL"]?.stringValue)
            let ivy = try await world.shareCall("records/resolve", as: invited, guid: url + "#Groceries")
            let hers = try #require(ivy.json["results"]?[0])
            #expect(hers["participantType"]?.stringValue == "USER")
            #expect(hers["participantStatus"]?.stringValue == "INVITED")
            #expect(hers["participantPermission"]?.stringValue == "READ_WRITE")
            #expect(hers["databaseScope"]?.stringValue == "SHARED")
            #expect(hers["rootRecord"]?["fields"]?["title"]?["value"]?.stringValue == "list")
            #expect(hers["share"]?["currentUserParticipant"]?["userIdentity"]?["userRecordName"]?.stringValue == invited.userRecordName)

            let outsider = try await world.shareCall("records/resolve", as: stranger, guid: guid)
            #expect(outsider.json["results"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND", "\(outsider.json)")
            #expect(outsider.json["results"]?[0]?["rootRecord"] == nil)
            let anonymous = try await world.shareCall("records/resolve", as: nil, guid: guid)
            #expect(anonymous.json["results"]?[0]?["serverErrorCode"]?.stringValue == "AUTHENTICATION_REQUIRED", "\(anonymous.json)")
            let unknown = try await world.shareCall("records/resolve", as: invited, guid: "AAAAAAAAAAAAAAAA")
            #expect(unknown.json["results"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND")

            // Once public, strangers and anonymous callers resolve it as visitors.
            try await world.ownerModify([
                SharingWorld.share(
                    "share-1", root: nil, participants: [["permission": "READ_WRITE", "userIdentity": ["lookupInfo": ["emailAddress": "ivy@example.com"]]]],
                    publicPermission: "READ_ONLY", operation: "forceUpdate")
            ])
            for caller in [stranger, nil] {
                let visitor = try await world.shareCall("records/resolve", as: caller, guid: guid)
                #expect(visitor.json["results"]?[0]?["participantType"]?.stringValue == "PUBLIC_USER", "\(visitor.json)")
                #expect(visitor.json["results"]?[0]?["participantStatus"]?.stringValue == "UNKNOWN")
                #expect(visitor.json["results"]?[0]?["participantPermission"]?.stringValue == "READ_ONLY")
            }
            let anonymousAccept = try await world.shareCall("records/accept", as: nil, guid: guid)
            #expect(anonymousAccept.json["results"]?[0]?["serverErrorCode"]?.stringValue == "AUTHENTICATION_REQUIRED")
        }
    }

    @Test func acceptingTwiceIsRefusedAndTheZoneAppearsOnce() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let friend = try await world.user("Friend")
            let guid = try await world.shareList(with: friend, permission: "READ_ONLY")
            let before = try await world.sharedCall("zones/list", as: friend)
            #expect(before.json["zones"]?.arrayValue?.isEmpty == true)
            try await world.accept(guid, as: friend)
            let again = try await world.shareCall("records/accept", as: friend, guid: guid)
            #expect(again.json["results"]?[0]?["serverErrorCode"]?.stringValue == "BAD_REQUEST")
            #expect(again.json["results"]?[0]?["reason"]?.stringValue?.contains("already accepted") == true)
            let byOwner = try await world.shareCall("records/accept", as: world.owner, guid: guid)
            #expect(byOwner.json["results"]?[0]?["serverErrorCode"]?.stringValue == "BAD_REQUEST")
            let zones = try await world.sharedCall("zones/list", as: friend)
            #expect(zones.json["zones"]?.arrayValue?.count == 1)
            #expect(zones.json["zones"]?[0]?["zoneID"] == world.ownerZoneID)
            // The owner sees the acceptance on the share record.
            let share = try await world.ownerCall("records/lookup", ["zoneID": ["zoneName": "Lists"], "records": [["recordName": "share-1"]]])
            #expect(share.json["records"]?[0]?["participants"]?[1]?["acceptanceStatus"]?.stringValue == "ACCEPTED", "\(share.json)")
        }
    }

    @Test func theSharePageSaysWhoSharedWhatEscaped() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let guid = SharingWorld.guid(
                try await world.ownerModify([
                    SharingWorld.record("list", type: "List"), SharingWorld.share("share-1", root: "list", participants: [], title: "<script>alert(1)</script>"),
                ]))
            let page = try await client.execute(uri: "/share/\(guid)", method: .get) { response in
                (Int(response.status.code), String(buffer: response.body), response.headers[.contentType])
            }
            #expect(page.0 == 200)
            #expect(page.2 == "text/html; charset=utf-8")
            #expect(page.1.contains("Olive Owner shared the record “list”"))
            #expect(page.1.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.1.contains("<script>"))
            let missing = try await client.execute(uri: "/share/nothing-here", method: .get) { Int($0.status.code) }
            #expect(missing == 404)
        }
    }
}

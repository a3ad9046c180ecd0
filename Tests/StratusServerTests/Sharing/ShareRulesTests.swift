import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Owner-side rules: one share per record, the participant limit, what a share record answers with.
@Suite struct ShareRulesTests {
    @Test func aShareRecordAnswersWithItsParticipantsOwnerAndURL() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let bea = try await world.user("Bea Reader", email: "bea@example.com")
            let records = try await world.ownerModify([
                SharingWorld.record("list", type: "List"),
                SharingWorld.share(
                    "share-1", root: "list",
                    participants: [
                        ["permission": "READ_WRITE", "userIdentity": ["lookupInfo": ["emailAddress": "Bea@Example.com"]]],
                        ["userIdentity": ["lookupInfo": ["emailAddress": "nobody@example.com"]]],
                    ]),
            ])
            let share = try #require(records.first { $0["recordName"]?.stringValue == "share-1" })
            let guid = try #require(share["shortGUID"]?.stringValue)
            #expect(share["url"]?.stringValue?.hasSuffix("/share/\(guid)") == true)
            #expect(share["publicPermission"]?.stringValue == "NONE")
            #expect(share["share"]?["recordName"]?.stringValue == "list")
            #expect(share["fields"]?["cloudkit.title"]?["value"]?.stringValue == "Groceries")
            #expect(share["fields"]?["___shareState"] == nil)
            #expect(share["owner"]?["type"]?.stringValue == "OWNER")
            #expect(share["currentUserParticipant"]?["type"]?.stringValue == "OWNER")
            let participants = share["participants"]?.arrayValue ?? []
            #expect(participants.count == 3)
            // The address of a known user is matched to them; an unknown one stays an address.
            #expect(participants[1]["userIdentity"]?["userRecordName"]?.stringValue == bea.userRecordName)
            #expect(participants[1]["permission"]?.stringValue == "READ_WRITE")
            #expect(participants[1]["acceptanceStatus"]?.stringValue == "INVITED")
            #expect(participants[2]["userIdentity"]?["userRecordName"] == nil)
            #expect(participants[2]["permission"]?.stringValue == "READ_ONLY")
            // The root points at its share, and its change tag is the one after that link.
            let root = try #require(records.first { $0["recordName"]?.stringValue == "list" })
            #expect(root["share"]?["recordName"]?.stringValue == "share-1")
            let fetched = try await world.ownerCall("records/lookup", ["zoneID": ["zoneName": "Lists"], "records": [["recordName": "list"]]])
            #expect(fetched.json["records"]?[0]?["recordChangeTag"] == root["recordChangeTag"])
            #expect(fetched.json["records"]?[0]?["fields"]?["___share"] == nil)
        }
    }

    @Test func aRecordBelongsToOneShareOnly() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            try await world.ownerModify([
                SharingWorld.record("folder", type: "List"), SharingWorld.record("list", type: "List", parent: "folder"),
                SharingWorld.record("item", parent: "list"),
            ])
            try await world.ownerModify([
                SharingWorld.record("list", type: "List", parent: "folder", operation: "forceUpdate"),
                SharingWorld.share("share-1", root: "list", participants: []),
            ])
            let refusals: [(String, JSONValue, String)] = [
                ("a record below a shared root", SharingWorld.share("share-2", root: "item", participants: []), "already in share 'share-1'"),
                ("a record above a shared root", SharingWorld.share("share-2", root: "folder", participants: []), "root of share 'share-1'"),
                ("the zone of a hierarchy share", SharingWorld.share("cloudkit.zoneshare", root: nil, participants: []), "already holds 1 share"),
            ]
            for (what, operation, reason) in refusals {
                let root = operation["record"]?["forRecord"]?["recordName"]?.stringValue
                var operations = [operation]
                if let root { operations.insert(SharingWorld.record(root, type: root == "item" ? "Item" : "List", operation: "forceUpdate"), at: 0) }
                let response = try await world.ownerCall("records/modify", ["zoneID": ["zoneName": "Lists"], "operations": .array(operations), "atomic": false])
                let result = response.json["records"]?[operations.count - 1]
                #expect(result?["serverErrorCode"]?.stringValue == "BAD_REQUEST", "\(what): \(response.json)")
                let text = result?["reason"]?.stringValue ?? ""
                #expect(text.hasPrefix(ReasonPrefix.alreadyShared) && text.contains(reason), "\(what): \(text)")
            }
            // A zone shared as a whole takes no hierarchy share.
            _ = try await world.ownerCall("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Board"]]]]])
            let zoneShare = try await world.ownerCall(
                "records/modify",
                [
                    "zoneID": ["zoneName": "Board"],
                    "operations": [
                        SharingWorld.record("note", type: "List"), SharingWorld.share("cloudkit.zoneshare", root: nil, participants: []),
                    ],
                ])
            #expect(zoneShare.json["records"]?[1]?["recordName"]?.stringValue == "cloudkit.zoneshare", "\(zoneShare.json)")
            let inside = try await world.ownerCall(
                "records/modify",
                [
                    "zoneID": ["zoneName": "Board"],
                    "operations": [
                        SharingWorld.record("note", type: "List", operation: "forceUpdate"), SharingWorld.share("share-3", root: "note", participants: []),
                    ],
                ])
            #expect(inside.json["records"]?[1]?["reason"]?.stringValue?.hasPrefix(ReasonPrefix.alreadyShared) == true, "\(inside.json)")
        }
    }

    @Test func aShareTakesAtMostOneHundredParticipants() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            func invitees(_ count: Int) -> [JSONValue] {
                (0..<count).map { ["userIdentity": ["lookupInfo": ["emailAddress": .string("friend\($0)@example.com")]]] }
            }
            // 99 invitees and the owner: the limit.
            try await world.ownerModify([SharingWorld.record("list", type: "List"), SharingWorld.share("share-1", root: "list", participants: invitees(99))])
            let over = try await world.ownerCall(
                "records/modify",
                [
                    "zoneID": ["zoneName": "Lists"],
                    "operations": [
                        SharingWorld.share("share-1", root: nil, participants: invitees(100), operation: "forceUpdate")
                    ],
                ])
            let reason = over.json["records"]?[0]?["reason"]?.stringValue ?? ""
            #expect(reason.hasPrefix(ReasonPrefix.tooManyParticipants) && reason.contains("101"), "\(over.json)")
        }
    }

    @Test func aNewShareNeedsItsRootInTheSameRequest() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            try await world.ownerModify([SharingWorld.record("list", type: "List")])
            let alone = try await world.ownerCall(
                "records/modify",
                [
                    "zoneID": ["zoneName": "Lists"],
                    "operations": [
                        SharingWorld.share("share-1", root: "list", participants: [])
                    ],
                ])
            #expect(alone.json["records"]?[0]?["reason"]?.stringValue?.contains("same records/modify request") == true, "\(alone.json)")
            let inDefaultZone = try await world.ownerCall(
                "records/modify",
                [
                    "operations": [
                        SharingWorld.record("list", type: "List"), SharingWorld.share("share-1", root: "list", participants: []),
                    ]
                ])
            #expect(inDefaultZone.json["records"]?[1]?["reason"]?.stringValue?.contains("default zone") == true, "\(inDefaultZone.json)")
        }
    }

    @Test func deletingTheShareStopsSharingAndKeepsTheRecords() async throws {
        try await RouterFixture.run { fixture, client in
            let world = try await SharingWorld.make(fixture, client)
            let friend = try await world.user("Friend")
            let guid = try await world.shareList(with: friend, permission: "READ_WRITE")
            try await world.accept(guid, as: friend)
            try await world.ownerModify([["operationType": "forceDelete", "record": ["recordName": "share-1"]]])
            let zones = try await world.sharedCall("zones/list", as: friend)
            #expect(zones.json["zones"]?.arrayValue?.isEmpty == true, "\(zones.json)")
            let root = try await world.ownerCall("records/lookup", ["zoneID": ["zoneName": "Lists"], "records": [["recordName": "list"]]])
            #expect(root.json["records"]?[0]?["recordType"]?.stringValue == "List")
            #expect(root.json["records"]?[0]?["share"] == nil, "\(root.json)")
            let resolved = try await world.shareCall("records/resolve", as: friend, guid: guid)
            #expect(resolved.json["results"]?[0]?["serverErrorCode"]?.stringValue == "NOT_FOUND")
        }
    }
}

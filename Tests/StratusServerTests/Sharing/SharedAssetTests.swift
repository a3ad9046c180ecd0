import Foundation
import HummingbirdTesting
import StratusEngine
import StratusModel
import Testing

/// Assets of shared records download for participants like for their owner.
@Suite struct SharedAssetTests {
    @Test func aParticipantDownloadsAnAssetOfASharedRecord() async throws {
        try await AssetFixture.run { assets in
            let engine = assets.engine
            let ownerUser = try await engine.createUser(name: "Owner", container: AssetFixture.container)
            let friendUser = try await engine.createUser(name: "Friend", container: AssetFixture.container)
            var owner = assets
            owner.database = "private"
            owner.webAuthToken = ownerUser.webAuthToken
            _ = try await owner.call("zones/modify", ["operations": [["operationType": "create", "zone": ["zoneID": ["zoneName": "Album"]]]]])
            let bytes = Array("a photo of the beach".utf8)
            let (uploaded, single) = try await owner.post(bytes, to: try await owner.uploadPath(record: "photo", zone: "Album"))
            #expect(uploaded == 200)
            let saved = try await owner.call(
                "records/modify",
                [
                    "zoneID": ["zoneName": "Album"],
                    "operations": [
                        SharingWorld.record("album", type: "Doc"),
                        [
                            "operationType": "create",
                            "record": [
                                "recordName": "photo", "recordType": "Doc", "parent": ["recordName": "album"],
                                "fields": ["file": ["value": try #require(single["singleFile"]), "type": "ASSET"]],
                            ],
                        ],
                        SharingWorld.share("share-1", root: "album", participants: [SharingWorld.participant(friendUser, "READ_ONLY")]),
                    ],
                ])
            let guid = try #require(saved.json["records"]?[2]?["shortGUID"]?.stringValue, "\(saved.json)")

            var friend = assets
            friend.webAuthToken = friendUser.webAuthToken
            let accepted = try await friend.call("records/accept", ["shortGUIDs": [["value": .string(guid)]]])
            #expect(accepted.json["results"]?[0]?["participantStatus"]?.stringValue == "ACCEPTED", "\(accepted.json)")
            friend.database = "shared"
            let found = try await friend.call(
                "records/lookup",
                [
                    "zoneID": ["zoneName": "Album", "ownerRecordName": .string(ownerUser.userRecordName)],
                    "records": [["recordName": "photo"]],
                ])
            let url = try #require(found.json["records"]?[0]?["fields"]?["file"]?["value"]?["downloadURL"]?.stringValue, "\(found.json)")
            let download = try await friend.download(url)
            #expect(download.status == 200)
            #expect(download.body == bytes)
        }
    }
}

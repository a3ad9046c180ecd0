import Foundation
import StratusKit
import Testing

/// A hierarchy share end to end through StratusKit, written the way Apple's documentation writes
/// sharing code: share, invite by email, resolve, accept, read and edit in the shared database,
/// permission changes and removal.
@Suite("Hierarchy sharing against a live server")
struct HierarchyShareLiveTests {
    @Test("the owner shares a list by email; the friend resolves, accepts, reads and adds an item the owner sees")
    func shareAcceptAndEdit() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readWrite)

        #expect(share.url?.path.hasPrefix("/share/") == true)
        #expect(share.participants.count == 2)
        #expect(share.owner.role == .owner)
        #expect(share.currentUserParticipant?.role == .owner)
        let invited = try #require(share.participants.first { $0.role == .privateUser })
        #expect(invited.acceptanceStatus == .pending)
        #expect(invited.permission == .readWrite)
        let ownerList = try await users.owner.privateCloudDatabase.record(for: list.recordID)
        #expect(ownerList.share?.recordID == share.recordID)

        let metadata = try await users.friend.shareMetadata(for: try #require(share.url))
        #expect(metadata.participantRole == .privateUser)
        #expect(metadata.participantStatus == .pending)
        #expect(metadata.participantPermission == .readWrite)
        #expect(metadata.hierarchicalRootRecordID == users.inSharedDatabase(list.recordID))
        #expect(metadata.ownerIdentity.userRecordID?.recordName == users.ownerName)
        #expect(metadata.share[CKShare.SystemFieldKey.title] as? String == "Groceries")
        #expect(metadata.rootRecord == nil, "the root comes only when asked for")

        let accepted = try await users.friend.accept(metadata)
        #expect(accepted.recordID.recordName == share.recordID.recordName)
        #expect(accepted.currentUserParticipant?.acceptanceStatus == .accepted)
        #expect(
            await sharingError { try await users.friend.accept(metadata) }?.code == .invalidArguments,
            "accepting twice is refused")

        let shared = users.friend.sharedCloudDatabase
        let zones = try await shared.allRecordZones()
        #expect(zones.map(\.zoneID) == [CKRecordZone.ID(zoneName: "Lists", ownerName: users.ownerName)])
        let root = try await shared.record(for: users.inSharedDatabase(list.recordID))
        #expect(root["title"] as? String == "Groceries")
        let child = try await shared.record(for: users.inSharedDatabase(item.recordID))
        #expect(child["title"] as? String == "Milk")
        #expect(child.parent?.recordID == root.recordID)

        let bread = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "bread", zoneID: root.recordID.zoneID))
        bread["title"] = "Bread"
        bread.setParent(root)
        try await shared.save(bread)
        child["title"] = "Oat milk"
        try await shared.save(child)

        let seen = try await users.owner.privateCloudDatabase.record(for: CKRecord.ID(recordName: "bread", zoneID: list.recordID.zoneID))
        #expect(seen["title"] as? String == "Bread")
        #expect(seen.lastModifiedUserRecordID?.recordName == users.friendName)
        let edited = try await users.owner.privateCloudDatabase.record(for: item.recordID)
        #expect(edited["title"] as? String == "Oat milk")

        #expect(
            await sharingError { try await shared.deleteRecord(withID: root.recordID) }?.code == .permissionFailure,
            "only the owner deletes the root")
        let ownShare = try #require(try await shared.record(for: users.inSharedDatabase(share.recordID)) as? CKShare)
        ownShare.publicPermission = .readWrite
        #expect(
            await sharingError { try await shared.save(ownShare) }?.code == .permissionFailure,
            "only the owner changes the share")
    }

    @Test("a read-only friend reads but cannot write; made read-write they can; removed, they lose the list")
    func permissionChangesAndRemoval() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readOnly)
        try await users.friendAccepts(share)
        let shared = users.friend.sharedCloudDatabase

        let child = try await shared.record(for: users.inSharedDatabase(item.recordID))
        child["title"] = "Skimmed milk"
        #expect(await sharingError { try await shared.save(child) }?.code == .permissionFailure)

        // The owner makes the friend an editor: fetch the share, change the participant, save.
        let current = try #require(try await users.owner.privateCloudDatabase.record(for: share.recordID) as? CKShare)
        let friend = try #require(current.participants.first { $0.userIdentity.userRecordID?.recordName == users.friendName })
        #expect(friend.acceptanceStatus == .accepted)
        friend.permission = .readWrite
        let upgraded = try #require(try await users.owner.privateCloudDatabase.save(current) as? CKShare)
        #expect(upgraded.participants.first { $0.participantID == friend.participantID }?.permission == .readWrite)
        let again = try await shared.record(for: users.inSharedDatabase(item.recordID))
        again["title"] = "Skimmed milk"
        try await shared.save(again)

        // The owner removes the friend: their next read is refused and the zone is gone.
        upgraded.removeParticipant(try #require(upgraded.participants.first { $0.participantID == friend.participantID }))
        try await users.owner.privateCloudDatabase.save(upgraded)
        let refused = await sharingError { try await shared.record(for: users.inSharedDatabase(item.recordID)) }
        #expect(refused?.code == .zoneNotFound)
        #expect(try await shared.allRecordZones().isEmpty)
        #expect(await sharingError { try await users.friend.shareMetadata(for: try #require(share.url)) }?.code == .unknownItem)
        let kept = try await users.owner.privateCloudDatabase.record(for: item.recordID)
        #expect(kept["title"] as? String == "Skimmed milk", "the owner's records stay")
    }

    @Test("a record already in a share cannot be shared again; strangers and visitors cannot open a private share")
    func alreadySharedAndOutsiders() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readWrite)
        let url = try #require(share.url)

        let second = CKShare(rootRecord: item)
        let (results, _) = try await users.owner.privateCloudDatabase.modifyRecords(saving: [item, second], deleting: [], atomically: false)
        #expect(await sharingError { try results[second.recordID]?.get() }?.code == .alreadyShared)

        #expect(await sharingError { try await users.stranger.shareMetadata(for: url) }?.code == .unknownItem)
        #expect(await sharingError { try await users.anonymous.shareMetadata(for: url) }?.code == .notAuthenticated)
        #expect(await sharingError { try await users.stranger.sharedCloudDatabase.record(for: users.inSharedDatabase(list.recordID)) } != nil)

        let ownView = try await users.owner.shareMetadata(for: url)
        #expect(ownView.participantRole == .owner)
        #expect(ownView.hierarchicalRootRecordID == list.recordID, "the owner's IDs name the owner as the current user")
        #expect(await sharingError { try await users.owner.accept(ownView) }?.code == .invalidArguments)
    }

    @Test("the friend leaves by deleting the share from their shared database; the owner's data stays")
    func participantLeaves() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readWrite)
        try await users.friendAccepts(share)
        try await users.friend.sharedCloudDatabase.deleteRecord(withID: users.inSharedDatabase(share.recordID))
        #expect(try await users.friend.sharedCloudDatabase.allRecordZones().isEmpty)
        let current = try #require(try await users.owner.privateCloudDatabase.record(for: share.recordID) as? CKShare)
        #expect(current.participants.first { $0.userIdentity.userRecordID?.recordName == users.friendName }?.acceptanceStatus != .accepted)
        #expect(try await users.owner.privateCloudDatabase.record(for: item.recordID)["title"] as? String == "Milk")
    }

    @Test("a share holds at most 100 participants")
    func participantLimit() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, _) = try await users.makeList()
        let share = CKShare(rootRecord: list)
        let emails = (1...100).map { "guest\($0)@example.com" }
        for (_, result) in try await users.owner.shareParticipants(forEmailAddresses: emails) {
            share.addParticipant(try result.get())
        }
        #expect(share.participants.count == 101)
        let (results, _) = try await users.owner.privateCloudDatabase.modifyRecords(saving: [list, share], deleting: [])
        #expect(await sharingError { try results[share.recordID]?.get() }?.code == .tooManyParticipants)
    }
}

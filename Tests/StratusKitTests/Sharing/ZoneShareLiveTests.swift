import Foundation
import StratusKit
import Testing

/// Zone-wide shares, public permission and the operation forms of the sharing API, against a
/// live server.
@Suite("Zone-wide sharing and sharing operations against a live server")
struct ZoneShareLiveTests {
    @Test("participants found by an operation, metadata with the root fetched by an operation, accepted by an operation")
    func operationForms() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()

        let lookup = CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: users.friendEmail)])
        let found = Collected<CKShare.Participant>()
        let participants = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[CKShare.Participant], any Error>) in
            lookup.perShareParticipantResultBlock = { _, result in if case .success(let participant) = result { found.append(participant) } }
            lookup.fetchShareParticipantsResultBlock = { result in continuation.resume(with: result.map { _ in found.items }) }
            users.owner.add(lookup)
        }
        #expect(participants.count == 1)
        #expect(participants.first?.userIdentity.lookupInfo?.emailAddress == users.friendEmail)

        let share = CKShare(rootRecord: list)
        participants[0].permission = .readWrite
        share.addParticipant(participants[0])
        let save = CKModifyRecordsOperation(recordsToSave: [list, share], recordIDsToDelete: nil)
        let saved = Collected<CKRecord>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            save.perRecordSaveBlock = { _, result in if case .success(let record) = result { saved.append(record) } }
            save.modifyRecordsResultBlock = { continuation.resume(with: $0) }
            users.owner.privateCloudDatabase.add(save)
        }
        let savedShares = saved.items.compactMap { $0 as? CKShare }
        let url = try #require(savedShares.first?.url)

        let fetch = CKFetchShareMetadataOperation(shareURLs: [url])
        fetch.shouldFetchRootRecord = true
        fetch.rootRecordDesiredKeys = ["title"]
        let metadatas = Collected<CKShare.Metadata>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            fetch.perShareMetadataResultBlock = { _, result in if case .success(let metadata) = result { metadatas.append(metadata) } }
            fetch.fetchShareMetadataResultBlock = { continuation.resume(with: $0) }
            users.friend.add(fetch)
        }
        let metadata = try #require(metadatas.items.first)
        #expect(metadata.rootRecord?["title"] as? String == "Groceries")
        #expect(metadata.rootRecord?.recordID == users.inSharedDatabase(list.recordID))

        let accept = CKAcceptSharesOperation(shareMetadatas: [metadata])
        let accepted = Collected<CKShare>()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            accept.perShareResultBlock = { _, result in if case .success(let share) = result { accepted.append(share) } }
            accept.acceptSharesResultBlock = { continuation.resume(with: $0) }
            users.friend.add(accept)
        }
        #expect(accepted.items.count == 1)
        let child = try await users.friend.sharedCloudDatabase.record(for: users.inSharedDatabase(item.recordID))
        #expect(child["title"] as? String == "Milk")
    }

    @Test("a zone-wide share with public read permission: anyone signed in with the URL joins and reads the whole zone, but cannot write")
    func zoneWidePublicShare() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList(zoneName: "Household")
        let share = CKShare(recordZoneID: list.recordID.zoneID)
        share.publicPermission = .readOnly
        let saved = try #require(try await users.owner.privateCloudDatabase.save(share) as? CKShare)
        #expect(saved.recordID.recordName == CKRecordNameZoneWideShare)
        let url = try #require(saved.url)

        let metadata = try await users.stranger.shareMetadata(for: url)
        #expect(metadata.hierarchicalRootRecordID == nil)
        #expect(metadata.participantRole == .publicUser)
        #expect(metadata.participantPermission == .readOnly)
        try await users.stranger.accept(metadata)

        let shared = users.stranger.sharedCloudDatabase
        let zoneID = CKRecordZone.ID(zoneName: "Household", ownerName: users.ownerName)
        let sharedZones = try await shared.allRecordZones()
        #expect(sharedZones.map(\.zoneID) == [zoneID])
        // The zone knows its share, in both databases (CKRecordZone.share), and the share record in
        // the zone's change feed names the caller's own participant.
        #expect(sharedZones.first?.share?.recordID.recordName == CKRecordNameZoneWideShare)
        #expect(try await shared.recordZone(for: zoneID).share?.recordID.recordName == CKRecordNameZoneWideShare)
        #expect(try await users.owner.privateCloudDatabase.recordZone(for: list.recordID.zoneID).share?.recordID.recordName == CKRecordNameZoneWideShare)
        let ownerZones = try await users.owner.privateCloudDatabase.allRecordZones()
        #expect(ownerZones.first { $0.zoneID.zoneName == "Household" }?.share != nil)
        #expect(ownerZones.first { $0.zoneID.zoneName == CKRecordZone.ID.defaultZoneName }?.share == nil)
        let feed = try await shared.recordZoneChanges(inZoneWith: zoneID, since: nil)
        let fedShare = feed.modificationResultsByID.values.compactMap { try? $0.get().record as? CKShare }.first
        #expect(fedShare?.currentUserParticipant?.role == .publicUser, "the share in the change feed names the caller's own participant")
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        let (matches, _) = try await shared.records(matching: query, inZoneWith: zoneID)
        #expect(matches.map { $0.0.recordName } == [item.recordID.recordName])

        let note = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "note", zoneID: zoneID))
        note["title"] = "Call the plumber"
        #expect(await sharingError { try await shared.save(note) }?.code == .permissionFailure)

        let second = CKShare(rootRecord: list)
        let (results, _) = try await users.owner.privateCloudDatabase.modifyRecords(saving: [list, second], deleting: [], atomically: false)
        #expect(
            await sharingError { try results[second.recordID]?.get() }?.code == .alreadyShared,
            "a zone with a zone-wide share takes no hierarchy share")

        try await users.owner.privateCloudDatabase.deleteRecord(withID: saved.recordID)
        #expect(try await shared.allRecordZones().isEmpty, "deleting the share stops sharing")
        #expect(try await users.owner.privateCloudDatabase.record(for: item.recordID)["title"] as? String == "Milk")
    }
}

/// Collects values from an operation's callbacks.
final class Collected<Item>: @unchecked Sendable {
    // @unchecked Sendable: every access holds the lock.
    private let lock = NSLock()
    private var stored: [Item] = []
    func append(_ item: Item) { lock.withLock { stored.append(item) } }
    var items: [Item] { lock.withLock { stored } }
}

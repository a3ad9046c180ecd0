import Foundation
import StratusKit
import StratusSync
import Testing

/// StratusSync on the shared database: after accepting a share, the participant's engine keeps
/// the shared zone offline, sends edits within the permission, and drops the zone with an event
/// when the owner removes them.
@Suite("StratusSync on the shared database against a live server")
struct SharedSyncLiveTests {
    @Test("the participant's engine fetches the shared zone, sends an edit, is refused when read-only and loses the zone when removed")
    func sharedZoneLifecycle() async throws {
        let users = try await SharingUsers.make(on: LiveServer.shared())
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readWrite)
        try await users.friendAccepts(share)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratussync-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = try SyncEngine(
            .init(
                container: users.friend, storeURL: folder.appendingPathComponent("friend.sqlite"),
                retry: SyncRetryPolicy(maximumAttempts: 2, initialDelay: 0.05), databaseScope: .shared))
        let log = EventLog(engine)

        try await engine.fetchChanges()
        let sharedZone = CKRecordZone.ID(zoneName: "Lists", ownerName: users.ownerName)
        #expect(try await engine.zoneIDs() == [sharedZone])
        let milk = try #require(try await engine.record(for: users.inSharedDatabase(item.recordID)))
        #expect(milk["title"] as? String == "Milk")
        #expect(try await engine.record(for: users.inSharedDatabase(list.recordID))?["title"] as? String == "Groceries")

        // Offline edit and a new item under the list, sent within the read-write permission.
        milk["title"] = "Oat milk"
        try await engine.save(milk)
        let bread = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "bread", zoneID: sharedZone))
        bread["title"] = "Bread"
        bread.setParent(users.inSharedDatabase(list.recordID))
        try await engine.save(bread)
        try await engine.sendChanges()
        #expect(try await engine.pendingRecordIDs().isEmpty)
        let ownerDatabase = users.owner.privateCloudDatabase
        #expect(try await ownerDatabase.record(for: item.recordID)["title"] as? String == "Oat milk")
        #expect(try await ownerDatabase.record(for: CKRecord.ID(recordName: "bread", zoneID: list.recordID.zoneID))["title"] as? String == "Bread")

        // The owner makes the friend read-only: the next edit is refused and reported.
        let current = try #require(try await ownerDatabase.record(for: share.recordID) as? CKShare)
        let friend = try #require(current.participants.first { $0.userIdentity.userRecordID?.recordName == users.friendName })
        friend.permission = .readOnly
        let readOnly = try #require(try await ownerDatabase.save(current) as? CKShare)
        try await edit(engine, users.inSharedDatabase(item.recordID)) { $0["title"] = "Soy milk" }
        try await engine.sendChanges()
        let refused = await log.events().compactMap { event -> CKError? in
            if case .changeRefused(let id, let error) = event, id == users.inSharedDatabase(item.recordID) { return error }
            return nil
        }
        #expect(refused.map(\.code) == [.permissionFailure])
        #expect(try await ownerDatabase.record(for: item.recordID)["title"] as? String == "Oat milk")

        // The owner removes the friend: the engine drops the zone and says so.
        readOnly.removeParticipant(try #require(readOnly.participants.first { $0.participantID == friend.participantID }))
        try await ownerDatabase.save(readOnly)
        try await engine.fetchChanges()
        #expect(try await engine.zoneIDs().isEmpty)
        #expect(try await engine.record(for: users.inSharedDatabase(item.recordID)) == nil)
        let dropped = await log.events().contains { event in
            if case .zoneDeleted(let zoneID, _) = event { return zoneID == sharedZone }
            return false
        }
        #expect(dropped)
    }
}

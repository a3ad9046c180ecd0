import Foundation
import StratusKit
import Testing

/// CKSyncEngine on the shared database, as a participant's app runs it: the shared zone arrives
/// through the engine, an edit goes back within the participant's permission, and the owner
/// sees it.
@Suite("CKSyncEngine on the shared database against a live server")
struct SharedSyncEngineLiveTests {
    @Test func aParticipantsEngineFetchesTheSharedZoneAndSendsAnEditTheOwnerSees() async throws {
        let server = try await LiveServer.shared()
        let users = try await SharingUsers.make(on: server)
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readWrite)
        try await users.friendAccepts(share)

        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(users.friend.sharedCloudDatabase, store)
        try await engine.fetchChanges()
        let sharedItem = users.inSharedDatabase(item.recordID)
        let fetched = try #require(store.records[sharedItem], "the shared item arrives through the engine")
        #expect(fetched["title"] as? String == "Milk")
        #expect(store.records[users.inSharedDatabase(list.recordID)] != nil)

        fetched["title"] = "Oat milk"
        store.save(fetched, engine: engine)
        try await engine.sendChanges()
        #expect(store.contents.withLock { $0.failedSaves }.isEmpty)
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
        let seenByOwner = try await users.owner.privateCloudDatabase.record(for: item.recordID)
        #expect(seenByOwner["title"] as? String == "Oat milk")
    }

    @Test func aReadOnlyParticipantsEditComesBackAsAFailedSave() async throws {
        let server = try await LiveServer.shared()
        let users = try await SharingUsers.make(on: server)
        let (list, item) = try await users.makeList()
        let share = try await users.shareList(list, permission: .readOnly)
        try await users.friendAccepts(share)

        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(users.friend.sharedCloudDatabase, store)
        try await engine.fetchChanges()
        let fetched = try #require(store.records[users.inSharedDatabase(item.recordID)])
        fetched["title"] = "Not allowed"
        store.save(fetched, engine: engine)
        try await engine.sendChanges()
        let failures = store.contents.withLock { $0.failedSaves }
        #expect(failures.map(\.record.recordID) == [fetched.recordID])
        #expect(engine.state.pendingRecordZoneChanges.isEmpty, "a refusal is final: the change leaves the pending list")
        let seenByOwner = try await users.owner.privateCloudDatabase.record(for: item.recordID)
        #expect(seenByOwner["title"] as? String == "Milk")
    }
}

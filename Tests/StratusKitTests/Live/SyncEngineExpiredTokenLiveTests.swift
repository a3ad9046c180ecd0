import Foundation
import StratusKit
import Testing

/// CKSyncEngine when its saved change tokens are older than the server keeps change history for:
/// the engine starts those fetches over by itself and the app sees current records, no error.
@Suite("CKSyncEngine with expired change tokens against a live server")
struct SyncEngineExpiredTokenLiveTests {
    @Test func tokensOlderThanTheServersHistoryAreFetchedAgainInsideTheEngine() async throws {
        // Compaction is server-wide: this test has a server of its own.
        let server = try await LiveServer.dedicated()
        let container = try await server.makeContainer()
        let writer = try #require(server.anotherDevice(of: container))
        let zone = try await writer.privateCloudDatabase.save(CKRecordZone(zoneName: "Old"))
        _ = try await writer.privateCloudDatabase.modifyRecords(
            saving: ["ann", "bob"].map { SyncEngineLiveTests.contact($0, in: zone.zoneID) }, deleting: [])

        let store = ContactsStore()
        let first = SyncEngineLiveTests.engine(container.privateCloudDatabase, store)
        try await first.fetchChanges()
        let saved = try #require(store.serialization)
        #expect(store.records.count == 2)

        // While the app is not running: a new record, and the server forgets the history since.
        _ = try await writer.privateCloudDatabase.save(SyncEngineLiveTests.contact("cy", in: zone.zoneID))
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await server.engine.compactChangeLogs(retention: 0) > 0)

        let relaunched = SyncEngineLiveTests.engine(container.privateCloudDatabase, store, state: saved)
        try await relaunched.fetchChanges()
        #expect(Set(store.records.keys.map(\.recordName)) == ["ann", "bob", "cy"])
    }
}

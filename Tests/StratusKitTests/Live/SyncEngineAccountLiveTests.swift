import Foundation
import StratusKit
import StratusServer
import Synchronization
import Testing

/// CKSyncEngine when the signed-in user changes, when the server throttles, when a fetch is
/// cancelled, and when the app orders the zones it wants first.
@Suite("CKSyncEngine accounts, throttling and control against a live server")
struct SyncEngineAccountLiveTests {
    /// A saved state that belongs to the container's first user and holds one unsent change.
    func stateOfFirstUser(_ container: CKContainer) async throws -> (CKSyncEngine.State.Serialization, CKRecord.ID) {
        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(container.privateCloudDatabase, store)
        try await engine.fetchChanges()
        let zone = CKRecordZone.ID(zoneName: "Unsent")
        store.save(SyncEngineLiveTests.contact("kim", in: zone), engine: engine)
        try await waitUntil { store.serialization.map { _ in !engine.state.pendingRecordZoneChanges.isEmpty } ?? false }
        // The serialization delivered after the change was added.
        try await waitUntil { store.events.last == "stateUpdate" }
        return (try #require(store.serialization), try await container.userRecordID())
    }

    @Test func anotherUserStartsFromEmptyStateAndIsReportedAsASwitch() async throws {
        let server = try await LiveServer.shared()
        let first = try await server.makeContainer()
        let (saved, firstUser) = try await stateOfFirstUser(first)
        let other = try await server.engine.createUser(name: "other", container: first.containerIdentifier ?? "")
        let second = try #require(server.sameContainer(as: first, webAuthToken: other.webAuthToken))

        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(second.privateCloudDatabase, store, state: saved)
        #expect(!engine.state.pendingRecordZoneChanges.isEmpty, "the first user's change is in the saved state")
        try await engine.fetchChanges()
        let secondUser = try await second.userRecordID()
        #expect(store.contents.withLock { $0.accountChanges } == [.switchAccounts(previousUser: firstUser, currentUser: secondUser)])
        #expect(engine.state.pendingRecordZoneChanges.isEmpty, "the first user's unsent change is not sent as the second user's")
        try await engine.sendChanges()
        #expect(try await second.privateCloudDatabase.allRecordZones().allSatisfy { $0.zoneID.zoneName != "Unsent" })
    }

    @Test func signingOutIsReportedAndNothingSyncsUntilSomeoneSignsIn() async throws {
        let server = try await LiveServer.shared()
        let first = try await server.makeContainer()
        let (saved, firstUser) = try await stateOfFirstUser(first)
        let signedOut = try #require(server.sameContainer(as: first, webAuthToken: nil))

        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(signedOut.privateCloudDatabase, store, state: saved)
        try await engine.fetchChanges()
        try await engine.sendChanges()
        #expect(store.contents.withLock { $0.accountChanges } == [.signOut(previousUser: firstUser)])
        #expect(engine.state.pendingRecordZoneChanges.isEmpty, "a signed-out engine forgets the user's pending changes")
        #expect(!store.events.contains("fetchedDatabaseChanges") && !store.events.contains("sentRecordZoneChanges"))
        #expect(store.events.contains("didFetchChanges") && store.events.contains("didSendChanges"))
    }

    @Test func aThrottledSendIsRetriedAfterTheServersRetryAfterAndLosesNothing() async throws {
        // Two requests a second with a burst of three: a send of several batches meets THROTTLED.
        let server = try await LiveServer.dedicated(rateLimits: RateLimitConfiguration(perSecond: 2, burst: 3))
        // No retries in the transport, so the engine's own retry is what gets the send through.
        let container = try await server.makeContainer(maximumRetries: 0)
        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(container.privateCloudDatabase, store)
        let zone = CKRecordZone.ID(zoneName: "Busy")
        engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zone))])
        let ids = (0..<450).map { CKRecord.ID(recordName: "c\($0)", zoneID: zone) }
        for id in ids { store.save(SyncEngineLiveTests.contact(id.recordName, in: zone), engine: engine) }

        try await engine.sendChanges()
        #expect(engine.state.pendingRecordZoneChanges.isEmpty)
        #expect(store.contents.withLock { $0.failedSaves }.isEmpty)
        // Read back through a client that waits out the throttle itself (the budget is the user's).
        var readerConfiguration = try #require(server.configuration(of: container))
        readerConfiguration.maximumRetries = 20
        let reader = CKContainer(configuration: readerConfiguration)
        var onServer = 0
        var cursor: CKServerChangeToken?
        repeat {
            let page = try await reader.privateCloudDatabase.recordZoneChanges(inZoneWith: zone, since: cursor)
            onServer += page.modificationResultsByID.count
            cursor = page.changeToken
            if !page.moreComing { break }
        } while true
        #expect(onServer == ids.count)
    }

    @Test func cancelledFetchStopsAndTheNextFetchResumesWithNothingLost() async throws {
        let server = try await LiveServer.shared()
        // Every request takes a moment, so the fetch is still running when it is cancelled.
        let slow = SlowTransport(delay: .milliseconds(150))
        let writer = try await server.makeContainer()
        let zone = try await writer.privateCloudDatabase.save(CKRecordZone(zoneName: "Long"))
        let records = (0..<5).map { SyncEngineLiveTests.contact("p\($0)", in: zone.zoneID) }
        _ = try await writer.privateCloudDatabase.modifyRecords(saving: records, deleting: [])
        var configuration = try #require(server.configuration(of: writer))
        configuration.transport = slow
        let reader = CKContainer(configuration: configuration)

        let store = ContactsStore()
        let engine = SyncEngineLiveTests.engine(reader.privateCloudDatabase, store)
        let fetch = Task { try await engine.fetchChanges() }
        try await Task.sleep(for: .milliseconds(200))
        await engine.cancelOperations()
        await #expect(throws: (any Error).self) { try await fetch.value }
        #expect(!store.events.contains("didFetchChanges"), "a cancelled fetch does not report that it finished")

        try await engine.fetchChanges()
        #expect(Set(store.records.keys) == Set(records.map(\.recordID)))
    }

    @Test func prioritizedZonesAreFetchedFirst() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let names = ["Alpha", "Beta", "Gamma"]
        for name in names {
            let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: name))
            _ = try await container.privateCloudDatabase.save(SyncEngineLiveTests.contact("in-\(name)", in: zone.zoneID))
        }
        let store = PrioritizingStore(first: CKRecordZone.ID(zoneName: "Gamma"))
        let engine = CKSyncEngine(CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: store))
        try await engine.fetchChanges()
        let order = store.fetchedZones.withLock { $0 }
        #expect(order.first == "Gamma")
        #expect(Set(order) == Set(names))
    }

}

/// A delegate that asks for one zone first and records the order zones are fetched in.
final class PrioritizingStore: CKSyncEngineDelegate, Sendable {
    let first: CKRecordZone.ID
    let fetchedZones = Mutex<[String]>([])

    init(first: CKRecordZone.ID) { self.first = first }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        if case .willFetchRecordZoneChanges(let zone) = event {
            fetchedZones.withLock { $0.append(zone.zoneID.zoneName) }
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }

    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        var options = context.options
        options.prioritizedZoneIDs = [first]
        return options
    }
}

/// The real transport, with every request held back a moment: a slow network. As a network
/// would, it gives up on a request whose timeout is shorter than the hold.
final class SlowTransport: StratusTransport {
    let delay: Duration
    let inner = URLSessionTransport()

    init(delay: Duration) { self.delay = delay }

    func send(_ request: StratusHTTPRequest) async throws -> StratusHTTPResponse {
        if let timeout = request.timeout, Duration.milliseconds(Int64(timeout * 1000)) < delay {
            try await Task.sleep(for: .milliseconds(Int64(max(timeout, 0) * 1000)))
            throw URLError(.timedOut)
        }
        try await Task.sleep(for: delay)
        return try await inner.send(request)
    }
}

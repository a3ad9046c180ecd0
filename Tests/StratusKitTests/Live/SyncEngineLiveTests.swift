import Foundation
import StratusKit
import Synchronization
import Testing

/// An app's data layer as Apple's CKSyncEngine documentation writes it: a local store of records,
/// a delegate that applies fetched changes and builds batches from the pending changes, and the
/// state serialization kept for the next launch.
final class ContactsStore: CKSyncEngineDelegate, Sendable {
    struct Contents {
        var records: [CKRecord.ID: CKRecord] = [:]
        var events: [String] = []
        var serialization: CKSyncEngine.State.Serialization?
        var failedSaves: [CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave] = []
        var accountChanges: [CKSyncEngine.Event.AccountChange.ChangeType] = []
        var deletedZones: [CKRecordZone.ID] = []
    }
    let contents = Mutex(Contents())

    var records: [CKRecord.ID: CKRecord] { contents.withLock { $0.records } }
    var events: [String] { contents.withLock { $0.events } }
    var serialization: CKSyncEngine.State.Serialization? { contents.withLock { $0.serialization } }
    func clearEvents() { contents.withLock { $0.events = [] } }

    /// Saves locally and tells the engine.
    func save(_ record: CKRecord, engine: CKSyncEngine) {
        contents.withLock { $0.records[record.recordID] = record }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(record.recordID)])
    }

    func delete(_ id: CKRecord.ID, engine: CKSyncEngine) {
        _ = contents.withLock { $0.records.removeValue(forKey: id) }
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(id)])
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        contents.withLock { contents in
            switch event {
            case .stateUpdate(let update):
                contents.serialization = update.stateSerialization
                contents.events.append("stateUpdate")
                return
            case .accountChange(let change):
                contents.accountChanges.append(change.changeType)
            case .fetchedDatabaseChanges(let changes):
                contents.deletedZones += changes.deletions.map(\.zoneID)
            case .fetchedRecordZoneChanges(let changes):
                for modification in changes.modifications { contents.records[modification.record.recordID] = modification.record }
                for deletion in changes.deletions { contents.records[deletion.recordID] = nil }
            case .sentRecordZoneChanges(let sent):
                // The server's copy carries the new change tag: keep it for the next save.
                for saved in sent.savedRecords { contents.records[saved.recordID] = saved }
                contents.failedSaves += sent.failedRecordSaves
            default:
                break
            }
            contents.events.append(String(describing: event).prefix { $0 != "(" }.description)
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let pending = syncEngine.state.pendingRecordZoneChanges.filter { context.options.scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { id in self.contents.withLock { $0.records[id] } }
    }
}

@Suite("CKSyncEngine against a live server")
struct SyncEngineLiveTests {
    static func engine(
        _ database: CKDatabase, _ store: ContactsStore, state: CKSyncEngine.State.Serialization? = nil,
        automatic: Bool = false
    ) -> CKSyncEngine {
        var configuration = CKSyncEngine.Configuration(database: database, stateSerialization: state, delegate: store)
        configuration.automaticallySync = automatic
        return CKSyncEngine(configuration)
    }

    static func contact(_ name: String, in zone: CKRecordZone.ID, phone: String = "555") -> CKRecord {
        let record = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: name, zoneID: zone))
        record["name"] = name
        record["phone"] = phone
        return record
    }

    @Test func sendsZonesAndRecordsAndAnotherDeviceFetchesThem() async throws {
        let server = try await LiveServer.shared()
        let phone = try await server.makeContainer()
        let laptop = try #require(server.anotherDevice(of: phone))
        let zone = CKRecordZone(zoneName: "Contacts")
        let phoneStore = ContactsStore()
        let phoneEngine = Self.engine(phone.privateCloudDatabase, phoneStore)
        phoneEngine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        for name in ["ann", "bob", "cy"] { phoneStore.save(Self.contact(name, in: zone.zoneID), engine: phoneEngine) }
        try await phoneEngine.sendChanges()
        #expect(phoneEngine.state.pendingRecordZoneChanges.isEmpty && phoneEngine.state.pendingDatabaseChanges.isEmpty)
        let sent = phoneStore.events.filter { $0 != "stateUpdate" }
        #expect(sent == ["willSendChanges", "accountChange", "sentDatabaseChanges", "sentRecordZoneChanges", "didSendChanges"])
        #expect(phoneStore.records[CKRecord.ID(recordName: "ann", zoneID: zone.zoneID)]?.recordChangeTag != nil)

        let laptopStore = ContactsStore()
        let laptopEngine = Self.engine(laptop.privateCloudDatabase, laptopStore)
        try await laptopEngine.fetchChanges()
        #expect(Set(laptopStore.records.keys.map(\.recordName)) == ["ann", "bob", "cy"])
        #expect(laptopStore.records[CKRecord.ID(recordName: "bob", zoneID: zone.zoneID)]?["phone"] as? String == "555")
        let fetched = laptopStore.events.filter { $0 != "stateUpdate" }
        #expect(
            fetched == [
                "willFetchChanges", "accountChange", "fetchedDatabaseChanges", "willFetchRecordZoneChanges",
                "fetchedRecordZoneChanges", "didFetchRecordZoneChanges", "didFetchChanges",
            ])
        #expect(laptopEngine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)

        // An edit and a delete on the phone reach the laptop as one modification and one deletion.
        let ann = try #require(phoneStore.records[CKRecord.ID(recordName: "ann", zoneID: zone.zoneID)])
        ann["phone"] = "777"
        phoneStore.save(ann, engine: phoneEngine)
        phoneStore.delete(CKRecord.ID(recordName: "cy", zoneID: zone.zoneID), engine: phoneEngine)
        try await phoneEngine.sendChanges()
        laptopStore.clearEvents()
        try await laptopEngine.fetchChanges()
        #expect(Set(laptopStore.records.keys.map(\.recordName)) == ["ann", "bob"])
        #expect(laptopStore.records[ann.recordID]?["phone"] as? String == "777")

        // A restarted laptop engine resumes from its saved state: nothing is fetched again.
        let restartedStore = ContactsStore()
        let restarted = Self.engine(laptop.privateCloudDatabase, restartedStore, state: try #require(laptopStore.serialization))
        try await restarted.fetchChanges()
        #expect(restartedStore.records.isEmpty)
        #expect(!restartedStore.events.contains("fetchedRecordZoneChanges"))
        #expect(!restartedStore.events.contains("accountChange"), "the saved state remembers the user")
    }

    @Test func aConflictComesBackWithTheServerRecordAndLeavesThePendingList() async throws {
        let server = try await LiveServer.shared()
        let phone = try await server.makeContainer()
        let laptop = try #require(server.anotherDevice(of: phone))
        let zone = try await phone.privateCloudDatabase.save(CKRecordZone(zoneName: "Shared"))
        let phoneStore = ContactsStore(), laptopStore = ContactsStore()
        let phoneEngine = Self.engine(phone.privateCloudDatabase, phoneStore)
        let laptopEngine = Self.engine(laptop.privateCloudDatabase, laptopStore)
        phoneStore.save(Self.contact("dee", in: zone.zoneID), engine: phoneEngine)
        try await phoneEngine.sendChanges()
        try await laptopEngine.fetchChanges()

        let onPhone = try #require(phoneStore.records[CKRecord.ID(recordName: "dee", zoneID: zone.zoneID)])
        onPhone["phone"] = "from phone"
        phoneStore.save(onPhone, engine: phoneEngine)
        try await phoneEngine.sendChanges()
        let onLaptop = try #require(laptopStore.records[onPhone.recordID])
        onLaptop["phone"] = "from laptop"
        laptopStore.save(onLaptop, engine: laptopEngine)
        try await laptopEngine.sendChanges()

        let failure = try #require(laptopStore.contents.withLock { $0.failedSaves.first })
        #expect(failure.error.code == .serverRecordChanged)
        #expect(failure.error.serverRecord?["phone"] as? String == "from phone")
        #expect(laptopEngine.state.pendingRecordZoneChanges.isEmpty, "a failed save leaves the list; the app adds it again after merging")
        // The app merges onto the server record and sends again: it goes through.
        let merged = try #require(failure.error.serverRecord)
        merged["phone"] = "merged"
        laptopStore.save(merged, engine: laptopEngine)
        try await laptopEngine.sendChanges()
        #expect(try await phone.privateCloudDatabase.record(for: onPhone.recordID)["phone"] as? String == "merged")
    }

    @Test func serializedStateKeepsPendingChangesAcrossLaunches() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let zone = CKRecordZone.ID(zoneName: "Later")
        let store = ContactsStore()
        let engine = Self.engine(container.privateCloudDatabase, store)
        engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zone))])
        store.save(Self.contact("eve", in: zone), engine: engine)
        store.save(Self.contact("fay", in: zone), engine: engine)
        store.delete(CKRecord.ID(recordName: "fay", zoneID: zone), engine: engine)
        #expect(
            engine.state.pendingRecordZoneChanges == [
                .saveRecord(CKRecord.ID(recordName: "eve", zoneID: zone)),
                .deleteRecord(CKRecord.ID(recordName: "fay", zoneID: zone)),
            ])
        // What a stateUpdate carries survives JSON, as an app stores it.
        try await engine.fetchChanges()
        let saved = try JSONEncoder().encode(try #require(store.serialization))
        let restored = try JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: saved)
        let relaunched = Self.engine(container.privateCloudDatabase, store, state: restored)
        #expect(relaunched.state.pendingRecordZoneChanges == engine.state.pendingRecordZoneChanges)
        #expect(relaunched.state.pendingDatabaseChanges.map(\.zoneID) == [zone])
        try await relaunched.sendChanges()
        #expect(try await container.privateCloudDatabase.record(for: CKRecord.ID(recordName: "eve", zoneID: zone))["name"] as? String == "eve")
        #expect(relaunched.state.pendingRecordZoneChanges.isEmpty)
    }

    @Test func aSendScopedToRecordsSendsOnlyThose() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Scoped"))
        let store = ContactsStore()
        let engine = Self.engine(container.privateCloudDatabase, store)
        let first = Self.contact("gus", in: zone.zoneID), second = Self.contact("hal", in: zone.zoneID)
        store.save(first, engine: engine)
        store.save(second, engine: engine)
        try await engine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .recordIDs([first.recordID])))
        #expect(engine.state.pendingRecordZoneChanges == [.saveRecord(second.recordID)])
        let found = try await container.privateCloudDatabase.records(for: [first.recordID, second.recordID])
        #expect((try? found[first.recordID]?.get()) != nil)
        #expect((try? found[second.recordID]?.get()) == nil)
    }

    @Test func aZoneDeletedOnTheServerArrivesAsADeletion() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Doomed"))
        let store = ContactsStore()
        let engine = Self.engine(container.privateCloudDatabase, store)
        try await engine.fetchChanges()
        try await container.privateCloudDatabase.deleteRecordZone(withID: zone.zoneID)
        try await engine.fetchChanges()
        #expect(store.contents.withLock { $0.deletedZones } == [zone.zoneID])
    }

    @Test func theFirstRunReportsTheSignedInUser() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let store = ContactsStore()
        let engine = Self.engine(container.privateCloudDatabase, store)
        try await engine.fetchChanges()
        let user = try await container.userRecordID()
        #expect(store.contents.withLock { $0.accountChanges } == [.signIn(currentUser: user)])
    }

    @Test func automaticSyncSendsAddedChangesAndFetchesWhatTheServerAnnounces() async throws {
        let server = try await LiveServer.shared()
        let phone = try await server.makeContainer()
        let laptop = try #require(server.anotherDevice(of: phone))
        let zone = try await phone.privateCloudDatabase.save(CKRecordZone(zoneName: "Live"))
        let phoneStore = ContactsStore(), laptopStore = ContactsStore()
        let laptopEngine = Self.engine(laptop.privateCloudDatabase, laptopStore, automatic: true)
        let phoneEngine = Self.engine(phone.privateCloudDatabase, phoneStore, automatic: true)
        // Let the laptop's engine save its subscription and start listening.
        try await waitUntil { laptopStore.events.contains("didFetchChanges") }
        try await Task.sleep(for: .milliseconds(500))
        let ivy = Self.contact("ivy", in: zone.zoneID)
        phoneStore.save(ivy, engine: phoneEngine)
        try await waitUntil { phoneEngine.state.pendingRecordZoneChanges.isEmpty && phoneStore.events.contains("sentRecordZoneChanges") }
        try await waitUntil { laptopStore.records[ivy.recordID] != nil }
        withExtendedLifetime((phoneEngine, laptopEngine)) {}
    }
}

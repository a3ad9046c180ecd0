// CKSyncEngine code shaped the way Apple's documentation and sample app write it (a local store,
// an actor as the delegate, conflict handling that merges). Only the import differs from the
// Apple-platform original. It must compile on Linux; the test at the bottom runs what needs no server.
import Foundation
import StratusKit
import Testing

struct Contact: Codable {
    var identifier: String
    var name: String
    var lastKnownRecord: Data?
}

final actor SyncedDatabase: CKSyncEngineDelegate {
    struct AppData: Codable {
        var stateSerialization: CKSyncEngine.State.Serialization?
        var contacts: [String: Contact] = [:]
    }

    static let zoneName = "Contacts"
    var appData = AppData()
    private var _syncEngine: CKSyncEngine?

    var syncEngine: CKSyncEngine {
        if _syncEngine == nil { initializeSyncEngine() }
        return _syncEngine!
    }

    let container = CKContainer(
        configuration: StratusConfiguration(
            serverURL: URL(string: "http://127.0.0.1:1")!, containerIdentifier: "iCloud.com.example.Contacts", apiToken: "token"))

    private func initializeSyncEngine() {
        var configuration = CKSyncEngine.Configuration(
            database: container.privateCloudDatabase,
            stateSerialization: appData.stateSerialization,
            delegate: self
        )
        configuration.automaticallySync = false
        _syncEngine = CKSyncEngine(configuration)
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let event):
            appData.stateSerialization = event.stateSerialization
        case .accountChange(let event):
            switch event.changeType {
            case .signIn: break
            case .switchAccounts, .signOut: appData.contacts = [:]
            }
        case .fetchedDatabaseChanges(let event):
            for deletion in event.deletions where deletion.zoneID.zoneName == Self.zoneName {
                appData.contacts = [:]
            }
        case .fetchedRecordZoneChanges(let event):
            for modification in event.modifications {
                let record = modification.record
                let id = record.recordID.recordName
                var contact = appData.contacts[id] ?? Contact(identifier: id, name: "")
                contact.name = record["name"] as? String ?? ""
                appData.contacts[id] = contact
            }
            for deletion in event.deletions {
                appData.contacts[deletion.recordID.recordName] = nil
            }
        case .sentRecordZoneChanges(let event):
            var newPendingRecordZoneChanges = [CKSyncEngine.PendingRecordZoneChange]()
            var newPendingDatabaseChanges = [CKSyncEngine.PendingDatabaseChange]()
            for failedRecordSave in event.failedRecordSaves {
                let failedRecord = failedRecordSave.record
                switch failedRecordSave.error.code {
                case .serverRecordChanged:
                    guard let serverRecord = failedRecordSave.error.serverRecord else { continue }
                    serverRecord["name"] = failedRecord["name"]
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .zoneNotFound:
                    let zone = CKRecordZone(zoneID: failedRecord.recordID.zoneID)
                    newPendingDatabaseChanges.append(.saveZone(zone))
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .unknownItem:
                    newPendingRecordZoneChanges.append(.saveRecord(failedRecord.recordID))
                case .networkFailure, .networkUnavailable, .zoneBusy, .serviceUnavailable, .notAuthenticated, .operationCancelled:
                    break
                default:
                    break
                }
            }
            syncEngine.state.add(pendingDatabaseChanges: newPendingDatabaseChanges)
            syncEngine.state.add(pendingRecordZoneChanges: newPendingRecordZoneChanges)
        case .sentDatabaseChanges, .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges,
            .didFetchChanges, .willSendChanges, .didSendChanges:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        let contacts = appData.contacts
        let batch = await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            guard let contact = contacts[recordID.recordName] else { return nil }
            let record = CKRecord(recordType: "Contact", recordID: recordID)
            record["name"] = contact.name
            return record
        }
        return batch
    }

    func addContact(_ name: String) {
        let id = UUID().uuidString
        appData.contacts[id] = Contact(identifier: id, name: name)
        let zoneID = CKRecordZone.ID(zoneName: Self.zoneName)
        syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
        syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(CKRecord.ID(recordName: id, zoneID: zoneID))])
    }

    func pendingCount() -> Int { syncEngine.state.pendingRecordZoneChanges.count + syncEngine.state.pendingDatabaseChanges.count }
}

@Test func syncEngineCodeInAppleStyleQueuesChangesOffline() async throws {
    let database = SyncedDatabase()
    await database.addContact("Ann")
    await database.addContact("Bob")
    #expect(await database.pendingCount() == 3, "two saves and one zone (the zone change is not repeated)")
    let state = await database.syncEngine.state
    #expect(state.pendingRecordZoneChanges.allSatisfy { $0.recordID.zoneID.zoneName == SyncedDatabase.zoneName })
    state.remove(pendingDatabaseChanges: state.pendingDatabaseChanges)
    #expect(await database.pendingCount() == 2)
}

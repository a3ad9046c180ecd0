import Foundation
import StratusKit
import Synchronization

/// An app's store for the kill test: records k0…k{count-1} with their index, the server's system
/// fields of each once known, and the engine's state, written to a JSON file (atomically) after
/// every event, as an app persists it.
final class KillTestStore: CKSyncEngineDelegate, Sendable {
    struct Contents: Codable {
        var indexes: [String: Int] = [:]
        var systemFields: [String: Data] = [:]
        var state: CKSyncEngine.State.Serialization?
    }

    let file: URL
    let zoneID: CKRecordZone.ID
    let batch: Int
    let contents: Mutex<Contents>

    init(file: URL, zoneID: CKRecordZone.ID, batch: Int) {
        self.file = file
        self.zoneID = zoneID
        self.batch = batch
        contents = Mutex((try? JSONDecoder().decode(Contents.self, from: Data(contentsOf: file))) ?? Contents())
    }

    func persist() throws {
        try contents.withLock { try JSONEncoder().encode($0) }.write(to: file, options: .atomic)
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let update):
            contents.withLock { $0.state = update.stateSerialization }
        case .sentRecordZoneChanges(let sent):
            var again: [CKSyncEngine.PendingRecordZoneChange] = []
            contents.withLock { contents in
                for record in sent.savedRecords { contents.systemFields[record.recordID.recordName] = archive(record) }
                // Sent before a kill but not recorded here: the server has it; adopt its version.
                for failure in sent.failedRecordSaves where failure.error.code == .serverRecordChanged {
                    guard let server = failure.error.serverRecord else { continue }
                    contents.systemFields[server.recordID.recordName] = archive(server)
                    again.append(.saveRecord(server.recordID))
                }
            }
            syncEngine.state.add(pendingRecordZoneChanges: again)
            say("sent \(sent.savedRecords.count)")
        default:
            break
        }
        try? persist()
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let pending = Array(syncEngine.state.pendingRecordZoneChanges.prefix(batch))
        let snapshot = contents.withLock { $0 }
        let zoneID = self.zoneID
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: pending) { id in
            guard let index = snapshot.indexes[id.recordName] else { return nil }
            let record = snapshot.systemFields[id.recordName].flatMap(unarchive) ?? CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: id.recordName, zoneID: zoneID))
            record["index"] = index
            return record
        }
    }
}

private func archive(_ record: CKRecord) -> Data {
    let coder = NSKeyedArchiver(requiringSecureCoding: true)
    record.encodeSystemFields(with: coder)
    coder.finishEncoding()
    return coder.encodedData
}

private func unarchive(_ data: Data) -> CKRecord? {
    guard let coder = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
    coder.requiresSecureCoding = true
    return CKRecord(coder: coder)
}

/// First run: makes `count` records, queues them (and their zone) and sends. A later run (the
/// store exists) resumes from the saved state and sends what is still pending.
func runCKSyncEngine(file: URL, count: Int, batch: Int, configuration: StratusConfiguration) async throws {
    let zoneID = CKRecordZone.ID(zoneName: "killed-engine")
    let store = KillTestStore(file: file, zoneID: zoneID, batch: batch)
    var engineConfiguration = CKSyncEngine.Configuration(
        database: CKContainer(configuration: configuration).privateCloudDatabase,
        stateSerialization: store.contents.withLock { $0.state }, delegate: store)
    engineConfiguration.automaticallySync = false
    let engine = CKSyncEngine(engineConfiguration)
    if store.contents.withLock({ $0.indexes.isEmpty }) {
        store.contents.withLock { contents in
            for index in 0..<count { contents.indexes["k\(index)"] = index }
        }
        engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: zoneID))])
        engine.state.add(pendingRecordZoneChanges: (0..<count).map { .saveRecord(CKRecord.ID(recordName: "k\($0)", zoneID: zoneID)) })
        try store.persist()
        say("queued \(count)")
    }
    try await engine.sendChanges()
    say("pending \(engine.state.pendingRecordZoneChanges.count)")
    say("done")
}

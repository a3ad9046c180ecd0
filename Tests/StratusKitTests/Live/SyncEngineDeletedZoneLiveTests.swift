import Foundation
import StratusKit
import Synchronization
import Testing

/// A delegate that handles failed saves as Apple's CKSyncEngine sample does: on `zoneNotFound` it
/// queues the zone and the record again, on `unknownItem` the record, each without its last known
/// server copy; with `requeueEverything` it also queues every other failed record again, as a
/// naive app would.
final class RequeuingStore: CKSyncEngineDelegate, Sendable {
    let store = ContactsStore()
    let requeueEverything: Bool
    private let failures = Mutex<[String]>([])

    init(requeueEverything: Bool = false) { self.requeueEverything = requeueEverything }

    /// Each failed save as `record=code`, in the order the events reported them.
    var failedSaves: [String] { failures.withLock { $0 } }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        await store.handleEvent(event, syncEngine: syncEngine)
        guard case .sentRecordZoneChanges(let sent) = event else { return }
        for failed in sent.failedRecordSaves {
            failures.withLock { $0.append("\(failed.record.recordID.recordName)=\(failed.error.code)") }
            switch failed.error.code {
            case .zoneNotFound:
                // As the sample: save the zone, and the record again without its last known
                // server copy, which the deleted zone took with it.
                syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: failed.record.recordID.zoneID))])
                forgetServerCopy(of: failed.record)
                syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(failed.record.recordID)])
            case .unknownItem:
                forgetServerCopy(of: failed.record)
                syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(failed.record.recordID)])
            default:
                if requeueEverything { syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(failed.record.recordID)]) }
            }
        }
    }

    /// Keeps the record's values but not its change tag, so the next save creates it.
    private func forgetServerCopy(of record: CKRecord) {
        let fresh = CKRecord(recordType: record.recordType, recordID: record.recordID)
        for key in record.allKeys() { fresh[key] = record[key] }
        store.contents.withLock { $0.records[record.recordID] = fresh }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        await store.nextRecordZoneChangeBatch(context, syncEngine: syncEngine)
    }
}

/// Runs `body` and answers its result, or throws `StillRunning` when it has not finished within
/// `seconds`: a send that never ends must fail the test, not hang the suite. The race is
/// unstructured on purpose: a task group would wait for a body that ignores cancellation.
/// `stop` ends what is still running (the engine's send runs in a task of its own).
func finishing<T: Sendable>(
    within seconds: Int, stop: @escaping @Sendable () async -> Void = {},
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let resumed = Mutex(false)
        let finish: @Sendable (Result<T, any Error>) -> Void = { result in
            if resumed.withLock({ done in
                defer { done = true }; return !done
            }) {
                continuation.resume(with: result)
            }
        }
        let work = Task { finish(await Result(catching: body)) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            work.cancel()
            await stop()
            finish(.failure(StillRunning(seconds: seconds)))
        }
    }
}

struct StillRunning: Error, CustomStringConvertible {
    let seconds: Int
    var description: String { "still running after \(seconds) s" }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

@Suite("CKSyncEngine sends into a zone the server deleted")
struct SyncEngineDeletedZoneLiveTests {
    @Test func aSendIntoADeletedZoneEndsWithZoneNotFoundAndTheAppRecreatesTheZone() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Vanishing"))
        let delegate = RequeuingStore()
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let appEngine = CKSyncEngine(configuration)
        let ann = SyncEngineLiveTests.contact("ann", in: zone.zoneID)
        delegate.store.save(ann, engine: appEngine)
        try await appEngine.sendChanges()
        #expect(delegate.failedSaves.isEmpty)

        // Another device deletes the zone; this one, not having fetched, edits the record.
        try await container.privateCloudDatabase.deleteRecordZone(withID: zone.zoneID)
        let edited = try #require(delegate.store.records[ann.recordID])
        edited["phone"] = "777"
        delegate.store.save(edited, engine: appEngine)
        try await finishing(within: 30, stop: { await appEngine.cancelOperations() }) { try await appEngine.sendChanges() }

        #expect(delegate.failedSaves.first == "ann=zoneNotFound", "the record is in failedRecordSaves with zoneNotFound: \(delegate.failedSaves)")
        // The app queued the zone and the record again; they reach the server, in this send or the next.
        if !appEngine.state.pendingRecordZoneChanges.isEmpty {
            try await finishing(within: 30, stop: { await appEngine.cancelOperations() }) { try await appEngine.sendChanges() }
        }
        #expect(appEngine.state.pendingRecordZoneChanges.isEmpty && appEngine.state.pendingDatabaseChanges.isEmpty)
        let stored = try await container.privateCloudDatabase.record(for: ann.recordID)
        #expect(stored["phone"] as? String == "777", "the recreated zone holds the record")
    }

    @Test func anAppThatRequeuesEveryFailureDoesNotKeepASendRunning() async throws {
        let server = try await LiveServer.shared()
        let container = try await server.makeContainer()
        let laptop = try #require(server.anotherDevice(of: container))
        let zone = try await container.privateCloudDatabase.save(CKRecordZone(zoneName: "Contested"))
        // The server has a newer copy, so every save of this stale one is a conflict.
        let serverCopy = SyncEngineLiveTests.contact("bo", in: zone.zoneID)
        _ = try await laptop.privateCloudDatabase.save(serverCopy)
        let delegate = RequeuingStore(requeueEverything: true)
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: delegate)
        configuration.automaticallySync = false
        let engine = CKSyncEngine(configuration)
        delegate.store.save(SyncEngineLiveTests.contact("bo", in: zone.zoneID, phone: "stale"), engine: engine)

        try await finishing(within: 30, stop: { await engine.cancelOperations() }) { try await engine.sendChanges() }
        let failures = delegate.failedSaves
        #expect(!failures.isEmpty && failures.allSatisfy { $0 == "bo=serverRecordChanged" })
        #expect(failures.count <= 2, "one send sends a change at most twice, however often the app queues it again")
        #expect(engine.state.pendingRecordZoneChanges == [.saveRecord(serverCopy.recordID)], "still pending, for the next send")
    }
}

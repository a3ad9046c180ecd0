import Foundation
import StratusKit
import Testing

/// Long-lived zone saves, queries and change fetches: persisted, rebuilt by a new process and
/// finished there with their results.
@Suite("Long-lived operations beyond record saves, resumed by a new process")
struct LongLivedOperationKindsTests {
    @Test func aLongLivedZoneSaveKilledWithItsProcessIsFinishedByTheNextOne() async throws {
        let killed = try await KilledLongLivedOperation(["4", "zones"])
        let (id, container, restarted) = (killed.id, killed.container, killed.restarted)
        #expect(try await restarted.allLongLivedOperationIDs() == [id])
        let operation = try #require(try await restarted.longLivedOperation(for: id) as? CKModifyRecordZonesOperation)
        #expect(operation.recordZonesToSave?.map(\.zoneID.zoneName) == ["Z0", "Z1", "Z2", "Z3"])
        let saved = Recorder<String>()
        let finished = Recorder<Bool>()
        operation.perRecordZoneSaveBlock = { zoneID, result in if case .success = result { saved.add(zoneID.zoneName) } }
        operation.modifyRecordZonesResultBlock = { result in finished.add((try? result.get()) != nil) }
        await run(operation, in: restarted)
        #expect(Set(saved.all) == ["Z0", "Z1", "Z2", "Z3"])
        #expect(finished.all == [true])
        #expect(try await restarted.allLongLivedOperationIDs().isEmpty)
        let zones = try await container.privateCloudDatabase.allRecordZones().map(\.zoneID.zoneName)
        #expect(Set(zones).isSuperset(of: ["Z0", "Z1", "Z2", "Z3"]))
    }

    /// Adds `operation` long-lived through a server that never answers, so it stays on disk as a
    /// killed process would leave it.
    func persistUnfinished(_ operation: CKDatabaseOperation, _ configuration: StratusConfiguration, listener: SilentListener) async throws {
        var unreachable = configuration
        unreachable.serverURL = try #require(URL(string: "http://127.0.0.1:\(listener.port)"))
        let longLived = CKOperation.Configuration()
        longLived.isLongLived = true
        longLived.timeoutIntervalForRequest = 600
        operation.configuration = longLived
        let persisted = Recorder<Bool>()
        operation.longLivedOperationWasPersistedBlock = { persisted.add(true) }
        CKContainer(configuration: unreachable).privateCloudDatabase.add(operation)
        try await waitUntil { !persisted.all.isEmpty }
    }

    @Test func queriesAndChangeFetchesAreRebuiltWithTheirArguments() async throws {
        let server = try await LiveServer.shared()
        var configuration = try #require(server.configuration(of: try await server.makeContainer()))
        configuration.longLivedOperationFolder = server.folder.appendingPathComponent("long-lived-\(UUID().uuidString)")
        let container = CKContainer(configuration: configuration)
        let listener = try SilentListener()
        let query = CKQuery(recordType: "Film", predicate: NSPredicate(format: "year > %d", 1990))
        query.sortDescriptors = [NSSortDescriptor(key: "year", ascending: true)]
        let queryOperation = CKQueryOperation(query: query)
        queryOperation.zoneID = CKRecordZone.ID(zoneName: "films")
        queryOperation.desiredKeys = ["title"]
        queryOperation.resultsLimit = 7
        try await persistUnfinished(queryOperation, configuration, listener: listener)

        // The real server gets the films; the rebuilt query returns the matching ones.
        let database = container.privateCloudDatabase
        _ = try await database.save(CKRecordZone(zoneName: "films"))
        let films = [("heat", 1995), ("alien", 1979), ("ronin", 1998)].map { name, year in
            let record = CKRecord(recordType: "Film", recordID: CKRecord.ID(recordName: name, zoneID: CKRecordZone.ID(zoneName: "films")))
            record["year"] = year
            record["title"] = name.capitalized
            return record
        }
        _ = try await database.modifyRecords(saving: films, deleting: [])

        let restored = try #require(try await container.longLivedOperation(for: queryOperation.operationID) as? CKQueryOperation)
        #expect(restored.zoneID?.zoneName == "films")
        #expect(restored.desiredKeys == ["title"])
        #expect(restored.resultsLimit == 7)
        #expect(restored.query?.predicate.description == "year > 1990")
        let matched = Recorder<String>()
        restored.recordMatchedBlock = { id, result in if case .success = result { matched.add(id.recordName) } }
        await run(restored, in: container)
        #expect(matched.all == ["heat", "ronin"], "the rebuilt query filters and sorts as the original")

        let token = try await database.recordZoneChanges(inZoneWith: CKRecordZone.ID(zoneName: "films"), since: nil).changeToken
        let laterFilm = CKRecord(recordType: "Film", recordID: CKRecord.ID(recordName: "ubik", zoneID: CKRecordZone.ID(zoneName: "films")))
        laterFilm["year"] = 2001
        _ = try await database.save(laterFilm)
        let changes = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [CKRecordZone.ID(zoneName: "films")],
            configurationsByRecordZoneID: [CKRecordZone.ID(zoneName: "films"): .init(previousServerChangeToken: token, resultsLimit: 5)])
        try await persistUnfinished(changes, configuration, listener: listener)
        let restoredChanges = try #require(try await container.longLivedOperation(for: changes.operationID) as? CKFetchRecordZoneChangesOperation)
        let changed = Recorder<String>()
        restoredChanges.recordWasChangedBlock = { id, _ in changed.add(id.recordName) }
        await run(restoredChanges, in: container)
        #expect(changed.all == ["ubik"], "the rebuilt fetch starts from the saved change token")
        #expect(try await container.allLongLivedOperationIDs().isEmpty)
    }
}

import Foundation
import StratusKit
import Testing

@Suite("Change fetching against a live server")
struct ChangesLiveTests {
    @Test func zoneChangesSinceATokenAndDatabaseChanges() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "syncZone"))
        let a = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "a", zoneID: zone.zoneID))
        let b = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "b", zoneID: zone.zoneID))
        _ = try await database.modifyRecords(saving: [a, b], deleting: [])

        let first = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        #expect(Set(first.modificationResultsByID.keys) == [a.recordID, b.recordID])
        #expect(first.deletions.isEmpty)

        a["n"] = 2
        _ = try await database.save(a)
        try await database.deleteRecord(withID: b.recordID)
        let second = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: first.changeToken)
        #expect(Array(second.modificationResultsByID.keys) == [a.recordID])
        #expect(try second.modificationResultsByID[a.recordID]?.get().record["n"] as? Int == 2)
        #expect(second.deletions.map(\.recordID) == [b.recordID])
        #expect(second.deletions.map(\.recordType) == ["Item"], "a deletion reports its record's type, as CloudKit's framework does")

        let quiet = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: second.changeToken)
        #expect(quiet.modificationResultsByID.isEmpty && quiet.deletions.isEmpty)

        let zones = try await database.databaseChanges(since: nil)
        #expect(zones.modifications.map(\.zoneID).contains(zone.zoneID))
        try await database.deleteRecordZone(withID: zone.zoneID)
        let afterDelete = try await database.databaseChanges(since: zones.changeToken)
        #expect(afterDelete.deletions.map(\.zoneID) == [zone.zoneID])
    }

    @Test func fetchRecordZoneChangesOperationPagesUntilDone() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "pagedZone"))
        let records = (0..<7).map { CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\($0)", zoneID: zone.zoneID)) }
        _ = try await database.modifyRecords(saving: records, deleting: [])

        let configuration = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: nil, resultsLimit: 3)
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone.zoneID], configurationsByRecordZoneID: [zone.zoneID: configuration])
        let changed = Recorder<String>()
        let tokenUpdates = Recorder<Int>()
        let zoneResults = Recorder<String>()
        operation.recordWasChangedBlock = { id, _ in changed.add(id.recordName) }
        operation.recordZoneChangeTokensUpdatedBlock = { _, _, _ in tokenUpdates.add(1) }
        operation.recordZoneFetchResultBlock = { _, result in
            zoneResults.add((try? result.get()).map { "moreComing=\($0.moreComing)" } ?? "failed")
        }
        await run(operation, on: database)
        #expect(Set(changed.all) == Set(records.map(\.recordID.recordName)))
        #expect(changed.all.count == 7)
        #expect(tokenUpdates.all.count == 2, "7 records in pages of 3: tokens after the first two pages")
        #expect(zoneResults.all == ["moreComing=false"])

        // Deletions reach recordWithIDWasDeletedBlock with their record type.
        let since = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: nil).changeToken
        try await database.deleteRecord(withID: records[0].recordID)
        let deletions = CKFetchRecordZoneChangesOperation(
            recordZoneIDs: [zone.zoneID],
            configurationsByRecordZoneID: [zone.zoneID: .init(previousServerChangeToken: since)])
        let deleted = Recorder<String>()
        deletions.recordWithIDWasDeletedBlock = { id, type in deleted.add("\(id.recordName):\(type)") }
        await run(deletions, on: database)
        #expect(deleted.all == ["i0:Item"])
    }

    @Test func fetchDatabaseChangesOperationReportsChangedAndDeletedZones() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        _ = try await database.modifyRecordZones(saving: [CKRecordZone(zoneName: "keep"), CKRecordZone(zoneName: "drop")], deleting: [])
        let start = try await database.databaseChanges(since: nil).changeToken
        _ = try await database.save(CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "keep"))))
        try await database.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "drop"))

        let operation = CKFetchDatabaseChangesOperation(previousServerChangeToken: start)
        let changed = Recorder<String>()
        let deleted = Recorder<String>()
        let legacy = Recorder<String>()
        operation.recordZoneWithIDChangedBlock = { changed.add($0.zoneName) }
        operation.recordZoneWithIDWasDeletedBlock = { deleted.add($0.zoneName) }
        operation.fetchDatabaseChangesCompletionBlock = { token, moreComing, error in
            legacy.add("token=\(token != nil) more=\(moreComing) error=\(error == nil ? "nil" : "set")")
        }
        await run(operation, on: database)
        #expect(changed.all == ["keep"])
        #expect(deleted.all == ["drop"])
        #expect(legacy.all == ["token=true more=false error=nil"])
    }
}

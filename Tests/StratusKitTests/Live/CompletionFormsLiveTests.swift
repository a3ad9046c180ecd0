import Foundation
import StratusKit
import Testing

/// The completion-handler forms of the zone batch calls and the change feeds, and the zone
/// options of the iOS 10 change API, against a live server.
@Suite("Completion-handler forms against a live server")
struct CompletionFormsLiveTests {
    @Test func zoneBatchesAndChangeFeedsAnswerThroughHandlers() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "notes")
        let modified = try await withCheckedThrowingContinuation { continuation in
            database.modifyRecordZones(saving: [zone], deleting: []) { continuation.resume(with: $0) }
        }
        #expect(try modified.saveResults[zone.zoneID]?.get().zoneID.zoneName == "notes")
        let missing = CKRecordZone.ID(zoneName: "absent")
        let fetched = try await withCheckedThrowingContinuation { continuation in
            database.fetch(withRecordZoneIDs: [zone.zoneID, missing]) { continuation.resume(with: $0) }
        }
        #expect((try? fetched[zone.zoneID]?.get()) != nil)
        #expect(throws: CKError.self) { try fetched[missing]?.get() }

        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zone.zoneID))
        note["text"] = "hello"
        try await database.save(note)
        let databaseChanges = try await withCheckedThrowingContinuation { continuation in
            database.fetchDatabaseChanges(since: nil) { continuation.resume(with: $0) }
        }
        #expect(databaseChanges.modifications.map(\.zoneID.zoneName).contains("notes"))
        let zoneChanges = try await withCheckedThrowingContinuation { continuation in
            database.fetchRecordZoneChanges(inZoneWith: zone.zoneID, since: nil, desiredKeys: ["text"], resultsLimit: 10) {
                continuation.resume(with: $0)
            }
        }
        let record = try #require(try zoneChanges.modificationResultsByID[note.recordID]?.get().record)
        #expect(record["text"] as? String == "hello")

        // Nothing changed since the returned token.
        let again = try await withCheckedThrowingContinuation { continuation in
            database.fetchRecordZoneChanges(inZoneWith: zone.zoneID, since: zoneChanges.changeToken) { continuation.resume(with: $0) }
        }
        #expect(again.modificationResultsByID.isEmpty)
    }

    @Test func zoneOptionsAndTheOldFetchRecordChangesOperationStillWork() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "old"))
        let records = (0..<5).map { i -> CKRecord in
            let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n\(i)", zoneID: zone.zoneID))
            record["text"] = "note \(i)"
            record["extra"] = i
            return record
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])

        let options = CKFetchRecordZoneChangesOperation.ZoneOptions()
        options.desiredKeys = ["text"]
        let operation = CKFetchRecordZoneChangesOperation(recordZoneIDs: [zone.zoneID], optionsByRecordZoneID: [zone.zoneID: options])
        #expect(operation.configurationsByRecordZoneID?[zone.zoneID]?.desiredKeys == ["text"])
        let changed = Recorder<String>()
        operation.recordWasChangedBlock = { _, result in
            if let record = try? result.get() { changed.add("\(record["text"] as? String ?? "-")/\(record["extra"] == nil)") }
        }
        await run(operation, on: database)
        #expect(changed.all.count == 5)
        #expect(changed.all.allSatisfy { $0.hasSuffix("/true") }, "the options' desiredKeys leave out other fields")

        // The iOS 8 operation: one page at a time, continued from the token it reports.
        var token: CKServerChangeToken?
        var seen: [String] = []
        var pages = 0
        var more = true
        while more && pages < 10 {
            let page = CKFetchRecordChangesOperation(recordZoneID: zone.zoneID, previousServerChangeToken: token)
            page.resultsLimit = 2
            let names = Recorder<String>()
            let tokens = Recorder<CKServerChangeToken>()
            page.recordChangedBlock = { names.add($0.recordID.recordName) }
            page.fetchRecordChangesCompletionBlock = { next, _, error in
                if let next, error == nil { tokens.add(next) }
            }
            await run(page, on: database)
            seen += names.all
            token = tokens.all.first
            #expect(token != nil, "each page reports its token")
            more = page.moreComing
            pages += 1
        }
        #expect(Set(seen) == Set(records.map(\.recordID.recordName)))
        #expect(pages >= 3, "a limit of 2 pages five records")
    }
}

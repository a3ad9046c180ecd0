import Foundation
import StratusKit
import Testing

/// The async and completion-handler database API against a real server.
@Suite("CKDatabase against a live server")
struct DatabaseLiveTests {
    @Test func saveFetchQueryDeleteInThePublicDatabase() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let whistle = CKRecord(recordType: "Whistle")
        whistle["genre"] = "Jazz"
        whistle["comments"] = "smooth" as CKRecordValue
        whistle["plays"] = 3
        whistle["tags"] = ["a", "b"]
        let saved = try await database.save(whistle)
        #expect(saved.recordChangeTag != nil)
        #expect(saved.creationDate != nil)
        #expect(whistle.recordChangeTag == saved.recordChangeTag)

        let fetched = try await database.record(for: whistle.recordID)
        #expect(fetched["genre"] as? String == "Jazz")
        #expect(fetched["plays"] as? Int == 3)
        #expect(fetched["tags"] as? [String] == ["a", "b"])
        #expect(fetched.recordChangeTag == saved.recordChangeTag)

        let query = CKQuery(recordType: "Whistle", predicate: NSPredicate(format: "genre == %@", "Jazz"))
        let (matches, cursor) = try await database.records(matching: query)
        #expect(cursor == nil)
        #expect(matches.map(\.0) == [whistle.recordID])

        let deletedID = try await database.deleteRecord(withID: whistle.recordID)
        #expect(deletedID == whistle.recordID)
        await #expect(throws: CKError.self) { try await database.record(for: whistle.recordID) }
        do {
            _ = try await database.record(for: whistle.recordID)
        } catch let error as CKError {
            #expect(error.code == .unknownItem)
        }
    }

    @Test func staleSaveIsServerRecordChangedWithServerRecord() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
        note["title"] = "first"
        _ = try await database.save(note)
        let copy = try await database.record(for: note.recordID)
        copy["title"] = "second"
        _ = try await database.save(copy)

        note["title"] = "stale edit"
        do {
            _ = try await database.save(note)
            Issue.record("a save with a stale change tag succeeded")
        } catch CKError.serverRecordChanged {
            // matched through ~= as CloudKit code writes it
        }
        do {
            _ = try await database.save(note)
        } catch let error as CKError {
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["title"] as? String == "second")
            #expect(error.clientRecord === note)
        }
        // Creating a record that already exists is a conflict too (the notes example relies on it).
        let duplicate = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
        do {
            _ = try await database.save(duplicate)
            Issue.record("creating an existing record succeeded")
        } catch let error as CKError {
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["title"] as? String == "second")
        }
    }

    @Test func modifyRecordsReportsItemsSeparately() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let a = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "a"))
        let b = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "b"))
        a["n"] = 1
        b["n"] = 2
        let first = try await database.modifyRecords(saving: [a, b], deleting: [])
        #expect(first.saveResults.count == 2)
        #expect(try first.saveResults[a.recordID]?.get()["n"] as? Int == 1)

        let stale = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "a"))
        let c = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "c"))
        let second = try await database.modifyRecords(saving: [stale, c], deleting: [b.recordID], atomically: false)
        #expect(throws: CKError.self) { try second.saveResults[stale.recordID]?.get() }
        #expect(try second.saveResults[c.recordID]?.get().recordChangeTag != nil)
        #expect(throws: Never.self) { try second.deleteResults[b.recordID]?.get() }
    }

    @Test func batchesOverTheServerLimitAreSplit() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let records = (0..<450).map { i -> CKRecord in
            let r = CKRecord(recordType: "Bulk", recordID: CKRecord.ID(recordName: "bulk-\(i)"))
            r["i"] = i
            return r
        }
        let saved = try await database.modifyRecords(saving: records, deleting: [])
        #expect(saved.saveResults.count == 450)
        #expect(saved.saveResults.values.allSatisfy { (try? $0.get()) != nil })
        let fetched = try await database.records(for: records.map(\.recordID))
        #expect(fetched.count == 450)
        #expect(try fetched[records[449].recordID]?.get()["i"] as? Int == 449)
        let deleted = try await database.modifyRecords(saving: [], deleting: records.map(\.recordID))
        #expect(deleted.deleteResults.values.allSatisfy { (try? $0.get()) != nil })
    }

    @Test func zonesCreateListFetchDelete() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "moviesZone")
        let saved = try await database.save(zone)
        #expect(saved.zoneID == zone.zoneID)
        let all = try await database.allRecordZones()
        #expect(all.contains { $0.zoneID.zoneName == "moviesZone" })
        let fetched = try await database.recordZone(for: zone.zoneID)
        #expect(fetched.zoneID.zoneName == "moviesZone")

        let movie = CKRecord(recordType: "Movie", recordID: CKRecord.ID(recordName: "m1", zoneID: zone.zoneID))
        movie["title"] = "Alien"
        let savedMovie = try await database.save(movie)
        #expect(savedMovie.recordID.zoneID == zone.zoneID)
        let inZone = try await database.records(
            matching: CKQuery(recordType: "Movie", predicate: NSPredicate(value: true)),
            inZoneWith: zone.zoneID)
        #expect(inZone.matchResults.map(\.0) == [movie.recordID])

        let everywhere = try await database.records(matching: CKQuery(recordType: "Movie", predicate: NSPredicate(value: true)))
        #expect(everywhere.matchResults.map(\.0) == [movie.recordID], "a query without a zone searches every zone")
        #expect(everywhere.matchResults.first?.0.zoneID.zoneName == "moviesZone")

        try await database.deleteRecordZone(withID: zone.zoneID)
        do {
            _ = try await database.recordZone(for: zone.zoneID)
            Issue.record("a deleted zone was fetched")
        } catch let error as CKError {
            #expect(error.code == .zoneNotFound)
        }
    }

    @Test func completionHandlersDeliverResults() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let record = CKRecord(recordType: "Ping")
        record["n"] = 1
        let saved: CKRecord? = await withCheckedContinuation { continuation in
            database.save(record) { saved, error in
                #expect(error == nil)
                continuation.resume(returning: saved)
            }
        }
        #expect(saved?.recordChangeTag != nil)
        let fetched: CKRecord? = await withCheckedContinuation { continuation in
            database.fetch(withRecordID: record.recordID) { fetched, _ in continuation.resume(returning: fetched) }
        }
        #expect(fetched?["n"] as? Int == 1)
        let missing: (any Error)? = await withCheckedContinuation { continuation in
            database.fetch(withRecordID: CKRecord.ID(recordName: "missing")) { _, error in continuation.resume(returning: error) }
        }
        #expect((missing as? CKError)?.code == .unknownItem)
    }

    @Test func privateDatabaseNeedsASignedInUser() async throws {
        let container = try await LiveServer.shared().makeContainer(signedIn: false)
        do {
            _ = try await container.privateCloudDatabase.save(CKRecord(recordType: "Note"))
            Issue.record("an anonymous save to the private database succeeded")
        } catch let error as CKError {
            #expect(error.code == .notAuthenticated)
        }
        #expect(try await container.accountStatus() == .noAccount)
        let signedIn = try await LiveServer.shared().makeContainer()
        #expect(try await signedIn.accountStatus() == .available)
    }

    @Test func recordWhoseAssetFileIsMissingFailsAlone() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let withFile = CKRecord(recordType: "Photo")
        withFile["image"] = CKAsset(fileURL: URL(fileURLWithPath: "/nonexistent/photo-\(UUID().uuidString).png"))
        let plain = CKRecord(recordType: "Photo")
        plain["caption"] = "no file"
        let results = try await database.modifyRecords(saving: [withFile, plain], deleting: [], atomically: false)
        do {
            _ = try results.saveResults[withFile.recordID]?.get()
            Issue.record("a record with an un-uploaded asset was saved")
        } catch let error as CKError {
            #expect(error.code == .assetFileNotFound)
        }
        #expect(try results.saveResults[plain.recordID]?.get().recordChangeTag != nil)
    }
}

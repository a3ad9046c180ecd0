import Foundation
import StratusKit
import Synchronization
import Testing

/// Collects what an operation's blocks report, from whichever queue they run on.
final class Recorder<Value: Sendable>: Sendable {
    private let items = Mutex<[Value]>([])
    func add(_ value: Value) { items.withLock { $0.append(value) } }
    var all: [Value] { items.withLock { $0 } }
}

/// Runs an operation on a database and waits until it has finished (after every block).
func run(_ operation: CKDatabaseOperation, on database: CKDatabase) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        operation.completionBlock = { continuation.resume() }
        database.add(operation)
    }
}

@Suite("Operations against a live server")
struct OperationLiveTests {
    func seed(_ database: CKDatabase, count: Int, type: String = "Restaurant") async throws -> [CKRecord] {
        let records = (0..<count).map { i -> CKRecord in
            let r = CKRecord(recordType: type, recordID: CKRecord.ID(recordName: String(format: "r%03d", i)))
            r["name"] = "Place \(i)"
            r["rank"] = i
            r["cuisine"] = i % 2 == 0 ? "thai" : "greek"
            return r
        }
        _ = try await database.modifyRecords(saving: records, deleting: [])
        return records
    }

    @Test func queryOperationPagesWithCursorsUsingNewBlocks() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        _ = try await seed(database, count: 120)
        let query = CKQuery(recordType: "Restaurant", predicate: NSPredicate(format: "rank >= %d", 0))
        query.sortDescriptors = [NSSortDescriptor(key: "rank", ascending: false)]
        var ranks: [Int] = []
        var cursor: CKQueryOperation.Cursor?
        var pages = 0
        repeat {
            let operation = cursor.map { CKQueryOperation(cursor: $0) } ?? CKQueryOperation(query: query)
            operation.desiredKeys = ["rank"]
            operation.resultsLimit = 50
            let matched = Recorder<Int>()
            let next = Recorder<CKQueryOperation.Cursor?>()
            operation.recordMatchedBlock = { _, result in
                if let record = try? result.get() {
                    matched.add(record["rank"] as? Int ?? -1)
                    #expect(record["name"] == nil, "desiredKeys leaves out other fields")
                }
            }
            operation.queryResultBlock = { result in next.add(try? result.get()) }
            await run(operation, on: database)
            ranks += matched.all
            cursor = next.all.first ?? nil
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(ranks == Array((0..<120).reversed()))
    }

    @Test func queryOperationOldBlocks() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        _ = try await seed(database, count: 6)
        let operation = CKQueryOperation(query: CKQuery(recordType: "Restaurant", predicate: NSPredicate(format: "cuisine == 'thai'")))
        let names = Recorder<String>()
        let done = Recorder<String>()
        operation.recordFetchedBlock = { record in names.add(record.recordID.recordName) }
        operation.queryCompletionBlock = { cursor, error in done.add("cursor=\(cursor == nil ? "nil" : "set") error=\(error == nil ? "nil" : "set")") }
        await run(operation, on: database)
        #expect(Set(names.all) == ["r000", "r002", "r004"])
        #expect(done.all == ["cursor=nil error=nil"])
    }

    @Test func queryErrorsReachTheResultBlock() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let operation = CKQueryOperation(query: CKQuery(recordType: "Restaurant", predicate: NSPredicate(format: "name ENDSWITH %@", "x")))
        let outcome = Recorder<String>()
        operation.queryResultBlock = { result in
            if case .failure(let error as CKError) = result { outcome.add("\(error.code)") }
        }
        await run(operation, on: database)
        #expect(outcome.all == ["invalidArguments"])
    }

    @Test func modifyOperationPartialFailureInBothGenerations() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let existing = try await seed(database, count: 1, type: "Note")[0]
        let stale = CKRecord(recordType: "Note", recordID: existing.recordID) // no change tag: create → conflict
        let fresh = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "fresh"))
        fresh["name"] = "new"

        let operation = CKModifyRecordsOperation(recordsToSave: [stale, fresh], recordIDsToDelete: nil)
        operation.isAtomic = false
        let perSave = Recorder<String>()
        let perRecord = Recorder<String>()
        let final = Recorder<String>()
        let legacyFinal = Recorder<String>()
        operation.perRecordSaveBlock = { id, result in
            perSave.add("\(id.recordName):\((try? result.get()) == nil ? "failed" : "saved")")
        }
        operation.perRecordCompletionBlock = { record, error in
            perRecord.add("\(record.recordID.recordName):\((error as? CKError)?.code.rawValue ?? 0)")
        }
        operation.modifyRecordsResultBlock = { final.add(ending($0)) }
        operation.modifyRecordsCompletionBlock = { saved, deleted, error in
            let ck = error as? CKError
            let partial = ck?.partialErrorsByItemID?[existing.recordID] as? CKError
            legacyFinal.add(
                "saved=\(saved?.count ?? -1) deleted=\(deleted?.count ?? -1) code=\(ck?.code.rawValue ?? 0) item=\(partial?.code.rawValue ?? 0) server=\(partial?.serverRecord?["name"] as? String ?? "-")"
            )
        }
        await run(operation, on: database)
        #expect(Set(perSave.all) == ["r000:failed", "fresh:saved"])
        #expect(Set(perRecord.all) == ["r000:14", "fresh:0"])
        #expect(final.all == ["partialFailure[r000=serverRecordChanged]"], "the result block reports the partial failure too")
        #expect(legacyFinal.all == ["saved=1 deleted=0 code=2 item=14 server=Place 0"])
    }

    @Test func atomicZoneFailsTheWholeBatch() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let zone = try await database.save(CKRecordZone(zoneName: "atomicZone"))
        let first = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "one", zoneID: zone.zoneID))
        _ = try await database.save(first)
        let conflicting = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "one", zoneID: zone.zoneID))
        let innocent = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "two", zoneID: zone.zoneID))
        let results = try await database.modifyRecords(saving: [conflicting, innocent], deleting: [], atomically: true)
        let conflictCode =
            (results.saveResults[conflicting.recordID].flatMap { r -> CKError? in
                if case .failure(let e as CKError) = r { return e } else { return nil }
            })?.code
        let innocentCode =
            (results.saveResults[innocent.recordID].flatMap { r -> CKError? in
                if case .failure(let e as CKError) = r { return e } else { return nil }
            })?.code
        #expect(conflictCode == .serverRecordChanged)
        #expect(innocentCode == .batchRequestFailed)
        await #expect(throws: CKError.self) { try await database.record(for: innocent.recordID) }
    }

    @Test func fetchRecordsOperationReportsMissingItems() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let seeded = try await seed(database, count: 2)
        let missing = CKRecord.ID(recordName: "nope")
        let operation = CKFetchRecordsOperation(recordIDs: [seeded[0].recordID, missing, seeded[1].recordID])
        let perRecord = Recorder<String>()
        let legacy = Recorder<String>()
        operation.perRecordResultBlock = { id, result in perRecord.add("\(id.recordName):\((try? result.get()) != nil)") }
        operation.fetchRecordsCompletionBlock = { records, error in
            let code = (error as? CKError)?.code
            let item = ((error as? CKError)?.partialErrorsByItemID?[missing] as? CKError)?.code
            legacy.add("records=\(records?.count ?? -1) code=\(code.map { "\($0)" } ?? "-") item=\(item.map { "\($0)" } ?? "-")")
        }
        await run(operation, on: database)
        #expect(perRecord.all == ["r000:true", "nope:false", "r001:true"])
        #expect(legacy.all == ["records=2 code=partialFailure item=unknownItem"])
    }

    @Test func zoneOperations() async throws {
        let database = try await LiveServer.shared().makeContainer().privateCloudDatabase
        let modify = CKModifyRecordZonesOperation(
            recordZonesToSave: [CKRecordZone(zoneName: "z1"), CKRecordZone(zoneName: "z2")],
            recordZoneIDsToDelete: nil)
        let saved = Recorder<String>()
        modify.perRecordZoneSaveBlock = { id, result in saved.add("\(id.zoneName):\((try? result.get()) != nil)") }
        await run(modify, on: database)
        #expect(saved.all == ["z1:true", "z2:true"])

        let fetchAll = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
        let names = Recorder<String>()
        fetchAll.fetchRecordZonesCompletionBlock = { zones, _ in
            for zone in zones?.keys ?? [:].keys { names.add(zone.zoneName) }
        }
        await run(fetchAll, on: database)
        #expect(Set(names.all).isSuperset(of: ["z1", "z2"]))

        let delete = CKModifyRecordZonesOperation(recordZonesToSave: nil, recordZoneIDsToDelete: [CKRecordZone.ID(zoneName: "z1")])
        let legacy = Recorder<String>()
        delete.modifyRecordZonesCompletionBlock = { _, deleted, error in
            legacy.add("\(deleted?.map(\.zoneName) ?? []) \(error == nil)")
        }
        await run(delete, on: database)
        #expect(legacy.all == ["[\"z1\"] true"])
    }

    @Test func cancelledOperationReportsOperationCancelled() async throws {
        let database = try await LiveServer.shared().makeContainer().publicCloudDatabase
        let operation = CKFetchRecordsOperation(recordIDs: [CKRecord.ID(recordName: "x")])
        let outcome = Recorder<String>()
        operation.fetchRecordsResultBlock = { result in
            if case .failure(let error as CKError) = result { outcome.add("\(error.code)") }
        }
        operation.cancel()
        await run(operation, on: database)
        #expect(outcome.all == ["operationCancelled"])
    }
}
